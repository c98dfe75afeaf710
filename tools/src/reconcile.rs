//! `make reconcile`: recomputes every derived item and sharded counter from the source items and
//! reports where the stored values differ (the drift). Zero is the expected answer: the stream
//! handlers are exact. It reads the whole table with consistent Scans: a maintenance command, not
//! an access pattern.

use std::collections::BTreeMap;

use keys::commerce::OrderStatus;
use store::{StoreError, Table, item::Item};

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

    for item in items {
        match s(item, "Type") {
            "Customer" => {
                let id = s(item, "CustomerId");
                add(&mut expected, format!("customer {id} OrderCount"), 0);
                add(&mut expected, format!("customer {id} LifetimeValue"), 0);
                add(
                    &mut stored,
                    format!("customer {id} OrderCount"),
                    n(item, "OrderCount"),
                );
                add(
                    &mut stored,
                    format!("customer {id} LifetimeValue"),
                    n(item, "LifetimeValue"),
                );
            }
            "Order" => {
                let (id, total) = (s(item, "CustomerId"), n(item, "Total"));
                add(&mut expected, format!("customer {id} OrderCount"), 1);
                add(&mut expected, format!("customer {id} LifetimeValue"), total);
                let day = s(item, "CreatedAt").get(..10).unwrap_or("").to_owned();
                add(&mut expected, format!("day {day} Orders"), 1);
                add(&mut expected, format!("day {day} Revenue"), total);
                expected_status
                    .entry(format!("order {} summary Status", s(item, "OrderId")))
                    .or_insert_with(|| OrderStatus::Open.to_string());
                stored_status.insert(
                    format!("order {} summary Status", s(item, "OrderId")),
                    s(item, "Status").to_owned(),
                );
            }
            "OrderHeader" => {
                let order = s(item, "OrderId");
                expected_status
                    .entry(format!("order {order} header Status"))
                    .or_insert_with(|| OrderStatus::Open.to_string());
                stored_status.insert(
                    format!("order {order} header Status"),
                    s(item, "Status").to_owned(),
                );
            }
            "OrderItem" => {
                let sku = n(item, "Sku");
                let quantity = n(item, "Quantity");
                add(&mut expected, format!("product {sku} UnitsSold"), quantity);
                add(
                    &mut expected,
                    format!("product {sku} Revenue"),
                    quantity * n(item, "UnitPrice"),
                );
            }
            "TrackingEvent" => {
                let entry = newest.entry(s(item, "OrderId").to_owned()).or_default();
                if s(item, "EventId") > entry.0.as_str() {
                    *entry = (s(item, "EventId").to_owned(), s(item, "Status").to_owned());
                }
            }
            "ProductSales" => {
                let sku = n(item, "Sku");
                add(
                    &mut stored,
                    format!("product {sku} UnitsSold"),
                    n(item, "UnitsSold"),
                );
                add(
                    &mut stored,
                    format!("product {sku} Revenue"),
                    n(item, "Revenue"),
                );
            }
            "DailyStats" => {
                let day = s(item, "Date");
                for attr in ["Orders", "Revenue", "Reviews"] {
                    add(&mut stored, format!("day {day} {attr}"), n(item, attr));
                }
            }
            "Book" => {
                let isbn = s(item, "Isbn");
                for attr in ["RatingCount", "RatingSum"] {
                    add(&mut expected, format!("book {isbn} {attr}"), 0);
                    add(&mut stored, format!("book {isbn} {attr}"), n(item, attr));
                }
            }
            "User" => {
                let user = s(item, "Username");
                add(&mut expected, format!("user {user} ReviewCount"), 0);
                add(
                    &mut stored,
                    format!("user {user} ReviewCount"),
                    n(item, "ReviewCount"),
                );
            }
            "Review" => {
                let (isbn, user) = (s(item, "Isbn"), s(item, "Username"));
                add(&mut expected, format!("book {isbn} RatingCount"), 1);
                add(
                    &mut expected,
                    format!("book {isbn} RatingSum"),
                    n(item, "Grade"),
                );
                add(&mut expected, format!("user {user} ReviewCount"), 1);
                let day = s(item, "ReviewDate").get(..10).unwrap_or("").to_owned();
                add(&mut expected, format!("day {day} Reviews"), 1);
            }
            _ => {}
        }
    }
    for (order, (_, status)) in newest {
        for part in ["header", "summary"] {
            expected_status.insert(format!("order {order} {part} Status"), status.clone());
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
    use store::item::{n as num, s as text};

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
