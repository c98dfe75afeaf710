//! Commerce's derived values: customers' order counts and lifetime values, products' sales and
//! total inventories, account reps' quarterly totals and their ranking keys, order statuses and
//! the status keys that list them (GSI1, GSI2; a header's GSI2 partition is the shard it records).

use std::collections::{BTreeMap, BTreeSet};

use keys::{
    Id, Quarter, Shard, SortableId, Timestamp,
    attr::{GSI1SK, GSI2PK, GSI2SK},
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

use super::{Drifted, Tally, Values, add, day, n, s};

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

/// The `<STATUS>#<orderId>` key an order in `status` must have in its status indexes.
fn status_key(order: &str, status: &str) -> String {
    match (SortableId::parse(order), status.parse::<OrderStatus>()) {
        (Ok(order), Ok(status)) => ck::status_sort_key(status, order),
        _ => format!("no key for order {order:?} in {status:?}"),
    }
}

/// What the orders' values are recomputed from once the whole table is read: an order's sums
/// follow its status, and its status its newest event.
#[derive(Default)]
pub(super) struct Orders<'a> {
    /// order id -> (newest event id, its status)
    newest: BTreeMap<String, (String, String)>,
    /// Status keys as stored: "order <id> header GSI1SK" → value; which orders have which.
    status_keys: Values,
    summaries: Vec<&'a Item>,
    lines: Vec<&'a Item>,
}

impl<'a> Orders<'a> {
    /// Takes in one item of the scan.
    pub(super) fn read(&mut self, tally: &mut Tally, item: &'a Item) {
        let open = || OrderStatus::Open.to_string();
        match model::type_of(item) {
            Some(Customer::TYPE) => {
                let id = s(item, Customer::CUSTOMER_ID);
                for attr in [Customer::ORDER_COUNT, Customer::LIFETIME_VALUE] {
                    add(&mut tally.expected, format!("customer {id} {attr}"), 0);
                    add(
                        &mut tally.stored,
                        format!("customer {id} {attr}"),
                        n(item, attr),
                    );
                }
            }
            Some(OrderSummary::TYPE) => {
                self.summaries.push(item);
                let order = s(item, Order::ORDER_ID);
                let name = format!("order {order} summary {}", Order::STATUS);
                tally.expected_text.entry(name.clone()).or_insert_with(open);
                tally
                    .stored_text
                    .insert(name, s(item, Order::STATUS).to_owned());
                // Placed under a rep: listed in the rep's GSI1.
                if !s(item, Order::ACCOUNT_REP_ID).is_empty() {
                    self.status_keys.insert(
                        format!("order {order} summary {GSI1SK}"),
                        s(item, GSI1SK).to_owned(),
                    );
                }
            }
            Some(OrderHeader::TYPE) => {
                let order = s(item, Order::ORDER_ID);
                let name = format!("order {order} header {}", Order::STATUS);
                tally.expected_text.entry(name.clone()).or_insert_with(open);
                tally
                    .stored_text
                    .insert(name, s(item, Order::STATUS).to_owned());
                for attr in [GSI1SK, GSI2SK] {
                    self.status_keys.insert(
                        format!("order {order} header {attr}"),
                        s(item, attr).to_owned(),
                    );
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
                add(&mut tally.stored, name, n(item, Product::TOTAL_INVENTORY));
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
                    add(
                        &mut tally.stored,
                        rep_value(period, rep, attr),
                        n(item, attr),
                    );
                }
                tally
                    .stored_text
                    .insert(rep_value(period, rep, GSI1SK), s(item, GSI1SK).to_owned());
            }
            Some(OrderLine::TYPE) => self.lines.push(item),
            Some(TrackingEvent::TYPE) => {
                let entry = self
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
                for attr in [ProductSales::UNITS_SOLD, ProductSales::REVENUE] {
                    add(
                        &mut tally.stored,
                        format!("product {sku} {attr}"),
                        n(item, attr),
                    );
                }
            }
            _ => {}
        }
    }

    /// Once every item is read: the sums of the orders that are sales, the statuses their
    /// newest events give, and the keys that follow statuses and totals.
    pub(super) fn finish(self, tally: &mut Tally) {
        let expected = &mut tally.expected;
        let (expected_status, stored_status) = (&mut tally.expected_text, &mut tally.stored_text);
        // An order counts in every sum while it is a sale, by its status as stored: what the
        // stream derives from it. A status behind its events is drift of its own (below), whose
        // correction moves the sums through the stream like any status write.
        let (sold, not_sold): (Vec<&Item>, Vec<&Item>) =
            self.summaries.into_iter().partition(|summary| {
                s(summary, Order::STATUS)
                    .parse::<OrderStatus>()
                    .map_or(true, model::commerce::is_sale)
            });
        let not_sold: BTreeSet<&str> = not_sold.iter().map(|i| s(i, Order::ORDER_ID)).collect();
        for item in self.lines {
            if not_sold.contains(s(item, OrderLine::ORDER_ID)) {
                continue;
            }
            let sku = n(item, OrderLine::SKU);
            let quantity = n(item, OrderLine::QUANTITY);
            let revenue = quantity * n(item, OrderLine::UNIT_PRICE);
            add(
                expected,
                format!("product {sku} {}", ProductSales::UNITS_SOLD),
                quantity,
            );
            add(
                expected,
                format!("product {sku} {}", ProductSales::REVENUE),
                revenue,
            );
        }
        for item in sold {
            let (id, total) = (s(item, Order::CUSTOMER_ID), n(item, Order::TOTAL));
            let day = day(item, Order::CREATED_AT);
            let mut sums = vec![
                (format!("customer {id} {}", Customer::ORDER_COUNT), 1),
                (format!("customer {id} {}", Customer::LIFETIME_VALUE), total),
                (format!("day {day} {}", DailyStats::ORDERS), 1),
                (format!("day {day} {}", DailyStats::REVENUE), total),
            ];
            let rep = s(item, Order::ACCOUNT_REP_ID);
            if !rep.is_empty() {
                let period = quarter_of(item);
                sums.push((rep_value(&period, rep, RepSales::TOTAL), total));
                sums.push((rep_value(&period, rep, RepSales::ORDER_COUNT), 1));
            }
            for (name, value) in sums {
                add(expected, name, value);
            }
        }
        for (order, (_, status)) in self.newest {
            for part in ["header", "summary"] {
                expected_status.insert(
                    format!("order {order} {part} {}", Order::STATUS),
                    status.clone(),
                );
            }
        }
        // Every status key follows its order's expected status.
        for (name, stored_key) in self.status_keys {
            let mut parts = name.splitn(3, ' ').skip(1);
            let (order, part) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let part = part.split(' ').next().unwrap_or("");
            let status = expected_status
                .get(&format!("order {order} {part} {}", Order::STATUS))
                .cloned()
                .unwrap_or_default();
            expected_status.insert(name.clone(), status_key(order, &status));
            stored_status.insert(name, stored_key);
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
    }
}

/// Writes the correction of one of commerce's values; `false` when the item changed since it was
/// read.
pub(super) async fn correct(drifted: &Drifted<'_>) -> Result<bool, StoreError> {
    let (items, want, have) = (drifted.items, drifted.want, drifted.have);
    let bad = |what: &str| drifted.bad(what);
    match drifted.parts().as_slice() {
        ["customer", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let key = ck::customer(&Id::parse("customerId", id)?);
            let current = drifted.find(Customer::TYPE, Customer::CUSTOMER_ID, id);
            drifted.set_on_existing(key, attr, current).await
        }
        // A product's total inventory, on its own record.
        ["product", sku, attr] if *attr == Product::TOTAL_INVENTORY => {
            let sku = ck::Sku::parse(sku)?;
            let current = drifted.item_at(Product::TYPE, &ck::product(sku));
            if current.is_none() {
                return Err(bad("its product does not exist"));
            }
            let to = drifted.number(want)?;
            drifted
                .set_if_unchanged(
                    ck::product(sku),
                    Product::TOTAL_INVENTORY,
                    current,
                    to,
                    Update::new(),
                )
                .await
        }
        // A rep's quarter: its totals, and its ranking key made from the total.
        ["rep", period_rep, attr] => {
            let (period, rep) = period_rep
                .split_once('/')
                .ok_or_else(|| bad("no period/rep"))?;
            let (period, rep) = (Quarter::parse(period)?, Id::parse("rep", rep)?);
            let key = ck::rep_sales(period, &rep);
            let current = drifted.item_at(RepSales::TYPE, &key);
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
                        .set_if_unchanged(key, RepSales::TOTAL, current, to, ranked(to)?)
                        .await
                }
                a if a == RepSales::ORDER_COUNT => {
                    let to = drifted.number(want)?;
                    drifted
                        .set_if_unchanged(key, RepSales::ORDER_COUNT, current, to, labels)
                        .await
                }
                // The key: rewritten for the total stored, if that is unchanged (a drifted total
                // is corrected on its own, with its key).
                a if a == GSI1SK => {
                    let read = current.and_then(|i| i.get(RepSales::TOTAL)).cloned();
                    let unchanged = match read {
                        Some(v) => Condition::Equals(RepSales::TOTAL, v),
                        None => Condition::AttributeAbsent(RepSales::TOTAL),
                    };
                    let total = current.map_or(0, |i| n(i, RepSales::TOTAL));
                    drifted.update(&key, &ranked(total)?, unchanged).await
                }
                _ => Err(bad("unknown attribute")),
            }
        }
        // Products' sales, a sharded counter.
        ["product", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let shard = Shard::new(0, 1).map_err(StoreError::from)?;
            let sku = ck::Sku::parse(id)?;
            let labels = Update::new()
                .set_if_absent(ProductSales::SKU, model::n(sku.get()))
                .set_if_absent(ProductSales::SHARD, model::n(0));
            drifted
                .add_to_shard(
                    ck::product_sales(sku, shard),
                    ProductSales::TYPE,
                    attr,
                    labels,
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
        // A status or a status key: the projection's own write of the newest event (conditioned
        // on it); an order without events gets its OPEN keys back, if still without events.
        ["order", id, part @ ("header" | "summary"), _] => {
            let order = SortableId::parse(id)?;
            let newest = items
                .iter()
                .filter(|i| {
                    model::type_of(i) == Some(TrackingEvent::TYPE)
                        && s(i, TrackingEvent::ORDER_ID) == *id
                })
                .max_by_key(|i| s(i, TrackingEvent::EVENT_ID).to_owned());
            let Some(newest) = newest else {
                let open = model::s(ck::status_sort_key(OrderStatus::Open, order));
                let (key, update) = if *part == "header" {
                    (
                        ck::order_header(order),
                        Update::new().set(GSI1SK, open.clone()).set(GSI2SK, open),
                    )
                } else {
                    let summary = drifted
                        .find(OrderSummary::TYPE, Order::ORDER_ID, id)
                        .ok_or_else(|| bad("no summary"))?;
                    let customer = Id::parse("customerId", s(summary, Order::CUSTOMER_ID))?;
                    (
                        ck::order_summary(&customer, order),
                        Update::new().set(GSI1SK, open),
                    )
                };
                let untouched =
                    Condition::Exists.and(Condition::AttributeAbsent(Order::LAST_EVENT_ID));
                return drifted.update(&key, &update, untouched).await;
            };
            let event = SortableId::parse(s(newest, TrackingEvent::EVENT_ID))?;
            let status: OrderStatus = s(newest, TrackingEvent::STATUS)
                .parse()
                .map_err(|_| bad("an unknown status"))?;
            store::commerce::apply_order_status(drifted.table, order, event, status).await?;
            Ok(true)
        }
        _ => Err(bad("no correction for it")),
    }
}
