//! Products and their inventories (the order entry of AWS's relational example): writes and point
//! reads (O12, O13), shared by commerce's functions, the seed loader and the tests; and O8's
//! pages as the deployment's index design reads them ([`ProductOrderItems`]).

use keys::{
    Id, Timestamp,
    commerce::{self as k, Sku},
    hr::{Reference, reference},
};
use model::{
    commerce::{Inventory, Product},
    s,
};

use keys::indexes::IndexDesign;
use store::{Condition, Deps, Paging, PagingError, Read, StoreError, Table, Update, Updated};

use crate::replay::{self, Named};

/// A product's price: cents of an ISO 4217 currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Price {
    pub cents: i64,
    pub currency: String,
}

impl Price {
    /// The product's price; `None` when it has none (not for sale).
    pub fn of(product: &Product) -> Option<Price> {
        Some(Price {
            cents: product.price?,
            currency: product.currency.clone()?,
        })
    }

    /// The product still has this price (an order's check of what it read).
    pub fn unchanged(&self) -> Condition {
        Condition::Equals(Product::PRICE, model::n(self.cents))
            .and(Condition::Equals(Product::CURRENCY, s(&self.currency)))
    }
}

/// Creates the product or replaces its name, description and price, keeping its derived total
/// inventory. Returns the product as stored and whether this call created it. One UpdateItem.
pub async fn put_product(
    table: &Table,
    sku: Sku,
    name: &str,
    description: Option<&str>,
    price: Option<&Price>,
    now: Timestamp,
) -> Result<(Product, bool), StoreError> {
    let now = s(now.to_string());
    let update = Update::new()
        .set(Product::SKU, model::n(sku.get()))
        .set(Product::NAME, s(name))
        .set(Product::UPDATED_AT, now.clone())
        .set_if_absent(Product::CREATED_AT, now);
    let update = match description {
        Some(d) => update.set(Product::DESCRIPTION, s(d)),
        None => update.remove(Product::DESCRIPTION),
    };
    let update = match price {
        Some(p) => update
            .set(Product::PRICE, model::n(p.cents))
            .set(Product::CURRENCY, s(&p.currency)),
        None => update.remove(Product::PRICE).remove(Product::CURRENCY),
    };
    table.upsert(&k::product(sku), update).await
}

/// The products of these SKUs that exist (strongly consistent: an order prices its lines from
/// what was written last): ONE BatchGetItem of their prices.
pub async fn catalogue(table: &Table, skus: &[Sku]) -> Result<Vec<Product>, StoreError> {
    let keys: Vec<_> = skus.iter().map(|sku| k::product(*sku)).collect();
    let items = table
        .batch_get(
            &keys,
            &[
                model::attr::TYPE,
                Product::SKU,
                Product::NAME,
                Product::CREATED_AT,
                Product::UPDATED_AT,
                Product::PRICE,
                Product::CURRENCY,
            ],
            Read::Strong,
        )
        .await?;
    items
        .into_iter()
        .map(|i| model::from_item(i).map_err(StoreError::from))
        .collect()
}

/// What an inventory PUT did.
#[derive(Debug, Clone, PartialEq)]
pub enum InventoryPut {
    /// Stored; `true` when this call created it.
    Stored(bool),
    NoProduct,
    NoWarehouse,
    /// The inventory's version is not the one the write expected: its current version (`None`:
    /// there is no inventory). Nothing written.
    VersionMismatch(Option<u64>),
}

/// Sets a product's stock in a warehouse to an absolute quantity, and returns the inventory as
/// stored. Created: ONE transaction checks that the product and the warehouse (in `hr`, HR's
/// table: the same one with `TableLayout` one-table) exist and puts it
/// at version 1 (`attribute_not_exists`). Replaced: ONE UpdateItem sets the quantity and adds 1
/// to its version. With `expected`, only if the inventory's version is still that one (0: an
/// inventory not created yet, or written before versions), so two clients' read-modify-writes
/// cannot both land: the second is a [`InventoryPut::VersionMismatch`]. The product's total
/// follows through the stream pipeline.
pub async fn set_inventory(
    table: &Table,
    hr: &Table,
    design: keys::indexes::IndexDesign,
    inventory: &Inventory,
    expected: Option<u64>,
) -> Result<(InventoryPut, Option<Inventory>), StoreError> {
    let key = k::inventory(inventory.sku, &inventory.warehouse_id);
    if expected.is_none_or(|v| v == 0) {
        let created = Inventory {
            version: 1,
            ..inventory.clone()
        };
        let mut tx = table.transaction();
        let product = tx.check(&k::product(inventory.sku), Condition::Exists)?;
        let warehouse = tx.check_in(
            hr,
            &reference(Reference::Warehouse, &inventory.warehouse_id),
            Condition::Exists,
        )?;
        // Without GSI1's keys where O8 reads the product's own partition (`IndexDesign`).
        let put = tx.put_item(
            model::to_item_with_gsi1(&created, design.writes_gsi1())?,
            Some(Condition::Absent),
        )?;
        match tx.send().await {
            Ok(()) => return Ok((InventoryPut::Stored(true), Some(created))),
            Err(e) if product.failed(&e) => return Ok((InventoryPut::NoProduct, None)),
            Err(e) if warehouse.failed(&e) => return Ok((InventoryPut::NoWarehouse, None)),
            // There already: replaced below.
            Err(e) if put.failed(&e) => {}
            Err(e) => return Err(e),
        }
    }
    let same_version = match expected {
        None => Condition::Exists,
        Some(0) => Condition::Exists.and(
            Condition::AttributeAbsent(Inventory::VERSION)
                .or(Condition::Equals(Inventory::VERSION, model::n(0))),
        ),
        Some(v) => Condition::Exists.and(Condition::Equals(Inventory::VERSION, model::n(v))),
    };
    let update = Update::new()
        .set(Inventory::QUANTITY, model::n(inventory.quantity))
        .set(Inventory::UPDATED_AT, s(inventory.updated_at.to_string()))
        .add(Inventory::VERSION, 1);
    match table.update(&key, &update, Some(same_version)).await {
        Ok(item) => Ok((InventoryPut::Stored(false), Some(model::from_item(item)?))),
        Err(StoreError::ConditionFailed) => {
            let current: Option<Inventory> = table.get(&key, Read::Strong).await?;
            Ok((
                InventoryPut::VersionMismatch(current.map(|i| i.version)),
                None,
            ))
        }
        Err(e) => Err(e),
    }
}

/// What a relative inventory change did.
#[derive(Debug, Clone, PartialEq)]
pub enum Adjusted {
    /// Applied: the inventory as stored.
    Applied(Inventory),
    /// No inventory of the product in the warehouse (create it with [`set_inventory`]).
    NotFound,
    /// It would take the stock below 0 (or above the bound): the inventory as it is, unchanged.
    OutOfRange(Inventory),
    /// The key was used before (nothing written): the inventory as that adjustment left it, and
    /// whether it asked the same.
    Replayed {
        inventory: Inventory,
        same_request: bool,
    },
}

/// A key's mark on an inventory: the request's digest and the time of the adjustment
/// (`"<hash> <at>"`), and beside it (`_q`, `_v`) the quantity and version it left.
fn replay_parts(mark: &str) -> [String; 3] {
    [mark.to_owned(), format!("{mark}_q"), format!("{mark}_v")]
}

/// The adjustment `named`'s mark on `item` remembers, if it has one.
fn replayed(item: &model::Item, named: &Named) -> Result<Option<Adjusted>, StoreError> {
    let [mark, quantity, version] = replay_parts(&named.mark());
    let Some(remembered) = item.get(&mark).and_then(|v| v.as_s().ok()) else {
        return Ok(None);
    };
    let corrupt = || StoreError::Corrupt(format!("{mark}: {remembered:?}"));
    let (hash, at) = remembered.split_once(' ').ok_or_else(corrupt)?;
    let number = |name: &str| -> Result<u64, StoreError> {
        item.get(name)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .ok_or_else(corrupt)
    };
    let mut inventory: Inventory = model::from_item(item.clone())?;
    inventory.quantity = u32::try_from(number(&quantity)?).map_err(|_| corrupt())?;
    inventory.version = number(&version)?;
    inventory.updated_at = Timestamp::parse(at).map_err(|_| corrupt())?;
    Ok(Some(Adjusted::Replayed {
        inventory,
        same_request: hash == named.request_hash,
    }))
}

/// The marks of keys an inventory no longer needs to keep: older than a day, or beyond the
/// newest [`KEPT_MARKS`] (a size bound: an item holds at most 400 KB).
fn stale_marks(item: &model::Item, now: Timestamp) -> Vec<String> {
    let mut marks: Vec<(String, String)> = item
        .iter()
        .filter(|(name, _)| {
            name.starts_with(replay::MARK_PREFIX) && !name.ends_with("_q") && !name.ends_with("_v")
        })
        .filter_map(|(name, v)| {
            let at = v.as_s().ok()?.split_once(' ')?.1.to_owned();
            Some((at, name.clone()))
        })
        .collect();
    // Newest first; a time that does not parse counts as old.
    marks.sort_unstable_by(|a, b| b.cmp(a));
    let day_ago = now.ms().saturating_sub(replay::KEPT_SECONDS as u64 * 1000);
    let old = |at: &str| Timestamp::parse(at).map_or(true, |t| t.ms() < day_ago);
    marks
        .into_iter()
        .enumerate()
        .filter(|(i, (at, _))| *i >= KEPT_MARKS || old(at))
        .flat_map(|(_, (_, name))| replay_parts(&name))
        .collect()
}

/// The most keys an inventory remembers. A mark is about 115 bytes (three attributes), and an
/// item is billed by its size on every write and read: 12 marks keep a busy inventory under 2 KB
/// (2 write units, where one without marks takes 1), at the price of a shorter memory on a hot
/// item: a retry is recognised among its 12 newest keyed adjustments.
pub const KEPT_MARKS: usize = 12;

/// The largest inventory item there can be: the highest SKU, the longest warehouse id, and
/// [`KEPT_MARKS`] idempotency marks. Staff pages of inventories are read within the read budget
/// assuming every inventory is this large; a test writes the largest and measures it.
pub const LARGEST_INVENTORY_BYTES: u32 = 2 * 1024;

/// Adds `delta` units (received: positive; shipped: negative) to a product's stock in a
/// warehouse: ONE UpdateItem, an atomic `ADD` conditioned on the result staying within
/// `0..=max`, so concurrent adjustments all count and none takes the stock below 0. Adds 1 to
/// the inventory's version. `named` by an `Idempotency-Key` ([`replay`]), the same request
/// marks the inventory with the key, the quantity and the version it leaves, on condition that
/// the mark is not there yet: a retry is refused by that condition and answered from the mark.
/// Marks past a day, or beyond the newest [`KEPT_MARKS`], are removed after a write that finds
/// them (one more UpdateItem, seldom).
pub async fn adjust_inventory(
    table: &Table,
    sku: Sku,
    warehouse: &Id,
    delta: i64,
    max: u32,
    now: Timestamp,
    named: Option<&Named>,
) -> Result<Adjusted, StoreError> {
    let key = k::inventory(sku, warehouse);
    // In i128, exact for every i64 delta: `-i64::MIN` and `max - delta` would overflow in i64
    // (a wrapped bound made the condition `Quantity >= i64::MIN`, and the stock went below 0).
    let delta_wide = i128::from(delta);
    let stays_in_range = if delta < 0 {
        Condition::AtLeast(Inventory::QUANTITY, model::n(-delta_wide))
    } else {
        Condition::AtMost(Inventory::QUANTITY, model::n(i128::from(max) - delta_wide))
    };
    let mut update = Update::new()
        .add(Inventory::QUANTITY, delta)
        .add(Inventory::VERSION, 1)
        .set(Inventory::UPDATED_AT, s(now.to_string()));
    let mut condition = Condition::Exists.and(stays_in_range);
    if let Some(named) = named {
        let [mark, quantity, version] = replay_parts(&named.mark());
        update = update
            .set_named(mark.clone(), s(format!("{} {now}", named.request_hash)))
            .set_named_to_sum(quantity, Inventory::QUANTITY, delta)
            .set_named_to_sum(version, Inventory::VERSION, 1);
        condition = condition.and(Condition::NamedAbsent(mark));
    }
    match table.update_or_current(&key, &update, condition).await? {
        Updated::Written(item) => {
            let stale = stale_marks(&item, now);
            if !stale.is_empty() {
                let removal = stale
                    .into_iter()
                    .fold(Update::new(), |u, name| u.remove_named(name));
                // Best effort: a mark left behind is removed by a later write.
                if let Err(e) = table.update(&key, &removal, Some(Condition::Exists)).await {
                    tracing::warn!(error = %e, "stale idempotency marks not removed");
                }
            }
            Ok(Adjusted::Applied(model::from_item(item)?))
        }
        Updated::Refused(None) => Ok(Adjusted::NotFound),
        Updated::Refused(Some(current)) => {
            if let Some(replayed) = named.map(|n| replayed(&current, n)).transpose()?.flatten() {
                return Ok(replayed);
            }
            Ok(Adjusted::OutOfRange(model::from_item(current)?))
        }
    }
}

/// O13: a product with its total inventory over all warehouses: ONE GetItem (the total is on the
/// product's own record, derived by the stream pipeline).
pub async fn product(table: &Table, sku: Sku) -> Result<Option<Product>, StoreError> {
    table.get(&k::product(sku), Read::Eventual).await
}

/// O12: a product's stock in one warehouse: ONE GetItem.
pub async fn inventory(
    table: &Table,
    sku: Sku,
    warehouse: &Id,
) -> Result<Option<Inventory>, StoreError> {
    table
        .get(&k::inventory(sku, warehouse), Read::Eventual)
        .await
}

/// O8's reader, as the deployment's index design (`INDEX_DESIGN`) makes it: the product's one
/// overloaded GSI1 partition (inventories and order lines), or its inventories from its own
/// partition and then its lines from `OrderLinesByProduct`. `list-product-order-items` asks it
/// for a page and never sees which design answers.
#[derive(Debug, Clone, Copy)]
pub struct ProductOrderItems(IndexDesign);

impl ProductOrderItems {
    /// The reader of the design `deps` read at start-up.
    pub fn of(deps: &Deps) -> Result<ProductOrderItems, StoreError> {
        Ok(ProductOrderItems(store::index_design(deps)?))
    }

    /// What a cursor is bound to beside the pattern: a position in one design is none in the
    /// other, so a cursor of one is an `invalid_cursor` in the other.
    pub fn cursor_scope(self) -> &'static str {
        match self.0 {
            IndexDesign::Overloaded => "",
            IndexDesign::Dedicated | IndexDesign::Projected => "dedicated|",
        }
    }

    /// One page: the inventories first (read backwards, they sort after the order lines in
    /// GSI1), then the order lines newest first, within the page's read budget; the items
    /// undecoded, as the partition holds them.
    pub async fn page(
        self,
        table: &Table,
        paging: &Paging<'_>,
        sku: Sku,
    ) -> Result<(Vec<model::Item>, Option<String>), PagingError> {
        match self.0 {
            IndexDesign::Overloaded => {
                // Inventories and order lines: read at the larger's size.
                let largest = LARGEST_INVENTORY_BYTES.max(crate::data::LARGEST_ORDER_LINE_BYTES);
                let query = table.query(k::product_order_items(sku)).backwards();
                paging.items_within(query, largest).await
            }
            IndexDesign::Dedicated | IndexDesign::Projected => {
                page_dedicated(table, paging, sku).await
            }
        }
    }
}

/// A page of the dedicated design: the inventories left (from the cursor's position, if it
/// is among them), then as many order lines as the page has room for, the two queries within one
/// read budget.
async fn page_dedicated(
    table: &Table,
    paging: &Paging<'_>,
    sku: Sku,
) -> Result<(Vec<model::Item>, Option<String>), PagingError> {
    // A position among the lines is an index entry's: it names the order.
    let among_lines = paging
        .start
        .as_ref()
        .is_some_and(|at| at.contains_key(model::commerce::OrderLine::ORDER_ID));
    let (mut items, mut spent) = (Vec::new(), 0.0);
    if !among_lines {
        let query = table.query(k::product_inventories(sku)).backwards();
        let budget = store::Budget::page(LARGEST_INVENTORY_BYTES);
        let page = store::read_within(query, paging.limit, paging.start.clone(), budget).await?;
        (items, spent) = (page.items, page.read_units);
        if items.len() as u32 == paging.limit || page.last_key.is_some() {
            // The page is full, or stopped at the budget: the next starts after its last
            // inventory.
            let last = page.last_key.or_else(|| {
                let key = [keys::attr::PK, keys::attr::SK];
                items.last().map(|i| {
                    i.iter()
                        .filter(|(a, _)| key.contains(&a.as_str()))
                        .map(|(a, v)| (a.clone(), v.clone()))
                        .collect()
                })
            });
            return Ok((items, paging.next_cursor(last)?));
        }
    }
    let query = table.query(k::order_lines_by_product(sku)).backwards();
    let start = paging.start.clone().filter(|_| among_lines);
    let budget = store::Budget {
        units: store::PAGE_READ_BUDGET - spent,
        largest: crate::data::LARGEST_ORDER_LINE_BYTES,
    };
    let page = store::read_within(query, paging.limit - items.len() as u32, start, budget).await?;
    items.extend(page.items);
    Ok((items, paging.next_cursor(page.last_key)?))
}
