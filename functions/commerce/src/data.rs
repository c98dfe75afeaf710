//! Commerce's reads and writes of the table, shared by its functions, the seed loader and the
//! tests (C2, C3, C6, C7, the order-status projection). Reads are declared in the function that
//! serves them, except C4 by status and O10, which read either of two key designs ([`ByStatus`]).
//! The writes only seeds and tests make are [`crate::fixtures`]'.
//!
//! `data`, not `store`: `store` is the mechanism crate this module is written with (`Table`,
//! transactions, paging); `data` is what this context keeps in the one table. Every context names
//! it so.

pub mod products;

use keys::{
    Date, Gsi1, Id, IndexCondition, KeyCondition, KeyError, Timestamp,
    commerce::{self as k, EventId, OrderId, OrderStatus},
    indexes::IndexDesign,
};
use model::{
    Entity, Item,
    commerce::{
        Cart, CartLine, Customer, Idempotency, Order, OrderHeader, OrderLine, OrderSummary,
        TrackingEvent,
    },
    n, s,
};

use store::{
    Condition, Deps, Read, Setting, StoreError, Table, Update,
    merge::{Direction, MergeKey, Position, Positions, merged_page_by},
};

// ---------------------------------------------------------------------------------------------
// C2: create or update a customer

/// What a customer PUT does to its account rep.
#[derive(Debug, Clone, PartialEq)]
pub enum RepChange {
    /// Leave it as it is (the body did not name one).
    Keep,
    /// Assign this employee (who must exist).
    Assign(Id),
    /// The customer has no rep from now on.
    Clear,
}

/// What a customer PUT did.
#[derive(Debug, Clone, PartialEq)]
pub enum CustomerPut {
    /// The customer as stored, and whether this call created it.
    Stored(Customer, bool),
    /// The account rep named is not an employee; nothing written.
    NoSuchRep,
}

/// The largest customer record there can be: the longest ids, name and email of the widest
/// characters, its derived totals, and the marks of [`MARKED_LANES`] stream shards
/// (`store::aggregate`). Pages of a rep's customers are read within the read budget at this size;
/// a test builds the largest and measures it.
pub const LARGEST_CUSTOMER_BYTES: u32 = 4 * 1024;

/// The stream shards whose marks a customer is assumed to hold at most: its totals are written
/// from its order summaries, in its own partition, whose stream shard is one at a time and rolls
/// over every few hours, so about 7 shards mark it within a mark's 25 hours. A customer marked
/// by more makes a page of its rep's customers read past its budget by what they add.
pub const MARKED_LANES: usize = 24;

/// The largest `RepSales` there can be (a 64-character rep, the largest totals, its ranking key;
/// its marks are kept aside): what O14's pages are read within the read budget at.
pub const LARGEST_REP_SALES_BYTES: u32 = 512;

/// Creates the customer or updates its name and email, keeping the derived attributes, and
/// sets or clears its account rep (and with it the customer's place in the rep's GSI1
/// partition, O9). Assigning a rep checks the employee in the same transaction, in `hr`: HR's
/// table (the same table with `TableLayout` one-table; a transaction spans tables).
pub async fn put_customer(
    table: &Table,
    hr: &Table,
    customer: &Id,
    name: &str,
    email: &str,
    rep: RepChange,
    now: Timestamp,
) -> Result<CustomerPut, StoreError> {
    let now = s(now.to_string());
    let update = Update::new()
        .set(Customer::CUSTOMER_ID, s(customer.as_str()))
        .set(Customer::NAME, s(name))
        .set(Customer::EMAIL, s(email))
        .set(Customer::UPDATED_AT, now.clone())
        .set_if_absent(Customer::CREATED_AT, now);
    let rep = match rep {
        RepChange::Keep => {
            let (c, created) = table.upsert(&k::customer(customer), update).await?;
            return Ok(CustomerPut::Stored(c, created));
        }
        RepChange::Clear => {
            let update = update
                .remove(Customer::ACCOUNT_REP_ID)
                .set_or_remove_key::<keys::Gsi1>(None);
            let (c, created) = table.upsert(&k::customer(customer), update).await?;
            return Ok(CustomerPut::Stored(c, created));
        }
        RepChange::Assign(rep) => rep,
    };
    let update = update
        .set(Customer::ACCOUNT_REP_ID, s(rep.as_str()))
        .set_key(&k::rep_customer_index(&rep, customer))
        .set(model::attr::TYPE, s(Customer::TYPE))
        .add(model::attr::REVISION, 1);
    // A transaction returns no item: created or not is told by the condition of a first try
    // (the customer is absent), and the customer is read back for the answer.
    for create in [true, false] {
        let mut tx = table.transaction();
        let employee = tx.check_in(hr, &keys::hr::employee(&rep), Condition::Exists)?;
        let write = tx.update(
            &k::customer(customer),
            &update,
            Some(if create {
                Condition::Absent
            } else {
                Condition::Exists
            }),
        )?;
        match tx.send().await {
            Ok(()) => {
                let stored = table
                    .get(&k::customer(customer), Read::Strong)
                    .await?
                    .ok_or_else(|| StoreError::Corrupt("customer vanished".into()))?;
                return Ok(CustomerPut::Stored(stored, create));
            }
            Err(e) if employee.failed(&e) => return Ok(CustomerPut::NoSuchRep),
            Err(e) if write.failed(&e) => continue,
            Err(e) => return Err(e),
        }
    }
    // Created between the two tries' conditions and deleted again: customers are never deleted.
    Err(StoreError::Corrupt(
        "customer neither absent nor present".into(),
    ))
}

/// Whether the customer exists: one (eventually consistent) GetItem of its key only.
pub async fn customer_exists(table: &Table, customer: &Id) -> Result<bool, StoreError> {
    table.exists(&k::customer(customer)).await
}

// ---------------------------------------------------------------------------------------------
// C3: place an order

/// A new order as the handler validated it.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub customer: Id,
    pub order_id: OrderId,
    pub created_at: Timestamp,
    /// (sku, quantity, unit price in cents); SKUs distinct.
    pub lines: Vec<(k::Sku, u32, i64)>,
    /// The deployment's design, which decides the keys its items carry.
    pub design: OrderDesign,
}

/// What a deployment decides about the keys of an order's items, read once from the function's
/// settings ([`OrderDesign::of`]): a handler passes it on and never looks inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderDesign {
    /// How many GSI2 shards O5 reads (`ORDER_STATUS_SHARDS`); the header records its own.
    pub status_shards: u32,
    /// The key design of C4 by status and O10 (`ORDER_STATUS_KEYS`): whether the header and the
    /// summary carry GSI1's status keys.
    pub status_keys: StatusKeys,
    /// The index design (`INDEX_DESIGN`): whether the lines carry GSI1's keys (O8).
    pub index_design: IndexDesign,
}

impl Default for OrderDesign {
    /// The template's defaults: what tests and tools write unless they say otherwise.
    fn default() -> OrderDesign {
        OrderDesign {
            status_shards: k::DEFAULT_ORDER_STATUS_SHARDS,
            status_keys: StatusKeys::default(),
            index_design: IndexDesign::default(),
        }
    }
}

impl OrderDesign {
    /// The design `deps` read at start-up; an error if the function did not declare its settings.
    pub fn of(deps: &Deps) -> Result<OrderDesign, StoreError> {
        Ok(OrderDesign {
            status_shards: order_shards(deps)?,
            status_keys: StatusKeys::of(deps)?,
            index_design: store::index_design(deps)?,
        })
    }
}

impl NewOrder {
    /// The sum of the lines' quantity × unit price, in cents; `None` when it does not fit an
    /// `i64` (a price read back corrupt: the API's bounds keep a real order below 5 × 10^13).
    pub fn checked_total(&self) -> Option<i64> {
        self.lines.iter().try_fold(0i64, |total, (_, q, p)| {
            total.checked_add(i64::from(*q).checked_mul(*p)?)
        })
    }

    /// [`NewOrder::checked_total`] of an order known to fit: [`place_order`] and
    /// [`place_catalogue_order`] refuse one that does not before anything reads this (an
    /// overflow saturates, never wraps into a plausible total).
    pub fn total(&self) -> i64 {
        self.checked_total().unwrap_or(i64::MAX)
    }

    /// Refuses an order whose total does not fit an `i64` (a corrupt price) before anything is
    /// written.
    fn fits(&self) -> Result<(), StoreError> {
        match self.checked_total() {
            Some(_) => Ok(()),
            None => Err(StoreError::Corrupt(format!(
                "order {}: its lines' total does not fit an i64 (a price out of range)",
                self.order_id
            ))),
        }
    }

    /// The order as its summary and header hold it, placed under `rep`.
    pub fn order(&self, rep: Option<Id>) -> Order {
        Order {
            order_id: self.order_id,
            customer_id: self.customer.clone(),
            status: OrderStatus::Open,
            created_at: self.created_at,
            total: self.total(),
            item_count: self.lines.len() as u64,
            last_event_id: None,
            event_count: None,
            account_rep_id: rep,
            status_shard: None,
            currency: None,
        }
    }

    /// The order's header: the order with its GSI2 shard.
    /// Its line items.
    pub fn lines(&self) -> Vec<OrderLine> {
        self.lines
            .iter()
            .map(|(sku, quantity, unit_price)| OrderLine {
                order_id: self.order_id,
                sku: *sku,
                quantity: *quantity,
                unit_price: *unit_price,
            })
            .collect()
    }

    pub fn header(&self, rep: Option<Id>) -> OrderHeader {
        OrderHeader(Order {
            status_shard: Some(k::order_status_shard(
                self.order_id,
                self.design.status_shards,
            )),
            ..self.order(rep)
        })
    }
}

/// Seconds since the Unix epoch, as TTL attributes count.
fn now_seconds() -> i64 {
    (keys::now_ms() / 1000) as i64
}

/// A client retry's key and what the first attempt answered.
#[derive(Debug, Clone)]
pub struct IdempotencyKey {
    pub key: Id,
    /// A digest of the request body: the same key with another body is refused.
    pub request_hash: String,
    /// The response body to replay on a retry.
    pub response: String,
    pub expires_at: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PlaceOutcome {
    Placed,
    CustomerNotFound,
    /// No product has this SKU (catalogue orders only); nothing written.
    UnknownSku(k::Sku),
    /// The product has no price: it is not for sale; nothing written.
    UnpricedSku(k::Sku),
    /// The lines' products are priced in different currencies; nothing written.
    MixedCurrencies(Vec<(k::Sku, String)>),
    /// A product's price kept changing between the order's read and its write; nothing written.
    PriceChanged(k::Sku),
    /// The idempotency key was used before: the first attempt's response, and whether its
    /// request was the same as this one.
    Replayed {
        response: String,
        same_request: bool,
    },
}

/// How many times an order is tried when its customer's rep changes under it.
const REP_ATTEMPTS: u32 = 3;

/// How many times an order is priced when a product's price changes between the read and the
/// write.
const PRICE_ATTEMPTS: u32 = 3;

/// An order as a customer asks for it: products and quantities. The prices are the catalogue's.
#[derive(Debug, Clone)]
pub struct OrderRequest {
    pub customer: Id,
    pub order_id: OrderId,
    pub created_at: Timestamp,
    /// (sku, quantity); SKUs distinct.
    pub items: Vec<(k::Sku, u32)>,
    pub design: OrderDesign,
}

/// An order placed at the catalogue's prices: what was written, in its currency.
#[derive(Debug, Clone)]
pub struct PricedOrder {
    pub order: NewOrder,
    pub currency: String,
}

/// What the first attempt of a keyed order answers, made from the order as priced.
pub struct IdempotencyRequest<'a> {
    pub key: Id,
    pub request_hash: String,
    pub expires_at: i64,
    pub response: &'a (dyn Fn(&PricedOrder) -> String + Sync),
}

/// Places an order at the catalogue's prices: its products are read (ONE strongly consistent
/// BatchGetItem), each line priced from its product, and the order written as
/// [`place_order`] writes it with, in the same transaction, a check per product that its price
/// is still the one read. A price changed in between cancels the write, and the order is
/// priced again (at most [`PRICE_ATTEMPTS`] times, then [`PlaceOutcome::PriceChanged`]).
pub async fn place_catalogue_order(
    table: &Table,
    request: &OrderRequest,
    idempotency: Option<&IdempotencyRequest<'_>>,
) -> Result<(PlaceOutcome, Option<PricedOrder>), StoreError> {
    let skus: Vec<_> = request.items.iter().map(|(sku, _)| *sku).collect();
    let mut changed = None;
    for _ in 0..PRICE_ATTEMPTS {
        let products = products::catalogue(table, &skus).await?;
        let mut prices = Vec::with_capacity(skus.len());
        for sku in &skus {
            let Some(product) = products.iter().find(|p| p.sku == *sku) else {
                return Ok((PlaceOutcome::UnknownSku(*sku), None));
            };
            let Some(price) = products::Price::of(product) else {
                return Ok((PlaceOutcome::UnpricedSku(*sku), None));
            };
            prices.push((*sku, price));
        }
        if prices
            .iter()
            .any(|(_, p)| p.currency != prices[0].1.currency)
        {
            let mixed = prices
                .iter()
                .map(|(s, p)| (*s, p.currency.clone()))
                .collect();
            return Ok((PlaceOutcome::MixedCurrencies(mixed), None));
        }
        let priced = PricedOrder {
            order: NewOrder {
                customer: request.customer.clone(),
                order_id: request.order_id,
                created_at: request.created_at,
                lines: request
                    .items
                    .iter()
                    .zip(&prices)
                    .map(|((sku, q), (_, p))| (*sku, *q, p.cents))
                    .collect(),
                design: request.design,
            },
            currency: prices[0].1.currency.clone(),
        };
        priced.order.fits()?;
        let idem = idempotency.map(|i| IdempotencyKey {
            key: i.key.clone(),
            request_hash: i.request_hash.clone(),
            response: (i.response)(&priced),
            expires_at: i.expires_at,
        });
        let checked = Checked {
            prices: &prices,
            currency: Some(&priced.currency),
        };
        match place(table, &priced.order, idem.as_ref(), &checked).await? {
            PlaceOutcome::PriceChanged(sku) => changed = Some(sku),
            outcome => return Ok((outcome, Some(priced))),
        }
    }
    Ok((
        PlaceOutcome::PriceChanged(changed.expect("set by every attempt")),
        None,
    ))
}

/// The products' prices an order was priced at (checked in its transaction), and its currency.
#[derive(Default)]
pub(crate) struct Checked<'a> {
    pub(crate) prices: &'a [(k::Sku, products::Price)],
    pub(crate) currency: Option<&'a String>,
}

/// Places an order (the API's [`place_catalogue_order`], the fixtures' `place_order`): the customer
/// is read (strongly consistent) for its account rep, which the order records, then one transaction
/// writes:
/// 1. a check that the customer exists and still has that rep (else it is read again);
/// 2. the idempotency record, if a key was given, must not exist yet;
/// 3. the summary in the customer's collection, the header and the lines in the order's own.
///
/// A cancellation caused only by conflicting concurrent transactions is retried with backoff;
/// a used idempotency key is answered with the first attempt's response.
///
/// The lines' prices are taken as given: the seed loaders and tests write orders so. The API
/// prices orders from the catalogue ([`place_catalogue_order`]).
pub(crate) async fn place(
    table: &Table,
    order: &NewOrder,
    idempotency: Option<&IdempotencyKey>,
    checked: &Checked<'_>,
) -> Result<PlaceOutcome, StoreError> {
    order.fits()?;
    for _ in 0..REP_ATTEMPTS {
        let Some(customer) = table
            .get::<Customer>(&k::customer(&order.customer), Read::Strong)
            .await?
        else {
            return Ok(PlaceOutcome::CustomerNotFound);
        };
        match place_with_rep(table, order, customer.account_rep_id, idempotency, checked).await? {
            Some(outcome) => return Ok(outcome),
            None => continue,
        }
    }
    Err(StoreError::Throttled(
        "the customer's account rep kept changing while the order was placed".into(),
    ))
}

/// One try of [`place_order`] with the rep read; `None` when the customer's rep changed (or the
/// customer went) since it was read.
async fn place_with_rep(
    table: &Table,
    order: &NewOrder,
    rep: Option<Id>,
    idempotency: Option<&IdempotencyKey>,
    checked: &Checked<'_>,
) -> Result<Option<PlaceOutcome>, StoreError> {
    let mut tx = table.transaction();
    if let Some(idem) = idempotency {
        // The client's key names the operation; the order id, this call of it (a client's retry
        // after a lost answer is a new call, answered from the idempotency record instead). The
        // table too: DynamoDB scopes a token to the account and Region, not the table, so the
        // same order placed in two tables (two stacks, two test tables) within its 10 minutes
        // would be refused as a mismatch.
        tx.idempotent_on(&[
            "C3",
            table.name(),
            order.customer.as_str(),
            idem.key.as_str(),
            &order.order_id.to_string(),
        ]);
    }
    let same_rep = match &rep {
        Some(rep) => Condition::Equals(Customer::ACCOUNT_REP_ID, s(rep.as_str())),
        None => Condition::AttributeAbsent(Customer::ACCOUNT_REP_ID),
    };
    let customer = tx.check(
        &k::customer(&order.customer),
        Condition::Exists.and(same_rep),
    )?;
    let key_used = idempotency
        .map(|idem| {
            let record = Idempotency {
                customer_id: order.customer.clone(),
                idempotency_key: idem.key.clone(),
                order_id: order.order_id,
                request_hash: idem.request_hash.clone(),
                response: idem.response.clone(),
                expires_at: idem.expires_at,
            };
            // A record past its expiry counts as absent: TTL deletes lazily (often days late),
            // so the condition, not the deletion, decides. Two racing requests still make one
            // order: the first replaces the expired record, the second finds the new one.
            let expired = Condition::AtMost(Idempotency::EXPIRES_AT, n(now_seconds()));
            tx.put(&record, Some(Condition::Absent.or(expired)))
        })
        .transpose()?;
    let currency = checked.currency.cloned();
    let summary = Order {
        currency: currency.clone(),
        ..order.order(rep.clone())
    };
    // Headers and summaries without GSI1's status keys in the multi-attribute design, lines
    // without theirs where O8 reads its own index: no reader reads those copies there.
    let keys = order.design.status_keys;
    tx.put_item(
        model::to_item_with_gsi1(&OrderSummary(summary), keys.writes_gsi1())?,
        Some(Condition::Absent),
    )?;
    let OrderHeader(header) = order.header(rep);
    let header = OrderHeader(Order { currency, ..header });
    tx.put_item(
        model::to_item_with_gsi1(&header, keys.writes_gsi1())?,
        Some(Condition::Absent),
    )?;
    for line in order.lines() {
        tx.put_item(
            model::to_item_with_gsi1(&line, order.design.index_design.writes_gsi1())?,
            Some(Condition::Absent),
        )?;
    }
    let prices = checked
        .prices
        .iter()
        .map(|(sku, price)| Ok((*sku, tx.check(&k::product(*sku), price.unchanged())?)))
        .collect::<Result<Vec<_>, StoreError>>()?;

    match tx.send().await {
        Ok(()) => Ok(Some(PlaceOutcome::Placed)),
        Err(e) if customer.failed(&e) => Ok(None),
        Err(e) if let Some((sku, _)) = prices.iter().find(|(_, part)| part.failed(&e)) => {
            Ok(Some(PlaceOutcome::PriceChanged(*sku)))
        }
        Err(e) if key_used.is_some_and(|part| part.failed(&e)) => {
            let idem = idempotency.expect("a part for it exists");
            let record: Idempotency = table
                .get(&k::idempotency(&order.customer, &idem.key), Read::Strong)
                .await?
                .ok_or_else(|| StoreError::Corrupt("idempotency record vanished".into()))?;
            Ok(Some(PlaceOutcome::Replayed {
                same_request: record.request_hash == idem.request_hash,
                response: record.response,
            }))
        }
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------------
// C6: append a tracking event

/// The most tracking events an order takes: C5 reads them all with the order, so its read stays
/// small (an order collection of at most 1 + 48 lines + 50 events).
pub const MAX_ORDER_EVENTS: i64 = 50;

/// The largest order header or summary there can be: the longest ids, a currency, and on the
/// header an `Idempotency-Key` mark for each of its [`MAX_ORDER_EVENTS`] events. Pages of orders
/// are read within the read budget at this size; a test writes the largest and measures it.
pub const LARGEST_ORDER_BYTES: u32 = 4 * 1024;

/// What a page of orders may spend: a page's read budget, at [`LARGEST_ORDER_BYTES`] an order.
const ORDER_PAGE: store::Budget = store::Budget {
    units: store::PAGE_READ_BUDGET,
    largest: LARGEST_ORDER_BYTES,
};

/// The largest order line there can be (the highest SKU, its keys): pages of a product's lines
/// are read within the read budget at this size (or an inventory's, the larger).
pub const LARGEST_ORDER_LINE_BYTES: u32 = 1024;

/// What appending a tracking event did.
#[derive(Debug, Clone, PartialEq)]
pub enum EventAdded {
    Added,
    /// No such order; nothing written.
    NoOrder,
    /// The order has [`MAX_ORDER_EVENTS`] events already; nothing written.
    Full,
    /// The key was used before (nothing written): the event it added, and whether it asked the
    /// same.
    Replayed {
        event: TrackingEvent,
        same_request: bool,
    },
}

/// Appends a tracking event to an existing order, counted on its header (`EventCount`) in the
/// same transaction, on condition that the order has fewer than [`MAX_ORDER_EVENTS`]. `named`
/// by an `Idempotency-Key` ([`crate::replay`]), the header is marked with the key and the
/// event's id in the same write, on condition that the mark is not there yet: a retry is
/// refused by it and answered with the event the first added. An order's marks are at most
/// its [`MAX_ORDER_EVENTS`], about 60 bytes each.
pub async fn append_tracking_event(
    table: &Table,
    event: &TrackingEvent,
    named: Option<&crate::replay::Named>,
) -> Result<EventAdded, StoreError> {
    let header = k::order_header(event.order_id);
    let mut tx = table.transaction();
    let room = Condition::AttributeAbsent(Order::EVENT_COUNT).or(Condition::AtMost(
        Order::EVENT_COUNT,
        n(MAX_ORDER_EVENTS - 1),
    ));
    let mut count = Update::new().add(Order::EVENT_COUNT, 1);
    let mut condition = Condition::Exists.and(room);
    if let Some(named) = named {
        let remembered = format!("{} {}", named.request_hash, event.event_id);
        count = count.set_named(named.mark(), s(remembered));
        condition = condition.and(Condition::NamedAbsent(named.mark()));
    }
    let order = tx.update(&header, &count, Some(condition))?;
    tx.put(event, Some(Condition::Absent))?;
    match tx.send().await {
        Ok(()) => Ok(EventAdded::Added),
        Err(e) if order.failed(&e) => {
            let Some(item) = table.get_item(&header, Read::Strong, None).await? else {
                return Ok(EventAdded::NoOrder);
            };
            let remembered = named.and_then(|named| {
                let mark = item.get(&named.mark())?.as_s().ok()?;
                let (hash, event) = mark.split_once(' ')?;
                Some((
                    hash == named.request_hash,
                    keys::SortableId::parse(event).ok()?,
                ))
            });
            let Some((same_request, first)) = remembered else {
                return Ok(EventAdded::Full);
            };
            let event = table
                .get(&k::tracking_event(event.order_id, first), Read::Strong)
                .await?
                .ok_or_else(|| StoreError::Corrupt(format!("the event {first} a key names")))?;
            Ok(EventAdded::Replayed {
                event,
                same_request,
            })
        }
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------------
// Derived: an order's current status, from its newest tracking event

/// Sets the order's status on its header (and its status keys: GSI2 for O5, GSI1 for C4 by
/// status unless `keys` is the multi-attribute design, whose indexes key on `Status` itself)
/// and on its summary in the customer's collection (and its rep's GSI1 key, O10, likewise),
/// unless a newer event was applied already: each write is conditioned on
/// `LastEventId <= event`, so events applied out of order, twice, or after a crash between the two
/// writes all end with the newest event's status. Returns false when a newer event (or no order)
/// was found.
pub async fn apply_order_status(
    table: &Table,
    keys: StatusKeys,
    order: OrderId,
    event: EventId,
    status: OrderStatus,
) -> Result<bool, StoreError> {
    let not_newer = || {
        Condition::Exists.and(Condition::AttributeAbsent(Order::LAST_EVENT_ID).or(
            Condition::AtMost(Order::LAST_EVENT_ID, s(event.to_string())),
        ))
    };
    let update = Update::new()
        .set(Order::STATUS, s(status.as_str()))
        .set(Order::LAST_EVENT_ID, s(event.to_string()));
    let gsi1 = |update: Update| match keys.writes_gsi1() {
        true => update.set(keys::attr::GSI1SK, s(k::status_sort_key(status, order))),
        false => update,
    };
    let header = match table
        .update(
            &k::order_header(order),
            // The partition keys (GSI1: the customer, GSI2: the shard) were written with the
            // order and never change; the status is in the sort keys.
            &gsi1(update.clone()).set(keys::attr::GSI2SK, s(k::status_sort_key(status, order))),
            Some(not_newer()),
        )
        .await
    {
        Ok(item) => model::from_item::<OrderHeader>(item)?,
        Err(StoreError::ConditionFailed) => return Ok(false),
        Err(e) => return Err(e),
    };
    let o = &header.0;
    // In the rep's GSI1 partition only if placed under a rep (GSI1PK written with the order).
    let update = if o.account_rep_id.is_some() {
        gsi1(update)
    } else {
        update
    };
    match table
        .update(
            &k::order_summary(&o.customer_id, order),
            &update,
            Some(not_newer()),
        )
        .await
    {
        Ok(_) => Ok(true),
        Err(StoreError::ConditionFailed) => Ok(false),
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------------
// C7: shopping cart

/// The most lines a cart holds: a full cart is one query of about 15 KB (2 read units), far within
/// the README's cost and Lambda's 6 MB answer (5,000 lines read 136.5 units and answered 659 KB).
pub const MAX_CART_LINES: i64 = 100;

/// What a cart line write did.
#[derive(Debug, Clone, PartialEq)]
pub enum CartLineSet {
    /// The line as stored.
    Stored(CartLine),
    /// The line is new and the cart holds [`MAX_CART_LINES`] already; nothing written.
    CartFull,
    /// The line's version is not the one the write named: its version now (`None`: no such
    /// line). Nothing written.
    VersionMismatch(Option<u64>),
}

/// How many times a line set without a version is tried: each try after the first follows a
/// removal of the line by another request between its two steps (the add found the line, the
/// change did not), so this many removals would have to interleave with one PUT to exhaust it.
const UNVERSIONED_ATTEMPTS: usize = 32;

/// Sets one line of a cart: one small item per product, so changing a line costs one small write
/// however big the cart (Naylor's post). A new line is added in ONE transaction with the cart's
/// line count, on condition that the count is below [`MAX_CART_LINES`], so concurrent adds
/// cannot pass the cap; an existing line is changed in ONE UpdateItem. With `expected`, only if
/// the line's version is still that one (0: a line not there yet). Without, the line is set
/// whatever it was: a line removed between the two steps is added again (the count follows).
pub async fn set_cart_line(
    table: &Table,
    line: &CartLine,
    expected: Option<u64>,
) -> Result<CartLineSet, StoreError> {
    let attempts = match expected {
        None => UNVERSIONED_ATTEMPTS,
        Some(_) => 1,
    };
    for _ in 0..attempts {
        if let Some(done) = try_set_cart_line(table, line, expected).await? {
            return Ok(done);
        }
    }
    Err(StoreError::Throttled(
        "the cart line kept being removed while it was set".into(),
    ))
}

/// One try of [`set_cart_line`]: add the line if it is not there, else change it; `None` when
/// it was there for the add and gone for the change (removed in between) and no version was
/// named, so it is to be added again.
async fn try_set_cart_line(
    table: &Table,
    line: &CartLine,
    expected: Option<u64>,
) -> Result<Option<CartLineSet>, StoreError> {
    let key = k::cart_line(&line.cart_id, &line.product_id);
    if expected.is_none_or(|v| v == 0) {
        let added = CartLine {
            version: 1,
            ..line.clone()
        };
        let mut tx = table.transaction();
        let put = tx.put(&added, Some(Condition::Absent))?;
        let room = Condition::AttributeAbsent(Cart::LINE_COUNT)
            .or(Condition::AtMost(Cart::LINE_COUNT, n(MAX_CART_LINES - 1)));
        let count = tx.update(
            &k::cart(&line.cart_id),
            &line_count_change(&line.cart_id, 1),
            Some(room),
        )?;
        match tx.send().await {
            Ok(()) => return Ok(Some(CartLineSet::Stored(added))),
            Err(e) if put.failed(&e) => {}
            Err(e) if count.failed(&e) => return Ok(Some(CartLineSet::CartFull)),
            Err(e) => return Err(e),
        }
    }
    let same_version = line_at(expected);
    let update = Update::new()
        .set(CartLine::QUANTITY, n(line.quantity))
        .set(CartLine::UPDATED_AT, s(line.updated_at.to_string()))
        .add(CartLine::VERSION, 1);
    match table.update(&key, &update, Some(same_version)).await {
        Ok(item) => Ok(Some(CartLineSet::Stored(model::from_item(item)?))),
        Err(StoreError::ConditionFailed) if expected.is_none() => Ok(None),
        Err(StoreError::ConditionFailed) => {
            let current: Option<CartLine> = table.get(&key, Read::Strong).await?;
            Ok(Some(CartLineSet::VersionMismatch(
                current.map(|l| l.version),
            )))
        }
        Err(e) => Err(e),
    }
}

/// The cart's line count moved by `by`, its record created if it is not there (with the cart's
/// first line, or by `make reconcile REPAIR=1` for lines written before carts had one).
pub fn line_count_change(cart: &Id, by: i64) -> Update {
    Update::new()
        .set_if_absent(model::attr::TYPE, s(Cart::TYPE))
        .set_if_absent(Cart::CART_ID, s(cart.as_str()))
        .add(Cart::LINE_COUNT, by)
}

/// The line is there and, with `expected`, at that version (0: written before versions).
fn line_at(expected: Option<u64>) -> Condition {
    match expected {
        None => Condition::Exists,
        Some(0) => Condition::Exists.and(
            Condition::AttributeAbsent(CartLine::VERSION)
                .or(Condition::Equals(CartLine::VERSION, n(0))),
        ),
        Some(v) => Condition::Exists.and(Condition::Equals(CartLine::VERSION, n(v))),
    }
}

/// What removing a cart line did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CartLineRemoved {
    Removed,
    /// It was not there; nothing written.
    Absent,
    /// It is at this version, not the one the removal named; nothing written.
    VersionMismatch(u64),
}

/// Removes one line of a cart and counts it out of the cart, in ONE transaction; with
/// `expected`, only if the line is still at that version.
pub async fn remove_cart_line(
    table: &Table,
    cart: &Id,
    product: &Id,
    expected: Option<u64>,
) -> Result<CartLineRemoved, StoreError> {
    let key = k::cart_line(cart, product);
    let mut tx = table.transaction();
    let line = tx.delete(&key, Some(line_at(expected)))?;
    tx.update(&k::cart(cart), &line_count_change(cart, -1), None)?;
    match tx.send().await {
        Ok(()) => Ok(CartLineRemoved::Removed),
        Err(e) if line.failed(&e) => Ok(match table.get::<CartLine>(&key, Read::Strong).await? {
            Some(current) if expected.is_some() => {
                CartLineRemoved::VersionMismatch(current.version)
            }
            _ => CartLineRemoved::Absent,
        }),
        Err(e) => Err(e),
    }
}

/// Removes one line of a cart whatever its version ([`remove_cart_line`]); `false` when it was
/// not there (nothing written).
pub async fn delete_cart_line(table: &Table, cart: &Id, product: &Id) -> Result<bool, StoreError> {
    Ok(remove_cart_line(table, cart, product, None).await? == CartLineRemoved::Removed)
}

// ---------------------------------------------------------------------------------------------
// C4 by status and O10, in either key design

/// The key design of C4 by status and O10 in a deployment (the functions' `ORDER_STATUS_KEYS`,
/// the template parameter `OrderStatusKeys`, whose conditions create the indexes to match):
/// GSI1's concatenated `<STATUS>#<orderId>` keys, what the seeds teach and what existing tables
/// have (the default), or the multi-attribute indexes `CustomerOrdersByStatus` and
/// `RepOrdersByStatus`, and the two steps of a move from the first to the second
/// (docs/key-designs.md#moving-an-index-online).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StatusKeys {
    /// GSI1 only: writers write GSI1's keys on headers and summaries, readers read GSI1.
    #[default]
    Concatenated,
    /// The table gains `CustomerOrdersByStatus` (CloudFormation adds one index per update);
    /// readers and writers as [`StatusKeys::Concatenated`].
    Moving1,
    /// The table gains `RepOrdersByStatus`; writers still write GSI1's keys, readers read an
    /// index once they have seen it `ACTIVE` (the only design that asks DescribeTable), GSI1
    /// until then.
    Moving2,
    /// Both indexes, and no GSI1 keys on headers and summaries: readers read the indexes.
    MultiAttribute,
}

/// What serves one page of C4 by status or O10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// GSI1's `<STATUS>#<orderId>` keys.
    Concatenated,
    /// `CustomerOrdersByStatus` or `RepOrdersByStatus`.
    MultiAttribute,
}

impl Design {
    pub const ALL: [Design; 2] = [Design::Concatenated, Design::MultiAttribute];
}

/// `ORDER_STATUS_SHARDS`: O5's GSI2 shards, a setting of the functions that place orders on them
/// or read them: read and checked at start-up, the default count in tests and tools.
pub const ORDER_STATUS_SHARDS: Setting = Setting {
    variable: "ORDER_STATUS_SHARDS",
    default: || k::DEFAULT_ORDER_STATUS_SHARDS.to_string(),
    check: |v| store::shard_count(ORDER_STATUS_SHARDS.variable, v).map(|_| ()),
};

/// O5's GSI2 shards `deps` read at start-up ([`ORDER_STATUS_SHARDS`]); an error if the function
/// did not declare them.
pub fn order_shards(deps: &Deps) -> Result<u32, StoreError> {
    store::shard_count(
        ORDER_STATUS_SHARDS.variable,
        deps.setting(&ORDER_STATUS_SHARDS)?,
    )
}

/// `ORDER_STATUS_KEYS`: the key design of C4 by status and O10 ([`StatusKeys`]), a setting of
/// the functions that read those lists or write the orders in them: read and checked at
/// start-up (a missing or unknown design stops the function), `concatenated` in tests and
/// tools unless they say otherwise.
pub const ORDER_STATUS_KEYS: Setting = Setting {
    variable: "ORDER_STATUS_KEYS",
    default: || StatusKeys::default().as_str().to_owned(),
    check: |v| StatusKeys::parse(v).map(|_| ()),
};

impl StatusKeys {
    /// The template parameter whose value the functions' `ORDER_STATUS_KEYS` is.
    pub const PARAMETER: &'static str = "OrderStatusKeys";

    pub const ALL: [StatusKeys; 4] = [
        StatusKeys::Concatenated,
        StatusKeys::Moving1,
        StatusKeys::Moving2,
        StatusKeys::MultiAttribute,
    ];

    /// The design `deps` read at start-up ([`ORDER_STATUS_KEYS`]); an error if the function did
    /// not declare it.
    pub fn of(deps: &Deps) -> Result<StatusKeys, StoreError> {
        StatusKeys::parse(deps.setting(&ORDER_STATUS_KEYS)?)
    }

    /// The design of the process's `ORDER_STATUS_KEYS` (the default when unset): how the seed
    /// loaders write orders into the local stack's table, whose `OrderStatusKeys` the Makefile
    /// passes them.
    pub fn from_env() -> Result<StatusKeys, StoreError> {
        match std::env::var(ORDER_STATUS_KEYS.variable) {
            Ok(v) => StatusKeys::parse(&v),
            Err(_) => Ok(StatusKeys::default()),
        }
    }

    /// The deployment reading only `design`: what a test or a tool asks to read one design.
    pub fn only(design: Design) -> StatusKeys {
        match design {
            Design::Concatenated => StatusKeys::Concatenated,
            Design::MultiAttribute => StatusKeys::MultiAttribute,
        }
    }

    /// The template parameter's value.
    pub fn as_str(self) -> &'static str {
        match self {
            StatusKeys::Concatenated => "concatenated",
            StatusKeys::Moving1 => "moving-1",
            StatusKeys::Moving2 => "moving-2",
            StatusKeys::MultiAttribute => "multi-attribute",
        }
    }

    pub fn parse(s: &str) -> Result<StatusKeys, StoreError> {
        StatusKeys::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<_> = StatusKeys::ALL.iter().map(|k| k.as_str()).collect();
                StoreError::Config(format!(
                    "ORDER_STATUS_KEYS must be one of {}, not {s:?}",
                    all.join(", ")
                ))
            })
    }

    /// The multi-attribute indexes a table of this design has: what the template's conditions
    /// create for the parameter's value (a contract test holds the two equal).
    pub fn indexes(self) -> &'static [&'static str] {
        use keys::{
            Index,
            indexes::{CustomerOrdersByStatus, RepOrdersByStatus},
        };
        const BOTH: [&str; 2] = [CustomerOrdersByStatus::NAME, RepOrdersByStatus::NAME];
        match self {
            StatusKeys::Concatenated => &[],
            StatusKeys::Moving1 => &BOTH[..1],
            StatusKeys::Moving2 | StatusKeys::MultiAttribute => &BOTH,
        }
    }

    /// Whether writers give order headers and summaries GSI1's status keys: in every design
    /// until the move's last step, so that no reader of GSI1 misses an order.
    pub fn writes_gsi1(self) -> bool {
        self != StatusKeys::MultiAttribute
    }
}

/// One page of orders by status, and the design that served it.
#[derive(Debug)]
pub struct StatusPage {
    pub items: Vec<Item>,
    /// DynamoDB's `LastEvaluatedKey`: a position either design continues from.
    pub last_key: Option<Item>,
    pub served_by: Design,
}

/// C4 by status, or O10 for one status: the same orders in both key designs, newest first. A
/// position (a page's `LastEvaluatedKey`) is the order's table key and id under the query's
/// owner and status, so a walk begun in one design continues in the other: a reader switched
/// between two pages of a client's walk, or falling back, neither fails nor skips.
#[derive(Debug, Clone)]
pub struct ByStatus {
    status: OrderStatus,
    concatenated: KeyCondition<Gsi1>,
    multi: IndexCondition,
}

impl ByStatus {
    /// C4 by status: the customer's order headers in `status` placed on the dates `from..=to`.
    pub fn customer(
        customer: &Id,
        status: OrderStatus,
        from: Date,
        to: Date,
    ) -> Result<ByStatus, KeyError> {
        Ok(ByStatus {
            status,
            concatenated: k::customer_orders_in_status(customer, status, from, to)?,
            multi: k::customer_orders_by_status(customer, status, from, to)?,
        })
    }

    /// O10, one status: the rep's order summaries in `status` placed on the dates `from..=to`.
    pub fn rep(rep: &Id, status: OrderStatus, from: Date, to: Date) -> Result<ByStatus, KeyError> {
        Ok(ByStatus {
            status,
            concatenated: k::rep_orders_in_status(rep, status, from, to)?,
            multi: k::rep_orders_by_status(rep, status, from, to)?,
        })
    }

    /// The multi-attribute condition (the store-level query of the design the API does not use).
    pub fn multi(&self) -> &IndexCondition {
        &self.multi
    }

    pub fn concatenated(&self) -> &KeyCondition<Gsi1> {
        &self.concatenated
    }

    /// The `ExclusiveStartKey` in `design` of a position written by either design.
    fn start_in(&self, design: Design, position: &Item) -> Result<Item, StoreError> {
        let text = |name: &str| {
            position
                .get(name)
                .and_then(|v| v.as_s().ok())
                .map(String::as_str)
        };
        let order = text(Order::ORDER_ID)
            .or_else(|| text(keys::attr::GSI1SK).and_then(|sk| sk.rsplit_once('#').map(|p| p.1)))
            .and_then(|id| OrderId::parse(id).ok())
            .ok_or_else(|| StoreError::Corrupt("a position without its order".into()))?;
        let mut start: Item = [keys::attr::PK, keys::attr::SK]
            .into_iter()
            .filter_map(|n| position.get(n).map(|v| (n.to_owned(), v.clone())))
            .collect();
        match design {
            Design::Concatenated => {
                start.insert(keys::attr::GSI1PK.into(), s(self.concatenated.pk()));
                start.insert(
                    keys::attr::GSI1SK.into(),
                    s(k::status_sort_key(self.status, order)),
                );
            }
            Design::MultiAttribute => {
                for (name, value) in self.multi.partition() {
                    start.insert((*name).to_owned(), model::key_value(value));
                }
                start.insert(Order::STATUS.into(), s(self.status.as_str()));
                start.insert(Order::ORDER_ID.into(), s(order.to_string()));
            }
        }
        Ok(start)
    }

    /// One page, newest first: at most `limit` orders after `start` (a position of either
    /// design), from the design `keys` reads ([`Design::of`]), within the read budget at
    /// [`LARGEST_ORDER_BYTES`] an order.
    pub async fn page(
        &self,
        table: &Table,
        keys: StatusKeys,
        limit: u32,
        start: Option<&Item>,
    ) -> Result<StatusPage, StoreError> {
        let design = Design::of(keys, table, self.multi.index().name).await;
        let page = match design {
            Design::MultiAttribute => {
                let query = table.query(self.multi.clone()).backwards();
                let from = start.map(|p| self.start_in(design, p)).transpose()?;
                store::read_within(query, limit, from, ORDER_PAGE).await?
            }
            Design::Concatenated => {
                let query = table.query(self.concatenated.clone()).backwards();
                let from = start.map(|p| self.start_in(design, p)).transpose()?;
                store::read_within(query, limit, from, ORDER_PAGE).await?
            }
        };
        Ok(StatusPage {
            items: page.items,
            last_key: page.last_key,
            served_by: design,
        })
    }
}

/// O10 without a status: the rep's orders in every status, one stream per status merged newest
/// first by order id ([`store::merge`]), in either key design; a position (every stream's) is
/// carried across designs as [`ByStatus`] carries one.
#[derive(Debug, Clone)]
pub struct RepOrders(Vec<ByStatus>);

impl RepOrders {
    pub fn new(rep: &Id, from: Date, to: Date) -> Result<RepOrders, KeyError> {
        OrderStatus::ALL
            .into_iter()
            .map(|status| ByStatus::rep(rep, status, from, to))
            .collect::<Result<_, _>>()
            .map(RepOrders)
    }

    /// Every stream's position, from `start` (a merged position of either design), in `design`.
    fn positions(&self, design: Design, start: Option<&Item>) -> Result<Positions, StoreError> {
        let Some(flat) = start else {
            return Ok(Positions::start(self.0.len()));
        };
        let positions = Positions::from_item(flat, self.0.len())
            .ok_or_else(|| StoreError::Corrupt("a merged position of other streams".into()))?;
        positions
            .0
            .into_iter()
            .zip(&self.0)
            .map(|(p, stream)| match p {
                Position::After(key) => stream.start_in(design, &key).map(Position::After),
                other => Ok(other),
            })
            .collect::<Result<_, _>>()
            .map(Positions)
    }

    /// One page, newest first, from the design `keys` reads (as [`ByStatus::page`] chooses);
    /// `last_key` is every stream's position, flat ([`Positions::to_item`]).
    pub async fn page(
        &self,
        table: &Table,
        keys: StatusKeys,
        limit: u32,
        start: Option<&Item>,
    ) -> Result<StatusPage, StoreError> {
        let design = Design::of(keys, table, self.0[0].multi.index().name).await;
        let from = self.positions(design, start)?;
        // Merged by order id, newest first, within a page's budget at the largest order.
        async fn merged<C: store::merge::Stream>(
            table: &Table,
            streams: Vec<C>,
            from: Positions,
            limit: u32,
        ) -> Result<store::merge::MergedPage, StoreError> {
            let by = MergeKey::Attribute(Order::ORDER_ID);
            let budget = Some(ORDER_PAGE);
            merged_page_by(
                table,
                streams,
                from,
                limit,
                Direction::Descending,
                by,
                budget,
            )
            .await
        }
        let merged = match design {
            Design::MultiAttribute => {
                let streams = self.0.iter().map(|s| s.multi.clone()).collect();
                merged(table, streams, from, limit).await?
            }
            Design::Concatenated => {
                let streams = self.0.iter().map(|s| s.concatenated.clone()).collect();
                merged(table, streams, from, limit).await?
            }
        };
        Ok(StatusPage {
            items: merged.items,
            last_key: merged.next.map(|p| p.to_item()),
            served_by: design,
        })
    }
}

/// C4 by status or O10 with a status ([`ByStatus`]), or O10 without one ([`RepOrders`]).
#[derive(Debug, Clone)]
pub enum StatusRead {
    One(ByStatus),
    Every(RepOrders),
}

impl StatusRead {
    /// One page ([`ByStatus::page`], [`RepOrders::page`]).
    pub async fn page(
        &self,
        table: &Table,
        keys: StatusKeys,
        limit: u32,
        start: Option<&Item>,
    ) -> Result<StatusPage, StoreError> {
        match self {
            StatusRead::One(r) => r.page(table, keys, limit, start).await,
            StatusRead::Every(r) => r.page(table, keys, limit, start).await,
        }
    }
}

/// How long a reader trusts an index's not being `ACTIVE` before it asks DynamoDB again.
const INDEX_RECHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// What this process knows of a multi-attribute index, per table.
#[derive(Debug, Clone, Copy)]
enum Seen {
    Active,
    /// Not `ACTIVE` when asked; ask again from then on.
    NotBefore(std::time::Instant),
}

static INDEXES_SEEN: std::sync::LazyLock<
    std::sync::Mutex<std::collections::BTreeMap<(String, &'static str), Seen>>,
> = std::sync::LazyLock::new(Default::default);

impl Design {
    /// The design a reader of `keys` reads `index`'s list from: the one it names, except
    /// [`StatusKeys::Moving2`]'s, which reads the index once this process has seen it `ACTIVE`
    /// ([`index_active`]) and GSI1 until then. No other design asks DynamoDB anything.
    pub async fn of(keys: StatusKeys, table: &Table, index: &'static str) -> Design {
        match keys {
            StatusKeys::Concatenated | StatusKeys::Moving1 => Design::Concatenated,
            StatusKeys::Moving2 if index_active(table, index).await => Design::MultiAttribute,
            StatusKeys::Moving2 => Design::Concatenated,
            StatusKeys::MultiAttribute => Design::MultiAttribute,
        }
    }
}

/// Whether `index` of `table` is `ACTIVE`: one DescribeTable per process (a Lambda's container)
/// once it is, one at most every [`INDEX_RECHECK`] until then; only during a move
/// ([`StatusKeys::Moving2`]: CloudFormation creates an index without waiting for its
/// backfill). DynamoDB refuses a Query of an index it is still backfilling, and DynamoDB Local
/// answers it from the part it has filled (a partial list: seen on the large seed), so a reader
/// does not wait for a refusal: it reads an index only once it has seen it `ACTIVE`. A
/// DescribeTable that fails counts as not `ACTIVE`.
async fn index_active(table: &Table, index: &'static str) -> bool {
    let key = (table.name().to_owned(), index);
    let seen = INDEXES_SEEN.lock().ok().and_then(|s| s.get(&key).copied());
    match seen {
        Some(Seen::Active) => return true,
        Some(Seen::NotBefore(t)) if std::time::Instant::now() < t => return false,
        _ => {}
    }
    let described = store::deadline::bounded(
        table
            .client()
            .describe_table()
            .table_name(table.name())
            .send(),
    )
    .await;
    let active = described.ok().and_then(|d| d.table).is_some_and(|t| {
        t.global_secondary_indexes().iter().any(|i| {
            i.index_name() == Some(index)
                && i.index_status() == Some(&store::aws_sdk_dynamodb::types::IndexStatus::Active)
        })
    });
    let now = if active {
        Seen::Active
    } else {
        Seen::NotBefore(std::time::Instant::now() + INDEX_RECHECK)
    };
    if let Ok(mut s) = INDEXES_SEEN.lock() {
        s.insert(key, now);
    }
    active
}

#[cfg(test)]
mod tests {
    //! DynamoDB Local never raises TransactionConflict, so the retry path is tested with the SDK's
    //! own mocking (aws-smithy-mocks): the client below answers from rules, not from a database.
    use super::*;
    use crate::fixtures::place_order;
    use aws_sdk_dynamodb::{
        Client,
        operation::{get_item::GetItemOutput, transact_write_items::TransactWriteItemsOutput},
    };
    use aws_smithy_mocks::{Rule, mock, mock_client};

    /// The largest customer (64-character ids, a name and an email of the most characters of 4
    /// bytes, the largest totals, a rep) with the marks of `MARKED_LANES` stream shards is at most
    /// `LARGEST_CUSTOMER_BYTES`, within 1 KB of it; the largest `RepSales` with its ranking key at
    /// most `LARGEST_REP_SALES_BYTES`, within half of it.
    #[test]
    fn the_largest_customer_and_rep_sales_are_within_their_bounds() {
        let long = |c: &str| Id::parse("id", &c.repeat(keys::MAX_ID_LEN)).unwrap();
        let widest = api::function::widest_text;
        let customer = Customer {
            customer_id: long("c"),
            name: widest(Customer::MAX_NAME_CHARS),
            email: widest(Customer::MAX_EMAIL_CHARS),
            created_at: keys::Timestamp::from_ms(1_795_860_000_000).unwrap(),
            updated_at: keys::Timestamp::from_ms(1_795_860_000_000).unwrap(),
            order_count: i64::MAX.into(),
            lifetime_value: i64::MAX.into(),
            account_rep_id: Some(long("r")),
        };
        let mut item = model::to_item(&customer).unwrap();
        item.extend(store::aggregate::sample_marks(MARKED_LANES));
        let size = testkit::item_size(&item);
        let largest = LARGEST_CUSTOMER_BYTES as usize;
        assert!(size <= largest && size + 1024 > largest, "{size} bytes");

        let period = keys::Quarter::parse("2026-Q4").unwrap();
        let sales = model::commerce::RepSales {
            period,
            rep_id: long("r"),
            total: i64::MAX.into(),
            order_count: i64::MAX.into(),
        };
        let mut item = model::to_item(&sales).unwrap();
        let ranked = k::rep_ranking_index(period, i64::MAX as u64, &long("r")).unwrap();
        item.extend(model::key_item(&ranked));
        let size = testkit::item_size(&item);
        let largest = LARGEST_REP_SALES_BYTES as usize;
        assert!(size <= largest && size * 2 > largest, "{size} bytes");
    }

    /// GetItem answers: the customer (without a rep) is there.
    fn customer_found() -> Rule {
        mock!(Client::get_item).then_output(customer_found_item)
    }

    fn customer_found_item() -> GetItemOutput {
        {
            let customer = Customer {
                customer_id: Id::parse("c", "1").unwrap(),
                name: "Ann".into(),
                email: "ann@example.com".into(),
                created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
                updated_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
                order_count: Default::default(),
                lifetime_value: Default::default(),
                account_rep_id: None,
            };
            GetItemOutput::builder()
                .set_item(Some(model::to_item(&customer).unwrap()))
                .build()
        }
    }

    use store::TRANSACTION_ATTEMPTS;
    use testkit::cancelled;

    fn order() -> NewOrder {
        NewOrder {
            customer: Id::parse("c", "1").unwrap(),
            order_id: keys::SortableId::new(),
            created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            lines: vec![(k::Sku::new(1).unwrap(), 1, 1)],
            design: Default::default(),
        }
    }

    #[tokio::test]
    async fn a_transaction_cancelled_by_conflicts_is_retried_until_it_goes_through() {
        let conflict = ["None", "None", "TransactionConflict", "None"];
        let rule = mock!(Client::transact_write_items)
            .sequence()
            .error(move || cancelled(&conflict))
            .times(2)
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let found = customer_found();
        let table = mocked(&[&found, &rule]);
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::Placed
        );
        assert_eq!(rule.num_calls(), 3);
        assert_eq!(found.num_calls(), 1, "the customer is read once");
    }

    /// A table whose client answers from `rules` (any order).
    fn mocked(rules: &[&Rule]) -> Table {
        Table::new(
            mock_client!(
                aws_sdk_dynamodb,
                aws_smithy_mocks::RuleMode::MatchAny,
                rules
            ),
            "t",
        )
    }

    /// Every token the rule's requests carried, in order.
    type Tokens = std::sync::Arc<std::sync::Mutex<Vec<Option<String>>>>;

    fn recording(
        tokens: &Tokens,
    ) -> impl Fn(&aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput) -> bool
    + Send
    + Sync
    + 'static {
        let tokens = tokens.clone();
        move |input| {
            tokens
                .lock()
                .unwrap()
                .push(input.client_request_token().map(str::to_owned));
            true
        }
    }

    /// A commit whose answer was lost (here a 500 after it; on AWS a timeout too) is sent again
    /// with the same ClientRequestToken, so DynamoDB answers it with success instead of
    /// cancelling a second application on the order's `attribute_not_exists`: neither a 500 nor
    /// a second order. A cancelled attempt wrote nothing: its successor has a token of its own.
    #[tokio::test]
    async fn an_attempt_whose_answer_was_lost_is_sent_again_with_the_same_token() {
        use aws_sdk_dynamodb::{
            operation::transact_write_items::TransactWriteItemsError,
            types::error::InternalServerError,
        };
        let tokens = Tokens::default();
        let rule = mock!(Client::transact_write_items)
            .match_requests(recording(&tokens))
            .sequence()
            .error(|| {
                TransactWriteItemsError::InternalServerError(
                    InternalServerError::builder()
                        .message("answer lost")
                        .build(),
                )
            })
            .error(|| cancelled(&["None", "None", "TransactionConflict", "None"]))
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let found = customer_found();
        let table = mocked(&[&found, &rule]);
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::Placed
        );
        let tokens = tokens.lock().unwrap().clone();
        assert_eq!(tokens.len(), 3, "{tokens:?}");
        assert!(
            tokens
                .iter()
                .all(|t| t.as_ref().is_some_and(|t| (1..=36).contains(&t.len())))
        );
        assert_eq!(
            tokens[0], tokens[1],
            "the lost answer's retry: the same token"
        );
        assert_ne!(tokens[1], tokens[2], "after a cancellation: a new request");

        // Under an idempotency key the token is derived from it (and the order): the same
        // inputs, the same token.
        let idem = IdempotencyKey {
            key: Id::parse("k", "key-1").unwrap(),
            request_hash: "h".into(),
            response: "{}".into(),
            expires_at: 0,
        };
        let order = order();
        let mut seen = Vec::new();
        for _ in 0..2 {
            let tokens = Tokens::default();
            let rule = mock!(Client::transact_write_items)
                .match_requests(recording(&tokens))
                .then_output(|| TransactWriteItemsOutput::builder().build());
            let found = customer_found();
            let table = mocked(&[&found, &rule]);
            place_order(&table, &order, Some(&idem)).await.unwrap();
            seen.push(tokens.lock().unwrap()[0].clone().unwrap());
        }
        assert_eq!(seen[0], seen[1]);
    }

    /// BatchGetItem answers: product 1 at `cents` USD.
    fn product_at(cents: i64) -> aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput {
        let product = model::commerce::Product {
            sku: k::Sku::new(1).unwrap(),
            name: "Tea".into(),
            description: None,
            created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            updated_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            price: Some(cents),
            currency: Some("USD".into()),
            total_inventory: Default::default(),
        };
        aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput::builder()
            .responses("t", vec![model::to_item(&product).unwrap()])
            .build()
    }

    fn request() -> OrderRequest {
        OrderRequest {
            customer: Id::parse("c", "1").unwrap(),
            order_id: keys::SortableId::new(),
            created_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            items: vec![(k::Sku::new(1).unwrap(), 2)],
            design: Default::default(),
        }
    }

    /// A price changed between the order's read and its write fails the product's check in the
    /// order's transaction (DynamoDB Local cannot interleave a write there, so a mock answers):
    /// nothing is written, the order is priced again at the new price; a price that keeps
    /// changing is `PriceChanged`, never an order at a price the catalogue no longer has.
    #[tokio::test]
    async fn a_price_changed_under_the_order_is_read_again_or_refused() {
        // customer check, summary, header, the line, then the line's price check.
        let price_check_failed = ["None", "None", "None", "None", "ConditionalCheckFailed"];
        let tx = mock!(Client::transact_write_items)
            .sequence()
            .error(move || cancelled(&price_check_failed))
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let prices = mock!(Client::batch_get_item)
            .sequence()
            .output(|| product_at(100))
            .output(|| product_at(120))
            .build();
        let found = customer_found();
        let table = mocked(&[&found, &prices, &tx]);
        let (outcome, priced) = place_catalogue_order(&table, &request(), None)
            .await
            .unwrap();
        assert_eq!(outcome, PlaceOutcome::Placed);
        let priced = priced.unwrap();
        assert_eq!(priced.order.lines[0].2, 120, "the price read again");
        assert_eq!(priced.order.total(), 240);
        assert_eq!((tx.num_calls(), prices.num_calls()), (2, 2));

        let tx =
            mock!(Client::transact_write_items).then_error(move || cancelled(&price_check_failed));
        let prices = mock!(Client::batch_get_item).then_output(|| product_at(100));
        let found = customer_found();
        let table = mocked(&[&found, &prices, &tx]);
        let (outcome, priced) = place_catalogue_order(&table, &request(), None)
            .await
            .unwrap();
        assert_eq!(outcome, PlaceOutcome::PriceChanged(k::Sku::new(1).unwrap()));
        assert!(priced.is_none());
        assert_eq!(tx.num_calls(), PRICE_ATTEMPTS as usize);
    }

    #[tokio::test]
    async fn persistent_conflict_is_a_busy_answer_and_a_failed_condition_is_not_retried() {
        let rule = mock!(Client::transact_write_items)
            .then_error(|| cancelled(&["None", "TransactionConflict", "None", "None"]));
        let found = customer_found();
        let table = mocked(&[&found, &rule]);
        assert!(matches!(
            place_order(&table, &order(), None).await,
            Err(StoreError::Throttled(_))
        ));
        assert_eq!(rule.num_calls(), TRANSACTION_ATTEMPTS as usize);

        // The customer's condition failed (gone, or its rep changed): it is read again, and
        // found gone this time; the transaction is not sent again.
        let rule = mock!(Client::transact_write_items)
            .then_error(|| cancelled(&["ConditionalCheckFailed", "None", "None", "None"]));
        let found_then_gone = mock!(Client::get_item)
            .sequence()
            .output(customer_found_item)
            .output(|| GetItemOutput::builder().build())
            .build();
        let table = mocked(&[&found_then_gone, &rule]);
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::CustomerNotFound
        );
        assert_eq!(rule.num_calls(), 1);
        assert_eq!(found_then_gone.num_calls(), 2);
    }
}
