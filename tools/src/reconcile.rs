//! `make reconcile`: recomputes every derived item and sharded counter from the source items and
//! reports where the stored values differ (the drift): customers' and products' counters, daily
//! stats, books and users, order statuses and the status keys that list them (GSI1, GSI2; a
//! header's GSI2 partition is the shard it records), products' total inventories, account reps'
//! quarterly totals and their ranking keys. Zero is the expected answer: the stream
//! handlers are exact. It reads the whole table with consistent Scans: a maintenance command, not
//! an access pattern.

use std::collections::BTreeMap;

use keys::{
    Quarter, SortableId, Timestamp,
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
    reviews::{Book, Review, User},
};
use store::{StoreError, Table};

/// Every derived value, by a readable name (`customer 123 OrderCount`), as text.
pub type Values = BTreeMap<String, String>;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Report {
    /// Derived values checked.
    pub checked: usize,
    /// (name, expected, stored) for every value that differs.
    pub drift: Vec<(String, String, String)>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "checked {} derived values, {} drifted",
            self.checked,
            self.drift.len()
        )?;
        for (name, expected, stored) in &self.drift {
            writeln!(f, "  {name}: expected {expected}, stored {stored}")?;
        }
        Ok(())
    }
}

fn s<'a>(item: &'a Item, attr: &str) -> &'a str {
    item.get(attr)
        .and_then(|v| v.as_s().ok())
        .map_or("", String::as_str)
}

fn n(item: &Item, attr: &str) -> i64 {
    item.get(attr)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The `YYYY-MM-DD` of a timestamp attribute.
fn day(item: &Item, attr: &str) -> String {
    s(item, attr).get(..10).unwrap_or("").to_owned()
}

fn add(map: &mut BTreeMap<String, i64>, name: String, v: i64) {
    *map.entry(name).or_default() += v;
}

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

/// Expected and stored values, computed from a full read of the table.
pub fn recompute(items: &[Item]) -> (Values, Values) {
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    let mut stored: BTreeMap<String, i64> = BTreeMap::new();
    let mut expected_status: Values = BTreeMap::new();
    let mut stored_status: Values = BTreeMap::new();
    // order id -> (newest event id, its status)
    let mut newest: BTreeMap<String, (String, String)> = BTreeMap::new();
    let open = OrderStatus::Open.to_string();
    // Status keys as stored: "order <id> header GSI1SK" → value; which orders have which.
    let mut status_keys: Values = BTreeMap::new();
    let mut summaries: Vec<&Item> = Vec::new();
    let mut lines: Vec<&Item> = Vec::new();

    for item in items {
        match model::type_of(item) {
            Some(Customer::TYPE) => {
                let id = s(item, Customer::CUSTOMER_ID);
                for attr in [Customer::ORDER_COUNT, Customer::LIFETIME_VALUE] {
                    add(&mut expected, format!("customer {id} {attr}"), 0);
                    add(&mut stored, format!("customer {id} {attr}"), n(item, attr));
                }
            }
            Some(OrderSummary::TYPE) => {
                summaries.push(item);
                let order = s(item, Order::ORDER_ID);
                let name = format!("order {order} summary {}", Order::STATUS);
                expected_status
                    .entry(name.clone())
                    .or_insert_with(|| open.clone());
                stored_status.insert(name, s(item, Order::STATUS).to_owned());
                // Placed under a rep: listed in the rep's GSI1.
                if !s(item, Order::ACCOUNT_REP_ID).is_empty() {
                    status_keys.insert(
                        format!("order {order} summary {GSI1SK}"),
                        s(item, GSI1SK).to_owned(),
                    );
                }
            }
            Some(OrderHeader::TYPE) => {
                let order = s(item, Order::ORDER_ID);
                let name = format!("order {order} header {}", Order::STATUS);
                expected_status
                    .entry(name.clone())
                    .or_insert_with(|| open.clone());
                stored_status.insert(name, s(item, Order::STATUS).to_owned());
                for attr in [GSI1SK, GSI2SK] {
                    status_keys.insert(
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
                expected_status.insert(name.clone(), shard);
                stored_status.insert(name, s(item, GSI2PK).to_owned());
            }
            Some(Product::TYPE) => {
                let name = format!(
                    "product {} {}",
                    n(item, Product::SKU),
                    Product::TOTAL_INVENTORY
                );
                add(&mut expected, name.clone(), 0);
                add(&mut stored, name, n(item, Product::TOTAL_INVENTORY));
            }
            Some(Inventory::TYPE) => {
                add(
                    &mut expected,
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
                    add(&mut stored, rep_value(period, rep, attr), n(item, attr));
                }
                stored_status.insert(rep_value(period, rep, GSI1SK), s(item, GSI1SK).to_owned());
            }
            Some(OrderLine::TYPE) => lines.push(item),
            Some(TrackingEvent::TYPE) => {
                let entry = newest
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
                    add(&mut stored, format!("product {sku} {attr}"), n(item, attr));
                }
            }
            Some(DailyStats::TYPE) => {
                let day = s(item, DailyStats::DATE);
                for attr in [DailyStats::ORDERS, DailyStats::REVENUE, DailyStats::REVIEWS] {
                    add(&mut stored, format!("day {day} {attr}"), n(item, attr));
                }
            }
            Some(Book::TYPE) => {
                let isbn = s(item, Book::ISBN);
                for attr in [Book::RATING_COUNT, Book::RATING_SUM] {
                    add(&mut expected, format!("book {isbn} {attr}"), 0);
                    add(&mut stored, format!("book {isbn} {attr}"), n(item, attr));
                }
            }
            Some(User::TYPE) => {
                let user = s(item, User::USERNAME);
                let name = format!("user {user} {}", User::REVIEW_COUNT);
                add(&mut expected, name.clone(), 0);
                add(&mut stored, name, n(item, User::REVIEW_COUNT));
            }
            Some(Review::TYPE) => {
                let (isbn, user) = (s(item, Review::ISBN), s(item, Review::USERNAME));
                add(
                    &mut expected,
                    format!("book {isbn} {}", Book::RATING_COUNT),
                    1,
                );
                add(
                    &mut expected,
                    format!("book {isbn} {}", Book::RATING_SUM),
                    n(item, Review::GRADE),
                );
                add(
                    &mut expected,
                    format!("user {user} {}", User::REVIEW_COUNT),
                    1,
                );
                let day = day(item, Review::REVIEW_DATE);
                add(
                    &mut expected,
                    format!("day {day} {}", DailyStats::REVIEWS),
                    1,
                );
            }
            _ => {}
        }
    }
    // An order counts in every sum while it is a sale, by its status as stored: what the stream
    // derives from it. A status behind its events is drift of its own (below), whose correction
    // moves the sums through the stream like any status write.
    let (sold, not_sold): (Vec<&Item>, Vec<&Item>) = summaries.into_iter().partition(|summary| {
        s(summary, Order::STATUS)
            .parse::<OrderStatus>()
            .map_or(true, model::commerce::is_sale)
    });
    let not_sold: std::collections::BTreeSet<&str> =
        not_sold.iter().map(|i| s(i, Order::ORDER_ID)).collect();
    for item in lines {
        if not_sold.contains(s(item, OrderLine::ORDER_ID)) {
            continue;
        }
        let sku = n(item, OrderLine::SKU);
        let quantity = n(item, OrderLine::QUANTITY);
        let revenue = quantity * n(item, OrderLine::UNIT_PRICE);
        add(
            &mut expected,
            format!("product {sku} {}", ProductSales::UNITS_SOLD),
            quantity,
        );
        add(
            &mut expected,
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
            add(&mut expected, name, value);
        }
    }
    for (order, (_, status)) in newest {
        for part in ["header", "summary"] {
            expected_status.insert(
                format!("order {order} {part} {}", Order::STATUS),
                status.clone(),
            );
        }
    }
    // Every status key follows its order's expected status.
    for (name, stored_key) in status_keys {
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
        .chain(stored.keys())
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
    let text = |m: BTreeMap<String, i64>| {
        m.into_iter()
            .map(|(k, v)| (k, v.to_string()))
            .collect::<Values>()
    };
    let mut expected = text(expected);
    let mut stored = text(stored);
    expected.extend(expected_status);
    stored.extend(stored_status);
    (expected, stored)
}

/// Compares expected and stored values; a value missing on one side counts as 0.
pub fn compare(expected: &Values, stored: &Values) -> Report {
    let mut names: Vec<&String> = expected.keys().chain(stored.keys()).collect();
    names.sort();
    names.dedup();
    let zero = "0".to_owned();
    let mut report = Report {
        checked: names.len(),
        drift: Vec::new(),
    };
    for name in names {
        let e = expected.get(name).unwrap_or(&zero);
        let s = stored.get(name).unwrap_or(&zero);
        if e != s {
            report.drift.push((name.clone(), e.clone(), s.clone()));
        }
    }
    report
}

/// What a repair did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Repaired {
    /// Corrections written.
    pub written: usize,
    /// Drifted values left as they were, and why (changed while the repair ran: run it again).
    pub skipped: Vec<String>,
    /// Order summaries whose status was corrected: their sums move when the stream applies
    /// that write (a second repair derives them where no stream runs).
    pub statuses: usize,
}

/// `make reconcile REPAIR=1`: writes a correction for every drifted value. Each is conditional on
/// the value it read, so a stream handler writing the same item meanwhile makes the correction
/// step aside instead of being overwritten (or double-counted); order statuses go through the
/// projection's own write, conditioned on the newest event. A second run finds nothing to do.
/// Run it once the stream has caught up: a record still in flight is in the expected values
/// already, and its handler would add it again. A status it corrects moves its order's sums
/// through the stream, as every status write does (a cancelled order leaves them); with no stream
/// running (a table loaded directly), a second run derives them.
pub async fn repair(table: &Table) -> Result<(Report, Repaired), StoreError> {
    let items = scan(table).await?;
    let (expected, stored) = recompute(&items);
    let report = compare(&expected, &stored);
    let mut repaired = Repaired::default();
    for (name, want, have) in &report.drift {
        match correct(table, &items, name, want, have).await {
            Ok(true) => {
                repaired.written += 1;
                if name.ends_with(&format!(" summary {}", Order::STATUS)) {
                    repaired.statuses += 1;
                }
            }
            Ok(false) => repaired.skipped.push(format!("{name}: changed meanwhile")),
            Err(e) => repaired.skipped.push(format!("{name}: {e}")),
        }
    }
    Ok((report, repaired))
}

/// The static attribute name a value's name ends with.
fn attribute(name: &str) -> Option<&'static str> {
    [
        Customer::ORDER_COUNT,
        Customer::LIFETIME_VALUE,
        Book::RATING_COUNT,
        Book::RATING_SUM,
        User::REVIEW_COUNT,
        ProductSales::UNITS_SOLD,
        ProductSales::REVENUE,
        Product::TOTAL_INVENTORY,
        RepSales::TOTAL,
        RepSales::ORDER_COUNT,
        DailyStats::ORDERS,
        DailyStats::REVENUE,
        DailyStats::REVIEWS,
    ]
    .into_iter()
    .find(|a| *a == name)
}

/// The item of `type_name` at `key`.
fn item_at<'a>(items: &'a [Item], type_name: &str, key: &keys::PrimaryKey) -> Option<&'a Item> {
    items.iter().find(|i| {
        model::type_of(i) == Some(type_name)
            && i.get(keys::attr::PK) == Some(&model::s(key.pk()))
            && i.get(keys::attr::SK) == Some(&model::s(key.sk()))
    })
}

/// The first item of `type_name` whose `attr` is `value`.
fn find<'a>(items: &'a [Item], type_name: &str, attr: &str, value: &str) -> Option<&'a Item> {
    items
        .iter()
        .find(|i| model::type_of(i) == Some(type_name) && s(i, attr) == value)
}

/// Writes one correction; `false` when the item changed since it was read.
async fn correct(
    table: &Table,
    items: &[Item],
    name: &str,
    want: &str,
    have: &str,
) -> Result<bool, StoreError> {
    use keys::{Id, Shard, commerce as ck, reviews as rk};
    use store::{Condition, Update};
    let parts: Vec<&str> = name.split(' ').collect();
    let bad = |what: &str| StoreError::Corrupt(format!("{name}: {what}"));
    let number = |v: &str| v.parse::<i64>().map_err(|_| bad("not a number"));
    // A plain derived attribute: set it to the expected value, if it is still what was read.
    let set_if_unchanged = async |key: keys::PrimaryKey,
                                  attr: &'static str,
                                  current: Option<&Item>,
                                  to: i64,
                                  labels: Update| {
        let read = current.and_then(|i| i.get(attr)).cloned();
        let condition = match read {
            Some(v) => Condition::Equals(attr, v),
            None => Condition::AttributeAbsent(attr),
        };
        match table
            .update(&key, &labels.set(attr, model::n(to)), Some(condition))
            .await
        {
            Ok(_) => Ok(true),
            Err(StoreError::ConditionFailed) => Ok(false),
            Err(e) => Err(e),
        }
    };
    match parts.as_slice() {
        ["customer" | "book" | "user", id, attr] => {
            let attr = attribute(attr).ok_or_else(|| bad("unknown attribute"))?;
            let (key, current) = match parts[0] {
                "customer" => (
                    ck::customer(&Id::parse("customerId", id)?),
                    find(items, Customer::TYPE, Customer::CUSTOMER_ID, id),
                ),
                "book" => (
                    rk::book(&rk::Isbn::parse(id)?),
                    find(items, Book::TYPE, Book::ISBN, id),
                ),
                _ => (
                    rk::user(&Id::parse("username", id)?),
                    find(items, User::TYPE, User::USERNAME, id),
                ),
            };
            // Only onto an item that exists: a correction never creates a customer, book or user.
            if current.is_none() {
                return Err(bad("its item does not exist"));
            }
            set_if_unchanged(key, attr, current, number(want)?, Update::new()).await
        }
        // A product's total inventory, on its own record.
        ["product", sku, attr] if *attr == Product::TOTAL_INVENTORY => {
            let sku = ck::Sku::parse(sku)?;
            let current = item_at(items, Product::TYPE, &ck::product(sku));
            if current.is_none() {
                return Err(bad("its product does not exist"));
            }
            let to = number(want)?;
            set_if_unchanged(
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
            let current = item_at(items, RepSales::TYPE, &key);
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
                    let to = number(want)?;
                    set_if_unchanged(key, RepSales::TOTAL, current, to, ranked(to)?).await
                }
                a if a == RepSales::ORDER_COUNT => {
                    set_if_unchanged(key, RepSales::ORDER_COUNT, current, number(want)?, labels)
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
                    match table.update(&key, &ranked(total)?, Some(unchanged)).await {
                        Ok(_) => Ok(true),
                        Err(StoreError::ConditionFailed) => Ok(false),
                        Err(e) => Err(e),
                    }
                }
                _ => Err(bad("unknown attribute")),
            }
        }
        // A sharded counter: the difference goes onto shard 0 (any shard would do: reads sum).
        ["product" | "day", id, attr] => {
            let attr = attribute(attr).ok_or_else(|| bad("unknown attribute"))?;
            let shard = Shard::new(0, 1).map_err(StoreError::from)?;
            let (key, type_name, labels) = if parts[0] == "product" {
                let sku = ck::Sku::parse(id)?;
                (
                    ck::product_sales(sku, shard),
                    ProductSales::TYPE,
                    Update::new()
                        .set_if_absent(ProductSales::SKU, model::n(sku.get()))
                        .set_if_absent(ProductSales::SHARD, model::n(0)),
                )
            } else {
                let date = keys::Date::parse_iso(id)?;
                (
                    keys::derived::daily_stats(date, shard),
                    DailyStats::TYPE,
                    Update::new()
                        .set_if_absent(DailyStats::DATE, model::s(date.iso()))
                        .set_if_absent(DailyStats::SHARD, model::n(0)),
                )
            };
            let labels = labels.set_if_absent(model::attr::TYPE, model::s(type_name));
            let current = item_at(items, type_name, &key);
            let shard_value = current.map_or(0, |i| n(i, attr));
            let to = shard_value + number(want)? - number(have)?;
            set_if_unchanged(key, attr, current, to, labels).await
        }
        // A header's O5 partition, which no status change rewrites: the shard it records.
        ["order", id, "header", attr] if *attr == GSI2PK => {
            let key = ck::order_header(keys::SortableId::parse(id)?);
            let update = Update::new().set(GSI2PK, model::s(want));
            let unchanged = match have {
                "" => Condition::AttributeAbsent(GSI2PK),
                have => Condition::Equals(GSI2PK, model::s(have)),
            };
            match table.update(&key, &update, Some(unchanged)).await {
                Ok(_) => Ok(true),
                Err(StoreError::ConditionFailed) => Ok(false),
                Err(e) => Err(e),
            }
        }
        // A status or a status key: the projection's own write of the newest event (conditioned
        // on it); an order without events gets its OPEN keys back, if still without events.
        ["order", id, part @ ("header" | "summary"), _] => {
            let order = keys::SortableId::parse(id)?;
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
                    let summary = find(items, OrderSummary::TYPE, Order::ORDER_ID, id)
                        .ok_or_else(|| bad("no summary"))?;
                    let customer = Id::parse("customerId", s(summary, Order::CUSTOMER_ID))?;
                    (
                        ck::order_summary(&customer, order),
                        Update::new().set(GSI1SK, open),
                    )
                };
                let untouched =
                    Condition::Exists.and(Condition::AttributeAbsent(Order::LAST_EVENT_ID));
                return match table.update(&key, &update, Some(untouched)).await {
                    Ok(_) => Ok(true),
                    Err(StoreError::ConditionFailed) => Ok(false),
                    Err(e) => Err(e),
                };
            };
            let event = keys::SortableId::parse(s(newest, TrackingEvent::EVENT_ID))?;
            let status: OrderStatus = s(newest, TrackingEvent::STATUS)
                .parse()
                .map_err(|_| bad("an unknown status"))?;
            store::commerce::apply_order_status(table, order, event, status).await?;
            Ok(true)
        }
        _ => Err(bad("no correction for it")),
    }
}

/// Reads the table and reports the drift.
pub async fn run(table: &Table) -> Result<Report, StoreError> {
    let items = scan(table).await?;
    let (expected, stored) = recompute(&items);
    Ok(compare(&expected, &stored))
}

async fn scan(table: &Table) -> Result<Vec<Item>, StoreError> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let out = table
            .client()
            .scan()
            .table_name(table.name())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| {
                StoreError::Dynamo(
                    store::aws_sdk_dynamodb::error::DisplayErrorContext(e).to_string(),
                )
            })?;
        items.extend(out.items.unwrap_or_default());
        start = out.last_evaluated_key;
        if start.is_none() {
            return Ok(items);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{n as num, s as text};

    fn item(pairs: &[(&str, store::aws_sdk_dynamodb::types::AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    /// Drift after an incident (counters wrong, a status behind) is healed by one repair, and a
    /// second repair writes nothing.
    #[tokio::test]
    async fn repair_heals_drift_once_and_then_has_nothing_to_do() {
        use store::Update;
        let table = testkit::table().await;
        crate::seed::load(&table).await.unwrap();
        // The seed writes source items only: derived values are the stream's job, so a fresh
        // seed drifts (nothing counted yet) exactly as a stream that was down would leave it.
        let before = run(&table).await.unwrap();
        assert!(!before.drift.is_empty());
        // And a hand edit on top: a negative count.
        let customer = keys::commerce::customer(&keys::Id::parse("c", "123").unwrap());
        table
            .update(
                &customer,
                &Update::new().set(Customer::ORDER_COUNT, num(-4)),
                None,
            )
            .await
            .unwrap();
        // And an order header moved off the O5 shard it records.
        let header = testkit::all_items(&table)
            .await
            .into_iter()
            .find(|i| model::type_of(i) == Some(OrderHeader::TYPE))
            .unwrap();
        let order = SortableId::parse(s(&header, Order::ORDER_ID)).unwrap();
        let moved = Update::new().set(GSI2PK, model::s("ORDERS#99"));
        let header_key = ck::order_header(order);
        table.update(&header_key, &moved, None).await.unwrap();
        let (report, repaired) = repair(&table).await.unwrap();
        assert!(repaired.skipped.is_empty(), "{:?}", repaired.skipped);
        let shard = format!("order {order} header {GSI2PK}");
        assert!(report.drift.iter().any(|d| d.0 == shard), "{report}");
        assert_eq!(repaired.written, report.drift.len(), "{report}");
        assert_eq!(run(&table).await.unwrap().drift, [], "healed");
        let (report, repaired) = repair(&table).await.unwrap();
        assert_eq!(
            (report.drift.len(), repaired.written),
            (0, 0),
            "nothing the second time"
        );
    }

    /// A cancelled or returned order is no sale: the sums it fed expect it gone once its status
    /// says so (as stored: what the stream derives from), and a stored value that still counts it
    /// is drift.
    #[test]
    fn a_cancelled_or_returned_order_is_expected_out_of_the_sums() {
        const O1: &str = "01KQ6W4K000000000000000001";
        const O2: &str = "01KQ6W4K000000000000000002";
        const O3: &str = "01KQ6W4K000000000000000003";
        const O4: &str = "01KQ6W4K000000000000000004";
        let order = |id: &str, total: i64, status: &str| {
            item(&[
                ("Type", text("Order")),
                ("CustomerId", text("1")),
                ("OrderId", text(id)),
                ("Total", num(total)),
                ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
                ("Status", text(status)),
                ("AccountRepId", text("E1")),
            ])
        };
        let event = |order: &str, id: &str, status: &str| {
            item(&[
                ("Type", text("TrackingEvent")),
                ("OrderId", text(order)),
                ("EventId", text(id)),
                ("Status", text(status)),
            ])
        };
        let line = |order: &str, quantity: i64, price: i64| {
            item(&[
                ("Type", text("OrderItem")),
                ("OrderId", text(order)),
                ("Sku", num(7)),
                ("Quantity", num(quantity)),
                ("UnitPrice", num(price)),
            ])
        };
        let items = vec![
            item(&[
                ("Type", text("Customer")),
                ("CustomerId", text("1")),
                // Still counting the cancelled O2.
                ("OrderCount", num(3)),
                ("LifetimeValue", num(1000)),
            ]),
            order(O1, 500, "SHIPPED"),
            event(O1, "E1", "SHIPPED"),
            order(O2, 200, "CANCELLED"),
            event(O2, "E1", "PROCESSING"),
            event(O2, "E2", "CANCELLED"),
            order(O3, 900, "RETURNED"),
            event(O3, "E1", "RETURNED"),
            // Cancelled, its status not projected yet: still counted, until the projection's
            // write reaches the stream.
            order(O4, 300, "OPEN"),
            event(O4, "E1", "CANCELLED"),
            // O1's line and the cancelled O2's, both of SKU 7: its sales still count O2's.
            line(O1, 1, 500),
            line(O2, 2, 100),
            item(&[
                ("Type", text("ProductSales")),
                ("Sku", num(7)),
                ("UnitsSold", num(3)),
                ("Revenue", num(700)),
            ]),
            item(&[
                ("Type", text("DailyStats")),
                ("Date", text("2026-01-02")),
                ("Orders", num(2)),
                ("Revenue", num(800)),
            ]),
            item(&[
                ("Type", text("RepSales")),
                ("Period", text("2026-Q1")),
                ("RepId", text("E1")),
                ("Total", num(800)),
                ("OrderCount", num(2)),
                ("GSI1SK", text("000000000000800#E1")),
            ]),
        ];
        let (expected, stored) = recompute(&items);
        let report = compare(&expected, &stored);
        let sums: Vec<_> = report
            .drift
            .iter()
            .filter(|d| !d.0.starts_with("order "))
            .map(|d| (d.0.as_str(), d.1.as_str(), d.2.as_str()))
            .collect();
        assert_eq!(
            sums,
            [
                ("customer 1 LifetimeValue", "800", "1000"),
                ("customer 1 OrderCount", "2", "3"),
                ("product 7 Revenue", "500", "700"),
                ("product 7 UnitsSold", "1", "3"),
            ],
            "{report}"
        );
        let status = format!("order {O4} summary Status");
        assert!(
            report
                .drift
                .iter()
                .any(|d| (d.0.as_str(), d.1.as_str(), d.2.as_str())
                    == (&status, "CANCELLED", "OPEN")),
            "{report}"
        );
    }

    #[test]
    fn finds_drift_and_only_drift() {
        const O1: &str = "01KQ6W4K000000000000000001";
        let shipped = format!("SHIPPED#{O1}");
        let items = vec![
            item(&[
                ("Type", text("Customer")),
                ("CustomerId", text("1")),
                ("OrderCount", num(1)),
                ("LifetimeValue", num(500)),
            ]),
            item(&[
                ("Type", text("Order")),
                ("CustomerId", text("1")),
                ("OrderId", text(O1)),
                ("Total", num(500)),
                ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
                ("Status", text("SHIPPED")),
                ("AccountRepId", text("E1")),
                // The status projection missed the rep's key.
                ("GSI1SK", text(format!("OPEN#{O1}"))),
            ]),
            item(&[
                ("Type", text("OrderHeader")),
                ("CustomerId", text("1")),
                ("OrderId", text(O1)),
                ("Total", num(500)),
                ("ItemCount", num(1)),
                ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
                ("Status", text("OPEN")),
                ("GSI1SK", text(&shipped)),
                // Moved off the shard it records.
                ("StatusShard", num(3)),
                ("GSI2PK", text("ORDERS#07")),
                ("GSI2SK", text(&shipped)),
            ]),
            item(&[
                ("Type", text("TrackingEvent")),
                ("OrderId", text(O1)),
                ("EventId", text("E1")),
                ("Status", text("SHIPPED")),
            ]),
            item(&[
                ("Type", text("DailyStats")),
                ("Date", text("2026-01-02")),
                ("Orders", num(1)),
                ("Revenue", num(400)),
            ]),
            item(&[
                ("Type", text("RepSales")),
                ("Period", text("2026-Q1")),
                ("RepId", text("E1")),
                ("Total", num(500)),
                ("OrderCount", num(1)),
                // Written for an older total.
                ("GSI1SK", text("000000000000400#E1")),
            ]),
            item(&[
                ("Type", text("Product")),
                ("Sku", num(7)),
                ("TotalInventory", num(5)),
            ]),
            item(&[
                ("Type", text("Inventory")),
                ("Sku", num(7)),
                ("WarehouseId", text("W1")),
                ("Quantity", num(3)),
            ]),
            item(&[
                ("Type", text("Inventory")),
                ("Sku", num(7)),
                ("WarehouseId", text("W2")),
                ("Quantity", num(2)),
            ]),
        ];
        let (expected, stored) = recompute(&items);
        let report = compare(&expected, &stored);
        let names: Vec<_> = report.drift.iter().map(|d| d.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "day 2026-01-02 Revenue",
                "order 01KQ6W4K000000000000000001 header GSI2PK",
                "order 01KQ6W4K000000000000000001 header Status",
                "order 01KQ6W4K000000000000000001 summary GSI1SK",
                "rep 2026-Q1/E1 GSI1SK",
            ],
            "{report}"
        );
        let rank = report
            .drift
            .iter()
            .find(|d| d.0 == "rep 2026-Q1/E1 GSI1SK")
            .unwrap();
        assert_eq!(rank.1, "000000000000500#E1");
        let shard = report
            .drift
            .iter()
            .find(|d| d.0.ends_with("header GSI2PK"))
            .unwrap();
        assert_eq!(
            (shard.1.as_str(), shard.2.as_str()),
            ("ORDERS#03", "ORDERS#07")
        );
    }
}
