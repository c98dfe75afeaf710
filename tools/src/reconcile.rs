//! `make reconcile`: recomputes every derived item and sharded counter from the source items and
//! reports where the stored values differ (the drift). Zero is the expected answer: the stream
//! handlers are exact. It reads the whole table with consistent Scans: a maintenance command, not
//! an access pattern.

use std::collections::BTreeMap;

use keys::commerce::OrderStatus;
use model::{
    Entity, Item,
    commerce::{
        Customer, Order, OrderHeader, OrderLine, OrderSummary, ProductSales, TrackingEvent,
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

/// Expected and stored values, computed from a full read of the table.
pub fn recompute(items: &[Item]) -> (Values, Values) {
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    let mut stored: BTreeMap<String, i64> = BTreeMap::new();
    let mut expected_status: Values = BTreeMap::new();
    let mut stored_status: Values = BTreeMap::new();
    // order id -> (newest event id, its status)
    let mut newest: BTreeMap<String, (String, String)> = BTreeMap::new();
    let open = OrderStatus::Open.to_string();

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
                let (id, total) = (s(item, Order::CUSTOMER_ID), n(item, Order::TOTAL));
                add(
                    &mut expected,
                    format!("customer {id} {}", Customer::ORDER_COUNT),
                    1,
                );
                add(
                    &mut expected,
                    format!("customer {id} {}", Customer::LIFETIME_VALUE),
                    total,
                );
                let day = day(item, Order::CREATED_AT);
                add(
                    &mut expected,
                    format!("day {day} {}", DailyStats::ORDERS),
                    1,
                );
                add(
                    &mut expected,
                    format!("day {day} {}", DailyStats::REVENUE),
                    total,
                );
                let name = format!(
                    "order {} summary {}",
                    s(item, Order::ORDER_ID),
                    Order::STATUS
                );
                expected_status
                    .entry(name.clone())
                    .or_insert_with(|| open.clone());
                stored_status.insert(name, s(item, Order::STATUS).to_owned());
            }
            Some(OrderHeader::TYPE) => {
                let name = format!(
                    "order {} header {}",
                    s(item, Order::ORDER_ID),
                    Order::STATUS
                );
                expected_status
                    .entry(name.clone())
                    .or_insert_with(|| open.clone());
                stored_status.insert(name, s(item, Order::STATUS).to_owned());
            }
            Some(OrderLine::TYPE) => {
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
    for (order, (_, status)) in newest {
        for part in ["header", "summary"] {
            expected_status.insert(
                format!("order {order} {part} {}", Order::STATUS),
                status.clone(),
            );
        }
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

    #[test]
    fn finds_drift_and_only_drift() {
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
                ("OrderId", text("O1")),
                ("Total", num(500)),
                ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
                ("Status", text("SHIPPED")),
            ]),
            item(&[
                ("Type", text("OrderHeader")),
                ("OrderId", text("O1")),
                ("Status", text("OPEN")),
            ]),
            item(&[
                ("Type", text("TrackingEvent")),
                ("OrderId", text("O1")),
                ("EventId", text("E1")),
                ("Status", text("SHIPPED")),
            ]),
            item(&[
                ("Type", text("DailyStats")),
                ("Date", text("2026-01-02")),
                ("Orders", num(1)),
                ("Revenue", num(400)),
            ]),
        ];
        let (expected, stored) = recompute(&items);
        let report = compare(&expected, &stored);
        let names: Vec<_> = report.drift.iter().map(|d| d.0.as_str()).collect();
        assert_eq!(
            names,
            ["day 2026-01-02 Revenue", "order O1 header Status"],
            "{report}"
        );
    }
}
