//! Orders → counters (part of the commerce stream consumer). From order summaries (`Type = Order`) and order lines
//! (`Type = OrderItem`), inserted, modified or removed (TTL removals included):
//! - the customer's `OrderCount` and `LifetimeValue` (cents) on its A record;
//! - units sold and revenue per product, on `AGGREGATE_SHARDS` write shards;
//! - site-wide orders and revenue per day (UTC), on `AGGREGATE_SHARDS` write shards.
//!
//! Each record becomes deltas (a modify is new minus old); `store::aggregate::apply` coalesces
//! them into one write per touched target and makes each record count exactly once.

use std::collections::BTreeMap;

use keys::{commerce as k, derived};
use model::{
    Entity,
    commerce::{Customer, OrderLine, OrderSummary, ProductSales},
    derived::DailyStats,
    n, s,
};
use store::{
    Deps,
    aggregate::{Applied, Contribution},
};
use streams::{BatchResponse, Change, Event};

/// The order totals of a batch, and what was written (for logs, tests and the benchmark).
pub async fn handle_counted(deps: &Deps, event: &Event) -> (BatchResponse, Applied) {
    streams::aggregate_batch(deps, event, contributions_of).await
}

fn contributions_of(change: &Change<'_>, shards: u32) -> Result<Vec<Contribution>, String> {
    match change.type_name() {
        Some(OrderSummary::TYPE) => {
            let old = change.old::<OrderSummary>().map_err(|e| e.to_string())?;
            let new = change.new::<OrderSummary>().map_err(|e| e.to_string())?;
            Ok(order_contributions(change, old, new, shards))
        }
        Some(OrderLine::TYPE) => {
            let old = change.old::<OrderLine>().map_err(|e| e.to_string())?;
            let new = change.new::<OrderLine>().map_err(|e| e.to_string())?;
            Ok(line_contributions(change, old, new, shards))
        }
        // Other types are filtered out before they reach this function (FilterCriteria).
        _ => Ok(Vec::new()),
    }
}

fn presence<T>(o: &Option<T>) -> i64 {
    i64::from(o.is_some())
}

fn order_contributions(
    change: &Change<'_>,
    old: Option<OrderSummary>,
    new: Option<OrderSummary>,
    shards: u32,
) -> Vec<Contribution> {
    let Some(OrderSummary(any)) = new.as_ref().or(old.as_ref()) else {
        return Vec::new();
    };
    let count = presence(&new) - presence(&old);
    let value = new.as_ref().map_or(0, |o| o.0.total) - old.as_ref().map_or(0, |o| o.0.total);
    let date = any.created_at.date();
    let shard = derived::daily_stats_shard(&any.order_id.to_string(), shards);
    vec![
        Contribution {
            record: change.index,
            event_id: change.event_id.clone(),
            target: k::customer(&any.customer_id),
            target_type: Customer::TYPE,
            must_exist: true,
            adds: BTreeMap::from([
                (Customer::ORDER_COUNT, count),
                (Customer::LIFETIME_VALUE, value),
            ]),
            labels: BTreeMap::new(),
        },
        Contribution {
            record: change.index,
            event_id: change.event_id.clone(),
            target: derived::daily_stats(date, shard),
            target_type: DailyStats::TYPE,
            must_exist: false,
            adds: BTreeMap::from([(DailyStats::ORDERS, count), (DailyStats::REVENUE, value)]),
            labels: BTreeMap::from([
                (DailyStats::DATE, s(date.iso())),
                (DailyStats::SHARD, n(shard.number())),
            ]),
        },
    ]
}

fn line_contributions(
    change: &Change<'_>,
    old: Option<OrderLine>,
    new: Option<OrderLine>,
    shards: u32,
) -> Vec<Contribution> {
    let Some(any) = new.as_ref().or(old.as_ref()) else {
        return Vec::new();
    };
    let units = new.as_ref().map_or(0, |l| i64::from(l.quantity))
        - old.as_ref().map_or(0, |l| i64::from(l.quantity));
    let revenue =
        new.as_ref().map_or(0, OrderLine::amount) - old.as_ref().map_or(0, OrderLine::amount);
    // The shard comes from the source record, so a retry lands on the same shard.
    let shard = k::product_sales_shard(any.order_id, shards);
    vec![Contribution {
        record: change.index,
        event_id: change.event_id.clone(),
        target: k::product_sales(any.sku, shard),
        target_type: ProductSales::TYPE,
        must_exist: false,
        adds: BTreeMap::from([
            (ProductSales::UNITS_SOLD, units),
            (ProductSales::REVENUE, revenue),
        ]),
        labels: BTreeMap::from([
            (ProductSales::SKU, n(any.sku.get())),
            (ProductSales::SHARD, n(shard.number())),
        ]),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Item;
    use serde_json::Value;
    use store::{Table, aws_sdk_dynamodb::types::AttributeValue};
    use testkit::{Change as C, all_items, fixtures, stream_event, stream_record};

    const SHARDS: u32 = 4;

    fn num(item: &Item, attr: &str) -> i64 {
        item.get(attr)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// Two customers, three orders, lines sharing SKUs across orders.
    async fn with_orders() -> (Deps, Vec<Item>) {
        let table = testkit::table().await;
        for c in ["ann", "bob"] {
            fixtures::customer(&table, c).await;
        }
        let orders = [
            (
                "ann",
                1_790_000_000_000u64,
                vec![(1u64, 2u32, 100i64), (2, 1, 250)],
            ),
            ("ann", 1_790_100_000_000, vec![(1, 3, 100)]),
            ("bob", 1_790_000_500_000, vec![(2, 4, 250), (3, 1, 999)]),
        ];
        for (c, ms, lines) in orders {
            fixtures::order(&table, c, ms, &lines).await;
        }
        let sources = all_items(&table)
            .await
            .into_iter()
            .filter(|i| matches!(i["Type"].as_s().unwrap().as_str(), "Order" | "OrderItem"))
            .collect();
        let deps = Deps::new(table, crate::NEEDS, testkit::TEST_CURSOR_KEY, SHARDS).unwrap();
        (deps, sources)
    }

    fn inserts(sources: &[Item]) -> Vec<Value> {
        sources
            .iter()
            .enumerate()
            .map(|(i, item)| stream_record(&format!("ev{i}"), i as u64 + 1, C::Insert(item)))
            .collect()
    }

    /// (customer → (count, value), sku → units, day → (orders, revenue)), read from the table.
    async fn derived(
        table: &Table,
    ) -> (
        BTreeMap<String, (i64, i64)>,
        BTreeMap<i64, i64>,
        BTreeMap<String, (i64, i64)>,
    ) {
        let (mut customers, mut sales, mut days) =
            (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
        for item in all_items(table).await {
            match item["Type"].as_s().unwrap().as_str() {
                "Customer" => {
                    customers.insert(
                        item["CustomerId"].as_s().unwrap().clone(),
                        (num(&item, "OrderCount"), num(&item, "LifetimeValue")),
                    );
                }
                "ProductSales" => {
                    *sales.entry(num(&item, "Sku")).or_default() += num(&item, "UnitsSold")
                }
                "DailyStats" => {
                    let e: &mut (i64, i64) = days
                        .entry(item["Date"].as_s().unwrap().clone())
                        .or_default();
                    e.0 += num(&item, "Orders");
                    e.1 += num(&item, "Revenue");
                }
                _ => {}
            }
        }
        (customers, sales, days)
    }

    fn expected() -> (
        BTreeMap<String, (i64, i64)>,
        BTreeMap<i64, i64>,
        BTreeMap<String, (i64, i64)>,
    ) {
        let customers = BTreeMap::from([
            ("ann".to_owned(), (2, 200 + 250 + 300)),
            ("bob".to_owned(), (1, 1000 + 999)),
        ]);
        let sales = BTreeMap::from([(1, 5), (2, 5), (3, 1)]);
        let days = BTreeMap::from([
            ("2026-09-21".to_owned(), (2, 450 + 1999)),
            ("2026-09-22".to_owned(), (1, 300)),
        ]);
        (customers, sales, days)
    }

    #[tokio::test]
    async fn inserts_are_counted_once_under_replays_duplicates_and_bisection() {
        let (deps, sources) = with_orders().await;
        let records = inserts(&sources);
        // A bisected retry: the first half alone, then the whole batch again.
        let half = stream_event(records[..records.len() / 2].to_vec());
        let (r, _) = handle_counted(&deps, &half).await;
        assert!(r.batch_item_failures.is_empty());
        let (r, applied) = handle_counted(&deps, &stream_event(records.clone())).await;
        assert!(r.batch_item_failures.is_empty());
        assert!(applied.already_applied > 0);
        assert_eq!(derived(&deps.table).await, expected());

        // The same batch replayed, and a batch with a record delivered twice: nothing changes,
        // and nothing is written.
        let (r, applied) = handle_counted(&deps, &stream_event(records.clone())).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!((applied.target_writes, applied.ledger_writes), (0, 0));
        let mut doubled = records.clone();
        doubled.push(records[0].clone());
        handle_counted(&deps, &stream_event(doubled)).await;
        assert_eq!(derived(&deps.table).await, expected());
    }

    #[tokio::test]
    async fn one_write_per_touched_target_per_batch() {
        let (deps, sources) = with_orders().await;
        let (_, applied) = handle_counted(&deps, &stream_event(inserts(&sources))).await;
        let targets = all_items(&deps.table)
            .await
            .iter()
            .filter(|i| {
                matches!(
                    i["Type"].as_s().unwrap().as_str(),
                    "ProductSales" | "DailyStats"
                )
            })
            .count()
            + 2; // the two customers
        assert_eq!(applied.target_writes, targets);
        // 3 summaries touch a customer and a day; 5 lines touch a product shard.
        assert_eq!(applied.ledger_writes, 3 * 2 + 5);
    }

    #[tokio::test]
    async fn modify_is_a_delta_and_removals_ttl_included_subtract() {
        let (deps, sources) = with_orders().await;
        handle_counted(&deps, &stream_event(inserts(&sources))).await;
        let line = sources
            .iter()
            .find(|i| i["Type"].as_s().unwrap() == "OrderItem" && num(i, "Sku") == 3)
            .unwrap();
        let mut more = line.clone();
        more.insert("Quantity".into(), AttributeValue::N("4".into()));
        let summary = sources
            .iter()
            .find(|i| {
                i["Type"].as_s().unwrap() == "Order" && i["CustomerId"].as_s().unwrap() == "bob"
            })
            .unwrap();
        let batch = stream_event(vec![
            stream_record("m1", 100, C::Modify(line, &more)),
            stream_record("t1", 101, C::TtlRemove(summary)),
        ]);
        let (r, _) = handle_counted(&deps, &batch).await;
        assert!(r.batch_item_failures.is_empty());
        let (customers, sales, _) = derived(&deps.table).await;
        assert_eq!(sales[&3], 4, "1 unit, then 4");
        assert_eq!(customers["bob"], (0, 0));
        // Replaying the modify does not add again.
        handle_counted(&deps, &batch).await;
        assert_eq!(derived(&deps.table).await.1[&3], 4);
    }

    #[tokio::test]
    async fn a_failed_write_is_reported_never_acknowledged_and_exact_after_the_retry() {
        let (deps, sources) = with_orders().await;
        let records = inserts(&sources);
        // Break every shard of SKU 2: its counter holds a string, so ADD fails there only.
        for shard in keys::Shard::all(SHARDS) {
            let key = k::product_sales(fixtures::sku(2), shard);
            let mut item = model::key_item(&key);
            item.insert("UnitsSold".into(), AttributeValue::S("broken".into()));
            deps.table
                .client()
                .put_item()
                .table_name(deps.table.name())
                .set_item(Some(item))
                .send()
                .await
                .unwrap();
        }
        let event = stream_event(records.clone());
        let (r, _) = handle_counted(&deps, &event).await;
        let sku2: Vec<String> = sources
            .iter()
            .enumerate()
            .filter(|(_, i)| i["Type"].as_s().unwrap() == "OrderItem" && num(i, "Sku") == 2)
            .map(|(n, _)| format!("{:021}", n + 1))
            .collect();
        let mut reported: Vec<String> = r
            .failed_sequence_numbers()
            .into_iter()
            .map(str::to_owned)
            .collect();
        reported.sort();
        assert_eq!(reported, sku2, "exactly the records whose write failed");

        // Repair, then Lambda retries from the first failure (here: the whole batch again).
        for shard in keys::Shard::all(SHARDS) {
            let key = k::product_sales(fixtures::sku(2), shard);
            deps.table.delete(&key, None).await.unwrap();
        }
        let (r, _) = handle_counted(&deps, &event).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(derived(&deps.table).await, expected());
    }

    #[tokio::test]
    async fn a_poison_record_goes_to_the_failure_destination_and_blocks_nothing() {
        let (deps, sources) = with_orders().await;
        let mut records = inserts(&sources);
        let mut poison = records[0].clone();
        poison["eventID"] = "poison".into();
        poison["dynamodb"]["NewImage"] =
            serde_json::json!({ "Type": { "S": "OrderItem" }, "Sku": { "S": "not a number" } });
        records.insert(1, poison);
        let event = stream_event(records.clone());
        let (r, _) = handle_counted(&deps, &event).await;
        assert!(r.failed_sequence_numbers().is_empty(), "not retried");
        assert_eq!(r.poison.iter().map(|p| p.index).collect::<Vec<_>>(), [1]);
        assert_eq!(derived(&deps.table).await, expected());

        // Delivered to the failure destination, then acknowledged.
        let file = std::env::temp_dir().join(format!("dead-letters-{}.jsonl", ulid::Ulid::new()));
        let sink = streams::DeadLetters::at(&format!("file://{}", file.display()))
            .await
            .unwrap();
        let answer = sink.settle(&event, r.clone()).await;
        assert!(answer.batch_item_failures.is_empty());
        let lines = std::fs::read_to_string(&file).unwrap();
        let sent: Vec<serde_json::Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0]["record"]["eventID"], "poison");
        assert!(
            sent[0]["reason"]
                .as_str()
                .unwrap()
                .contains("does not decode"),
            "{}",
            sent[0]
        );

        // A destination that cannot be written: the record is retried like a failed write.
        let nowhere = streams::DeadLetters::at("file:///proc/no/such/dir/x.jsonl")
            .await
            .unwrap();
        let answer = nowhere.settle(&event, r).await;
        assert_eq!(
            answer.failed_sequence_numbers(),
            [records[1]["dynamodb"]["SequenceNumber"].as_str().unwrap()]
        );
    }
}
