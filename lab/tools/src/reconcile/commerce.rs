//! Commerce's derived values: customers' order counts and lifetime values, products' sales and
//! total inventories, account reps' quarterly totals and their ranking keys, order statuses and
//! the status keys that list them (GSI1, GSI2; a header's GSI2 partition is the shard it records).

use std::collections::{BTreeMap, BTreeSet};

use keys::{
    Id, Quarter, Shard, SortableId, Timestamp,
    attr::{GSI1PK, GSI1SK, GSI2PK, GSI2SK},
    commerce::{self as ck, OrderStatus},
};
use model::{
    Entity, Item,
    commerce::{
        Customer, Inventory, Order, OrderHeader, OrderLine, OrderSummary, Product, ProductSales,
        RepSales, TrackingEvent,
    },
    derived::DailyStats,
};
use store::{Condition, StoreError, Update};

use super::{Drifted, Tally, add, day, n, s, shard_value};

/// The attributes of commerce's derived sums.
pub(super) const ATTRIBUTES: &[&str] = &[
    Customer::ORDER_COUNT,
    Customer::LIFETIME_VALUE,
    ProductSales::UNITS_SOLD,
    ProductSales::REVENUE,
    Product::TOTAL_INVENTORY,
    RepSales::TOTAL,
    RepSales::ORDER_COUNT,
];

/// The name of a rep's value in a period: `rep 2026-Q4/E1 Total`.
fn rep_value(period: &str, rep: &str, attr: &str) -> String {
    format!("rep {period}/{rep} {attr}")
}

/// The quarter an order was placed in, from its `CreatedAt`.
fn quarter_of(item: &Item) -> String {
    Timestamp::parse(s(item, Order::CREATED_AT))
        .map(|t| Quarter::of(t.date()).to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// The ranking sort key a rep's total must have (a total no key can hold shows as such).
fn ranking_key(period: &str, rep: &str, total: i64) -> String {
    let key = (|| {
        let period = Quarter::parse(period).ok()?;
        let rep = keys::Id::parse("rep", rep).ok()?;
        ck::rep_ranking_index(period, u64::try_from(total).ok()?, &rep).ok()
    })();
    key.map_or_else(
        || format!("no key for a total of {total}"),
        |k| k.sk().to_owned(),
    )
}

/// Whether this deployment's writers give order headers and summaries GSI1's status keys: every
/// design but the multi-attribute one (`commerce::StatusKeys::writes_gsi1`), as the functions
/// read it from `ORDER_STATUS_KEYS` (`make reconcile` passes the stack's).
fn gsi1_written() -> bool {
    static WRITTEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WRITTEN.get_or_init(|| {
        commerce::data::StatusKeys::from_env().map_or(true, commerce::data::StatusKeys::writes_gsi1)
    })
}

/// Whether `item` (an order's header or summary) must stand in GSI1: where the design writes its
/// keys, and wherever it holds one of them (half a key pair puts it in no index at all).
fn in_gsi1(item: &Item) -> bool {
    gsi1_written() || item.contains_key(GSI1PK) || item.contains_key(GSI1SK)
}

/// The GSI1 partition an order's header (C4 by status: its customer's) or summary (O10: its
/// rep's) stands in, made from the item's own ids (a partition does not depend on the status).
fn gsi1_partition(item: &Item, header: bool) -> String {
    let key = (|| {
        let order = SortableId::parse(s(item, Order::ORDER_ID)).ok()?;
        let key = if header {
            let customer = Id::parse("customerId", s(item, Order::CUSTOMER_ID)).ok()?;
            ck::customer_order_status_index(&customer, order, OrderStatus::Open)
        } else {
            let rep = Id::parse("accountRepId", s(item, Order::ACCOUNT_REP_ID)).ok()?;
            ck::rep_order_index(&rep, order, OrderStatus::Open)
        };
        Some(key.pk().to_owned())
    })();
    key.unwrap_or_else(|| "no partition for an order without its ids".to_owned())
}

/// Records an order item's GSI1 keys as found, and the partition it must stand in: its sort key
/// follows the order's expected status once every item is read ([`Orders::finish`]).
fn read_gsi1(tally: &mut Tally, item: &Item, order: &str, part: &str) {
    let header = part == "header";
    let name = format!("order {order} {part} {GSI1PK}");
    tally
        .expected_text
        .insert(name.clone(), gsi1_partition(item, header));
    tally.stored_text.insert(name, s(item, GSI1PK).to_owned());
    let name = format!("order {order} {part} {GSI1SK}");
    tally
        .stored_text
        .insert(name.clone(), s(item, GSI1SK).to_owned());
    tally.orders.status_keys.insert(name);
}

/// The `<STATUS>#<orderId>` key an order in `status` must have in its status indexes.
fn status_key(order: &str, status: &str) -> String {
    match (SortableId::parse(order), status.parse::<OrderStatus>()) {
        (Ok(order), Ok(status)) => ck::status_sort_key(status, order),
        _ => format!("no key for order {order:?} in {status:?}"),
    }
}

/// The orders' state while the table is read: what a status and its keys are recomputed from
/// once everything is read. Per order, never per item: its newest event, its customer, whether it
/// is a sale.
#[derive(Default)]
pub(super) struct Orders {
    /// order id -> (newest event id, its status)
    newest: BTreeMap<String, (String, String)>,
    /// order id -> its customer, from its summary.
    customers: BTreeMap<String, String>,
    /// The names of the status keys stored ("order <id> header GSI1SK").
    status_keys: BTreeSet<String>,
    /// Orders whose summary says they are no sale: their lines leave the products' sums.
    not_sold: BTreeSet<String>,
}

/// What a correction needs of the orders once a pass is done.
#[derive(Default)]
pub(super) struct Found {
    newest: BTreeMap<String, (String, String)>,
    customers: BTreeMap<String, String>,
}

impl Orders {
    /// The orders whose lines leave the products' sums: to be read once the scan is done.
    pub(super) fn not_sold(&self) -> impl Iterator<Item = SortableId> + '_ {
        self.not_sold
            .iter()
            .filter_map(|o| SortableId::parse(o).ok())
    }

    /// Once every item is read, and `not_sold_lines` holds the lines of the orders that are no
    /// sale: those lines out of the products' sums, the statuses their newest events give, and
    /// the keys that follow statuses and totals.
    pub(super) fn finish(self, tally: &mut Tally, not_sold_lines: &[Item]) -> Found {
        for item in not_sold_lines {
            if self.not_sold.contains(s(item, OrderLine::ORDER_ID)) {
                add_line(&mut tally.expected, item, -1);
            }
        }
        let (expected, expected_status) = (&mut tally.expected, &mut tally.expected_text);
        for (order, (_, status)) in &self.newest {
            for part in ["header", "summary"] {
                expected_status.insert(
                    format!("order {order} {part} {}", Order::STATUS),
                    status.clone(),
                );
            }
        }
        // Every status key follows its order's expected status.
        for name in self.status_keys {
            let mut parts = name.splitn(3, ' ').skip(1);
            let (order, part) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let part = part.split(' ').next().unwrap_or("");
            let status = expected_status
                .get(&format!("order {order} {part} {}", Order::STATUS))
                .cloned()
                .unwrap_or_default();
            let key = status_key(order, &status);
            expected_status.insert(name, key);
        }
        // Every rep's ranking key follows its expected total.
        let reps: Vec<String> = expected
            .keys()
            .chain(tally.stored.keys())
            .filter_map(|name| {
                let rest = name.strip_prefix("rep ")?;
                Some(
                    rest.strip_suffix(&format!(" {}", RepSales::TOTAL))?
                        .to_owned(),
                )
            })
            .collect();
        for period_rep in reps {
            let (period, rep) = period_rep.split_once('/').unwrap_or_default();
            let total = expected
                .get(&rep_value(period, rep, RepSales::TOTAL))
                .copied()
                .unwrap_or(0);
            expected_status.insert(
                rep_value(period, rep, GSI1SK),
                ranking_key(period, rep, total),
            );
        }
        Found {
            newest: self.newest,
            customers: self.customers,
        }
    }
}

/// The lines among `items` of the orders that are no sale (tests: what the pass queries).
#[cfg(test)]
pub(super) fn lines_of(items: &[Item], orders: &Orders) -> Vec<Item> {
    items
        .iter()
        .filter(|i| {
            model::type_of(i) == Some(OrderLine::TYPE)
                && orders.not_sold.contains(s(i, OrderLine::ORDER_ID))
        })
        .cloned()
        .collect()
}

/// A line's units and revenue, `sign` times, onto its product's expected sums.
fn add_line(expected: &mut BTreeMap<String, i64>, item: &Item, sign: i64) {
    let sku = n(item, OrderLine::SKU);
    let quantity = n(item, OrderLine::QUANTITY);
    let revenue = quantity * n(item, OrderLine::UNIT_PRICE);
    let units = format!("product {sku} {}", ProductSales::UNITS_SOLD);
    add(expected, units, sign * quantity);
    let revenue_name = format!("product {sku} {}", ProductSales::REVENUE);
    add(expected, revenue_name, sign * revenue);
}

/// Takes in one item of the scan.
pub(super) fn read(tally: &mut Tally, item: &Item) {
    let open = || OrderStatus::Open.to_string();
    match model::type_of(item) {
        Some(Customer::TYPE) => {
            let id = s(item, Customer::CUSTOMER_ID);
            for attr in [Customer::ORDER_COUNT, Customer::LIFETIME_VALUE] {
                let name = format!("customer {id} {attr}");
                add(&mut tally.expected, name.clone(), 0);
                add(&mut tally.stored, name.clone(), n(item, attr));
                tally.hold(name, item, attr, 0);
            }
        }
        Some(OrderSummary::TYPE) => {
            let order = s(item, Order::ORDER_ID);
            let name = format!("order {order} summary {}", Order::STATUS);
            tally.expected_text.entry(name.clone()).or_insert_with(open);
            let status = s(item, Order::STATUS);
            tally.stored_text.insert(name, status.to_owned());
            let customer = s(item, Order::CUSTOMER_ID);
            tally
                .orders
                .customers
                .insert(order.to_owned(), customer.to_owned());
            // Placed under a rep: listed in the rep's GSI1.
            let rep = s(item, Order::ACCOUNT_REP_ID);
            if !rep.is_empty() && in_gsi1(item) {
                read_gsi1(tally, item, order, "summary");
            }
            // An order counts in every sum while it is a sale, by its status as stored: what the
            // stream derives from it. A status behind its events is drift of its own, whose
            // correction moves the sums through the stream like any status write.
            if !status
                .parse::<OrderStatus>()
                .map_or(true, model::commerce::is_sale)
            {
                tally.orders.not_sold.insert(order.to_owned());
                return;
            }
            let total = n(item, Order::TOTAL);
            let day = day(item, Order::CREATED_AT);
            let mut sums = vec![
                (format!("customer {customer} {}", Customer::ORDER_COUNT), 1),
                (
                    format!("customer {customer} {}", Customer::LIFETIME_VALUE),
                    total,
                ),
                (format!("day {day} {}", DailyStats::ORDERS), 1),
                (format!("day {day} {}", DailyStats::REVENUE), total),
            ];
            if !rep.is_empty() {
                let period = quarter_of(item);
                sums.push((rep_value(&period, rep, RepSales::TOTAL), total));
                sums.push((rep_value(&period, rep, RepSales::ORDER_COUNT), 1));
            }
            for (name, value) in sums {
                add(&mut tally.expected, name, value);
            }
        }
        Some(OrderHeader::TYPE) => {
            let order = s(item, Order::ORDER_ID);
            let name = format!("order {order} header {}", Order::STATUS);
            tally.expected_text.entry(name.clone()).or_insert_with(open);
            tally
                .stored_text
                .insert(name, s(item, Order::STATUS).to_owned());
            let name = format!("order {order} header {GSI2SK}");
            tally
                .stored_text
                .insert(name.clone(), s(item, GSI2SK).to_owned());
            tally.orders.status_keys.insert(name);
            if in_gsi1(item) {
                read_gsi1(tally, item, order, "header");
            }
            // Its O5 shard: the one it records (or, recorded by none, the default count's).
            let name = format!("order {order} header {GSI2PK}");
            let shard = model::from_item::<OrderHeader>(item.clone())
                .ok()
                .and_then(|h| h.gsi2())
                .map_or_else(|| "an unreadable header".to_owned(), |k| k.pk().to_owned());
            tally.expected_text.insert(name.clone(), shard);
            tally.stored_text.insert(name, s(item, GSI2PK).to_owned());
        }
        Some(Product::TYPE) => {
            let name = format!(
                "product {} {}",
                n(item, Product::SKU),
                Product::TOTAL_INVENTORY
            );
            add(&mut tally.expected, name.clone(), 0);
            add(
                &mut tally.stored,
                name.clone(),
                n(item, Product::TOTAL_INVENTORY),
            );
            tally.hold(name, item, Product::TOTAL_INVENTORY, 0);
        }
        Some(Inventory::TYPE) => {
            add(
                &mut tally.expected,
                format!(
                    "product {} {}",
                    n(item, Inventory::SKU),
                    Product::TOTAL_INVENTORY
                ),
                n(item, Inventory::QUANTITY),
            );
        }
        Some(RepSales::TYPE) => {
            let (period, rep) = (s(item, RepSales::PERIOD), s(item, RepSales::REP_ID));
            for attr in [RepSales::TOTAL, RepSales::ORDER_COUNT] {
                let name = rep_value(period, rep, attr);
                add(&mut tally.stored, name.clone(), n(item, attr));
                tally.hold(name, item, attr, 0);
            }
            // The ranking key is rewritten for the total stored: held by that total.
            let name = rep_value(period, rep, GSI1SK);
            tally
                .stored_text
                .insert(name.clone(), s(item, GSI1SK).to_owned());
            tally.hold(name, item, RepSales::TOTAL, 0);
        }
        Some(OrderLine::TYPE) => add_line(&mut tally.expected, item, 1),
        Some(TrackingEvent::TYPE) => {
            let entry = tally
                .orders
                .newest
                .entry(s(item, TrackingEvent::ORDER_ID).to_owned())
                .or_default();
            let event = s(item, TrackingEvent::EVENT_ID);
            if event > entry.0.as_str() {
                *entry = (event.to_owned(), s(item, TrackingEvent::STATUS).to_owned());
            }
        }
        Some(ProductSales::TYPE) => {
            let sku = n(item, ProductSales::SKU);
            let shard = u32::try_from(n(item, ProductSales::SHARD)).unwrap_or(0);
            for attr in [ProductSales::UNITS_SOLD, ProductSales::REVENUE] {
                let name = format!("product {sku} {attr}");
                add(&mut tally.stored, name.clone(), n(item, attr));
                tally.hold(name, item, attr, shard);
            }
        }
        _ => {}
    }
}

/// Writes the correction of one of commerce's values; `false` when an item holding it changed
/// since it was read.
pub(super) async fn correct(drifted: &Drifted<'_>) -> Result<bool, StoreError> {
    let (want, have) = (drifted.want, drifted.have);
    let bad = |what: &str| drifted.bad(what);
    match drifted.parts().as_slice() {
        ["customer", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let key = ck::customer(&Id::parse("customerId", id)?);
            drifted.set_one(key, attr, true, Update::new()).await
        }
        // A product's total inventory, on its own record.
        ["product", sku, attr] if *attr == Product::TOTAL_INVENTORY => {
            let key = ck::product(ck::Sku::parse(sku)?);
            drifted
                .set_one(key, Product::TOTAL_INVENTORY, true, Update::new())
                .await
        }
        // A rep's quarter: its totals, and its ranking key made from the total.
        ["rep", period_rep, attr] => {
            let (period, rep) = period_rep
                .split_once('/')
                .ok_or_else(|| bad("no period/rep"))?;
            let (period, rep) = (Quarter::parse(period)?, Id::parse("rep", rep)?);
            let key = ck::rep_sales(period, &rep);
            let labels = Update::new()
                .set_if_absent(model::attr::TYPE, model::s(RepSales::TYPE))
                .set_if_absent(RepSales::PERIOD, model::s(period.to_string()))
                .set_if_absent(RepSales::REP_ID, model::s(rep.as_str()));
            let ranked = |total: i64| -> Result<Update, StoreError> {
                let total = u64::try_from(total).map_err(|_| bad("a negative total"))?;
                Ok(labels
                    .clone()
                    .set_key(&ck::rep_ranking_index(period, total, &rep)?))
            };
            match *attr {
                a if a == RepSales::TOTAL => {
                    let to = drifted.number(want)?;
                    drifted
                        .set_one(key, RepSales::TOTAL, false, ranked(to)?)
                        .await
                }
                a if a == RepSales::ORDER_COUNT => {
                    drifted
                        .set_one(key, RepSales::ORDER_COUNT, false, labels)
                        .await
                }
                // The key: rewritten for the total stored, if that is unchanged (a drifted total
                // is corrected on its own, with its key).
                a if a == GSI1SK => {
                    let read = drifted.held.first().and_then(|h| h.raw.as_ref());
                    let total = shard_value(read).unwrap_or(0);
                    let unchanged = super::unchanged(RepSales::TOTAL, read);
                    drifted.update(&key, &ranked(total)?, unchanged).await
                }
                _ => Err(bad("unknown attribute")),
            }
        }
        // Products' sales, a sharded counter.
        ["product", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let sku = ck::Sku::parse(id)?;
            drifted
                .spread(
                    attr,
                    |shard| Ok(ck::product_sales(sku, Shard::new(shard, shard + 1)?)),
                    |shard| {
                        Update::new()
                            .set_if_absent(model::attr::TYPE, model::s(ProductSales::TYPE))
                            .set_if_absent(ProductSales::SKU, model::n(sku.get()))
                            .set_if_absent(ProductSales::SHARD, model::n(shard))
                    },
                )
                .await
        }
        // A header's O5 partition, which no status change rewrites: the shard it records.
        ["order", id, "header", attr] if *attr == GSI2PK => {
            let key = ck::order_header(SortableId::parse(id)?);
            let update = Update::new().set(GSI2PK, model::s(want));
            let unchanged = match have {
                "" => Condition::AttributeAbsent(GSI2PK),
                have => Condition::Equals(GSI2PK, model::s(have)),
            };
            drifted.update(&key, &update, unchanged).await
        }
        // A GSI1 key of an order whose status is right: both keys written again from the item
        // as it is, if its status is still that (the projection's write below would refuse: the
        // status it would write is there already).
        ["order", id, part @ ("header" | "summary"), attr]
            if (*attr == GSI1PK || *attr == GSI1SK)
                && let Some(written) = gsi1_again(drifted, id, part).await? =>
        {
            Ok(written)
        }
        // A status or a status key: the projection's own write of the newest event (conditioned
        // on it); an order without events gets its OPEN keys back, if still without events.
        ["order", id, part @ ("header" | "summary"), _] => {
            let order = SortableId::parse(id)?;
            let Some((event, status)) = drifted.orders.newest.get(*id) else {
                let open = model::s(ck::status_sort_key(OrderStatus::Open, order));
                let (key, update) = if *part == "header" {
                    (
                        ck::order_header(order),
                        Update::new().set(GSI1SK, open.clone()).set(GSI2SK, open),
                    )
                } else {
                    let customer = drifted
                        .orders
                        .customers
                        .get(*id)
                        .ok_or_else(|| bad("no summary"))?;
                    (
                        ck::order_summary(&Id::parse("customerId", customer)?, order),
                        Update::new().set(GSI1SK, open),
                    )
                };
                let untouched =
                    Condition::Exists.and(Condition::AttributeAbsent(Order::LAST_EVENT_ID));
                return drifted.update(&key, &update, untouched).await;
            };
            let event = SortableId::parse(event)?;
            let status: OrderStatus = status.parse().map_err(|_| bad("an unknown status"))?;
            commerce::data::apply_order_status(
                drifted.table,
                Default::default(),
                order,
                event,
                status,
            )
            .await?;
            Ok(true)
        }
        _ => Err(bad("no correction for it")),
    }
}

/// Writes an order item's GSI1 keys again, from its stored status, when that status is the one
/// its events give (`None` when it is not: the status is corrected first, keys with it).
async fn gsi1_again(
    drifted: &Drifted<'_>,
    id: &str,
    part: &str,
) -> Result<Option<bool>, StoreError> {
    let order = SortableId::parse(id)?;
    let expected = drifted
        .orders
        .newest
        .get(id)
        .map_or(OrderStatus::Open.to_string(), |(_, status)| status.clone());
    let key = if part == "header" {
        ck::order_header(order)
    } else {
        let customer = drifted
            .orders
            .customers
            .get(id)
            .ok_or_else(|| drifted.bad("no summary"))?;
        ck::order_summary(&Id::parse("customerId", customer)?, order)
    };
    let Some(item) = drifted
        .table
        .get_item(&key, store::Read::Strong, None)
        .await?
    else {
        return Ok(Some(false));
    };
    let status = s(&item, Order::STATUS).to_owned();
    if status != expected {
        return Ok(None);
    }
    let gsi1 = if part == "header" {
        model::from_item::<OrderHeader>(item)?.gsi1()
    } else {
        model::from_item::<OrderSummary>(item)?.gsi1()
    };
    let Some(gsi1) = gsi1 else {
        return Err(drifted.bad("an order item with no GSI1 key to give"));
    };
    let unchanged = Condition::Equals(Order::STATUS, model::s(status));
    drifted
        .update(&key, &Update::new().set_key(&gsi1), unchanged)
        .await
        .map(Some)
}
