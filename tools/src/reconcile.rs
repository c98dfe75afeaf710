//! `make reconcile`: recomputes every derived item and sharded counter from the source items and
//! reports where the stored values differ (the drift): customers' and products' counters, daily
//! stats, books and users, order statuses and the status keys that list them (GSI1, GSI2; a
//! header's GSI2 partition is the shard it records), products' total inventories, account reps'
//! quarterly totals and their ranking keys. Zero is the expected answer: the stream
//! handlers are exact. It reads the whole table with consistent Scans: a maintenance command, not
//! an access pattern.
//!
//! Each context recomputes and corrects its own derived values ([`commerce`], [`reviews`]); the
//! daily stats, which orders and reviews both feed, are [`derived`]'s. Learning and HR keep no
//! derived values; HR's one copy (an employee's name on its edges) is checked and corrected by
//! [`crate::copies`]. This module holds what they share: the scan, the
//! comparison, the repair loop and the conditional writes a correction is made of.

mod commerce;
mod derived;
mod reviews;

use std::collections::BTreeMap;

use model::{Item, commerce::Order};
use store::{Condition, StoreError, Table, Update};

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

/// Expected and stored values while they are recomputed: sums as numbers, statuses and keys as
/// text.
#[derive(Default)]
struct Tally {
    expected: BTreeMap<String, i64>,
    stored: BTreeMap<String, i64>,
    expected_text: Values,
    stored_text: Values,
}

/// Expected and stored values, computed from a full read of the table.
pub fn recompute(items: &[Item]) -> (Values, Values) {
    let mut tally = Tally::default();
    let mut orders = commerce::Orders::default();
    let mut copies = crate::copies::Copies::default();
    for item in items {
        copies.read(item);
        orders.read(&mut tally, item);
        reviews::read(&mut tally, item);
        derived::read(&mut tally, item);
    }
    orders.finish(&mut tally);
    let text = |m: BTreeMap<String, i64>| {
        m.into_iter()
            .map(|(k, v)| (k, v.to_string()))
            .collect::<Values>()
    };
    let mut expected = text(tally.expected);
    let mut stored = text(tally.stored);
    expected.extend(tally.expected_text);
    stored.extend(tally.stored_text);
    let (copies_expected, copies_stored) = copies.finish();
    expected.extend(copies_expected);
    stored.extend(copies_stored);
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
    commerce::ATTRIBUTES
        .iter()
        .chain(reviews::ATTRIBUTES)
        .chain(derived::ATTRIBUTES)
        .copied()
        .find(|a| *a == name)
}

/// Writes one correction; `false` when the item changed since it was read.
async fn correct(
    table: &Table,
    items: &[Item],
    name: &str,
    want: &str,
    have: &str,
) -> Result<bool, StoreError> {
    let drifted = Drifted {
        table,
        items,
        name,
        want,
        have,
    };
    if crate::copies::owns(name) {
        return crate::copies::correct(table, name, want, have).await;
    }
    match name.split(' ').next() {
        Some("customer" | "product" | "rep" | "order") => commerce::correct(&drifted).await,
        Some("book" | "user") => reviews::correct(&drifted).await,
        Some("day") => derived::correct(&drifted).await,
        _ => Err(drifted.bad("no correction for it")),
    }
}

/// A drifted value to correct: its name, the value expected and the value stored, and the table
/// as read.
struct Drifted<'a> {
    table: &'a Table,
    items: &'a [Item],
    name: &'a str,
    want: &'a str,
    have: &'a str,
}

impl<'a> Drifted<'a> {
    /// The words of the name: `["customer", "123", "OrderCount"]`.
    fn parts(&self) -> Vec<&'a str> {
        self.name.split(' ').collect()
    }

    fn bad(&self, what: &str) -> StoreError {
        StoreError::Corrupt(format!("{}: {what}", self.name))
    }

    fn number(&self, v: &str) -> Result<i64, StoreError> {
        v.parse::<i64>().map_err(|_| self.bad("not a number"))
    }

    /// The static name of a derived attribute.
    fn attribute(&self, attr: &str) -> Result<&'static str, StoreError> {
        attribute(attr).ok_or_else(|| self.bad("unknown attribute"))
    }

    /// The item of `type_name` at `key`.
    fn item_at(&self, type_name: &str, key: &keys::PrimaryKey) -> Option<&'a Item> {
        self.items.iter().find(|i| {
            model::type_of(i) == Some(type_name)
                && i.get(keys::attr::PK) == Some(&model::s(key.pk()))
                && i.get(keys::attr::SK) == Some(&model::s(key.sk()))
        })
    }

    /// The first item of `type_name` whose `attr` is `value`.
    fn find(&self, type_name: &str, attr: &str, value: &str) -> Option<&'a Item> {
        self.items
            .iter()
            .find(|i| model::type_of(i) == Some(type_name) && s(i, attr) == value)
    }

    /// A conditional update; `false` when the condition failed (the item changed meanwhile).
    async fn update(
        &self,
        key: &keys::PrimaryKey,
        update: &Update,
        condition: Condition,
    ) -> Result<bool, StoreError> {
        match self.table.update(key, update, Some(condition)).await {
            Ok(_) => Ok(true),
            Err(StoreError::ConditionFailed) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A plain derived attribute: set it to the expected value, if it is still what was read.
    async fn set_if_unchanged(
        &self,
        key: keys::PrimaryKey,
        attr: &'static str,
        current: Option<&Item>,
        to: i64,
        labels: Update,
    ) -> Result<bool, StoreError> {
        let read = current.and_then(|i| i.get(attr)).cloned();
        let condition = match read {
            Some(v) => Condition::Equals(attr, v),
            None => Condition::AttributeAbsent(attr),
        };
        self.update(&key, &labels.set(attr, model::n(to)), condition)
            .await
    }

    /// A counter of an item found by its id (a customer, a book, a user): only onto an item that
    /// exists, for a correction never creates one.
    async fn set_on_existing(
        &self,
        key: keys::PrimaryKey,
        attr: &'static str,
        current: Option<&Item>,
    ) -> Result<bool, StoreError> {
        if current.is_none() {
            return Err(self.bad("its item does not exist"));
        }
        self.set_if_unchanged(key, attr, current, self.number(self.want)?, Update::new())
            .await
    }

    /// A sharded counter: the difference goes onto the shard at `key` (shard 0: any shard would
    /// do, reads sum), labelled as an item of `type_name`.
    async fn add_to_shard(
        &self,
        key: keys::PrimaryKey,
        type_name: &'static str,
        attr: &'static str,
        labels: Update,
    ) -> Result<bool, StoreError> {
        let labels = labels.set_if_absent(model::attr::TYPE, model::s(type_name));
        let current = self.item_at(type_name, &key);
        let shard_value = current.map_or(0, |i| n(i, attr));
        let to = shard_value + self.number(self.want)? - self.number(self.have)?;
        self.set_if_unchanged(key, attr, current, to, labels).await
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
    use keys::{SortableId, attr::GSI2PK, commerce as ck};
    use model::{
        Entity,
        commerce::{Customer, OrderHeader},
        n as num, s as text,
    };

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
        let table = devkit::table().await;
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
        let header = devkit::all_items(&table)
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
                ("GSI1SK", text("0000000000000000800#E1")),
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
                ("GSI1SK", text("0000000000000000400#E1")),
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
        assert_eq!(rank.1, "0000000000000000500#E1");
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
