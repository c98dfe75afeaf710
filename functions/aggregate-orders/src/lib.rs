//! Stream handler (orders → counters). From order summaries (`Type = Order`) and order lines
//! (`Type = OrderItem`), inserted, modified or removed (TTL removals included):
//! - the customer's `OrderCount` and `LifetimeValue` (cents) on its A record;
//! - units sold and revenue per product, on `AGGREGATE_SHARDS` write shards;
//! - site-wide orders and revenue per day (UTC), on `AGGREGATE_SHARDS` write shards.
//!
//! Each record becomes deltas (a modify is new minus old); `store::aggregate::apply` coalesces
//! them into one write per touched target and makes each record count exactly once.

use std::collections::BTreeMap;

use keys::{
    Date, Id, code_point_shard,
    commerce::{self as k, types},
    derived,
};
use store::{
    Table,
    aggregate::{Applied, Contribution},
    aws_sdk_dynamodb::types::AttributeValue,
    commerce::{OrderLine, OrderSummary},
};
use streams::{BatchResponse, Change, Event};

pub struct Deps {
    pub table: Table,
    /// Write shards per sharded counter (`AGGREGATE_SHARDS`).
    pub shards: u32,
}

pub async fn handle(deps: &Deps, event: &Event) -> BatchResponse {
    handle_counted(deps, event).await.0
}

/// The handler, also returning what it wrote (for tests and the benchmark).
pub async fn handle_counted(deps: &Deps, event: &Event) -> (BatchResponse, Applied) {
    streams::aggregate_batch(&deps.table, event, |change| {
        contributions_of(change, deps.shards)
    })
    .await
}

fn contributions_of(change: &Change<'_>, shards: u32) -> Result<Vec<Contribution>, String> {
    match change.type_name() {
        Some(types::ORDER_SUMMARY) => {
            let old: Option<OrderSummary> = change.old().map_err(|e| e.to_string())?;
            let new: Option<OrderSummary> = change.new().map_err(|e| e.to_string())?;
            order_contributions(change, old, new, shards)
        }
        Some(types::ORDER_LINE) => {
            let old: Option<OrderLine> = change.old().map_err(|e| e.to_string())?;
            let new: Option<OrderLine> = change.new().map_err(|e| e.to_string())?;
            line_contributions(change, old, new, shards)
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
) -> Result<Vec<Contribution>, String> {
    let Some(any) = new.as_ref().or(old.as_ref()) else {
        return Ok(Vec::new());
    };
    let count = presence(&new) - presence(&old);
    let value = new.as_ref().map_or(0, |o| o.total) - old.as_ref().map_or(0, |o| o.total);
    let customer = Id::parse("customerId", &any.customer_id).map_err(|e| e.to_string())?;
    let date = any
        .created_at
        .get(..10)
        .and_then(|d| Date::parse_iso(d).ok())
        .ok_or_else(|| format!("CreatedAt {:?} has no date", any.created_at))?;
    let shard = code_point_shard(&any.order_id, shards);
    Ok(vec![
        Contribution {
            record: change.index,
            event_id: change.event_id.clone(),
            target: k::customer(&customer),
            target_type: types::CUSTOMER,
            must_exist: true,
            adds: BTreeMap::from([("OrderCount", count), ("LifetimeValue", value)]),
            labels: BTreeMap::new(),
        },
        Contribution {
            record: change.index,
            event_id: change.event_id.clone(),
            target: derived::daily_stats(date, shard),
            target_type: derived::types::DAILY_STATS,
            must_exist: false,
            adds: BTreeMap::from([("Orders", count), ("Revenue", value)]),
            labels: BTreeMap::from([
                ("Date", AttributeValue::S(date.iso())),
                ("Shard", AttributeValue::N(shard.number().to_string())),
            ]),
        },
    ])
}

fn line_contributions(
    change: &Change<'_>,
    old: Option<OrderLine>,
    new: Option<OrderLine>,
    shards: u32,
) -> Result<Vec<Contribution>, String> {
    let Some(any) = new.as_ref().or(old.as_ref()) else {
        return Ok(Vec::new());
    };
    let units = new.as_ref().map_or(0, |l| i64::from(l.quantity))
        - old.as_ref().map_or(0, |l| i64::from(l.quantity));
    let revenue = new
        .as_ref()
        .map_or(0, |l| i64::from(l.quantity) * l.unit_price)
        - old
            .as_ref()
            .map_or(0, |l| i64::from(l.quantity) * l.unit_price);
    // The shard comes from the source record, so a retry lands on the same shard.
    let shard = code_point_shard(&any.order_id, shards);
    Ok(vec![Contribution {
        record: change.index,
        event_id: change.event_id.clone(),
        target: k::product_sales(any.sku, shard).map_err(|e| e.to_string())?,
        target_type: types::PRODUCT_SALES,
        must_exist: false,
        adds: BTreeMap::from([("UnitsSold", units), ("Revenue", revenue)]),
        labels: BTreeMap::from([
            ("Sku", AttributeValue::N(any.sku.to_string())),
            ("Shard", AttributeValue::N(shard.number().to_string())),
        ]),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::SortableId;
    use serde_json::Value;
    use store::{
        commerce::{NewOrder, place_order, put_customer},
        item::Item,
    };
    use testkit::{Change as C, all_items, stream_event, stream_record};

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
            put_customer(
                &table,
                &Id::parse("c", c).unwrap(),
                c,
                "x@example.com",
                "2026-01-01T00:00:00.000Z",
            )
            .await
            .unwrap();
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
            let o = NewOrder {
                customer: Id::parse("c", c).unwrap(),
                order_id: SortableId::at_ms(ms),
                created_at: keys::iso_timestamp(ms).unwrap(),
                lines,
            };
            place_order(&table, &o, None).await.unwrap();
        }
        let sources = all_items(&table)
            .await
            .into_iter()
            .filter(|i| matches!(i["Type"].as_s().unwrap().as_str(), "Order" | "OrderItem"))
            .collect();
        (
            Deps {
                table,
                shards: SHARDS,
            },
            sources,
        )
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
            let key = k::product_sales(2, shard).unwrap();
            let mut item = store::item::key_map(&key);
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
            let key = k::product_sales(2, shard).unwrap();
            deps.table
                .client()
                .delete_item()
                .table_name(deps.table.name())
                .set_key(Some(store::item::key_map(&key)))
                .send()
                .await
                .unwrap();
        }
        let (r, _) = handle_counted(&deps, &event).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(derived(&deps.table).await, expected());
    }

    #[tokio::test]
    async fn a_poison_record_is_reported_and_does_not_block_the_rest() {
        let (deps, sources) = with_orders().await;
        let mut records = inserts(&sources);
        let mut poison = records[0].clone();
        poison["eventID"] = "poison".into();
        poison["dynamodb"]["NewImage"] =
            serde_json::json!({ "Type": { "S": "OrderItem" }, "Sku": { "S": "not a number" } });
        records.insert(1, poison);
        let (r, _) = handle_counted(&deps, &stream_event(records.clone())).await;
        assert_eq!(
            r.failed_sequence_numbers(),
            [records[1]["dynamodb"]["SequenceNumber"].as_str().unwrap()]
        );
        assert_eq!(derived(&deps.table).await, expected());
    }
}
