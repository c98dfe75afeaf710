//! Orders and inventories → counters (part of the commerce stream consumer). From order
//! summaries (`Type = Order`), order lines (`Type = OrderItem`) and inventories
//! (`Type = Inventory`), inserted, modified or removed (TTL removals included):
//! - the customer's `OrderCount` and `LifetimeValue` (cents) on its A record;
//! - units sold and revenue per product, on `AGGREGATE_SHARDS` write shards;
//! - site-wide orders and revenue per day (UTC), on `AGGREGATE_SHARDS` write shards (a batch
//!   writes the shard of its stream shard, `Lane::counter_shard`);
//! - the account rep's order count and total (cents) in the order's quarter, ranked by total in
//!   GSI1 (O14), for orders placed under a rep;
//! - a product's total inventory over all warehouses, on the product's own record (O13).
//!
//! Each record becomes deltas (a modify is new minus old); `store::aggregate::apply` coalesces
//! them into one write per touched target and makes each record count exactly once.
//!
//! Every sum counts an order while it is a sale (`Order::is_sale`: not cancelled or returned): a
//! status change that turns it into or out of one moves the customer's, the day's and the rep's
//! sums from the summary's images, and the products' from the order's lines, read then.

use std::collections::BTreeMap;

use futures::StreamExt;
use keys::{
    Quarter, Shard,
    commerce::{self as k, OrderId},
    derived,
};
use model::{
    Entity,
    commerce::{Customer, Inventory, OrderLine, OrderSummary, Product, ProductSales, RepSales},
    derived::DailyStats,
    n, s,
};
use store::{
    Deps,
    aggregate::{Applied, Contribution, Ranked, targets_in_flight},
};
use stream_handler::{BatchResponse, Change, Event, Failures};

/// The items whose changes move the totals: the consumer's sources but the status part's.
fn owns() -> Vec<&'static str> {
    let status = super::status::SOURCE;
    let all = super::CONSUMER.types();
    all.into_iter().filter(|t| *t != status).collect()
}

/// The order totals of a batch, and what was written (for logs, tests and the benchmark).
pub async fn handle_counted(deps: &Deps, event: &Event) -> (BatchResponse, Applied) {
    let (lines, unread) = lines_of_turned_orders(deps, event).await;
    let owns = owns();
    let (response, applied) =
        stream_handler::aggregate_batch(deps, event, &super::CONSUMER, &owns, |change, shard| {
            contributions_of(change, shard, &lines)
        })
        .await;
    // Their products' share waits for a retry (what the records did apply, the targets' marks
    // skip then), or, when their lines do not decode, for a repair: they are poison.
    let unread = unread.response(event);
    (BatchResponse::union(event, [response, unread]), applied)
}

/// The order summaries of the batch that stop or start being a sale (a status change, both images
/// present), and the lines of their orders, read once per order. Lines are written once, with
/// their order, so the lines read are the lines whose INSERTs added to the products' sales,
/// whichever of those records is applied first. Also the changes whose order's lines could not be
/// read: retried, or poison if the lines do not decode.
async fn lines_of_turned_orders(
    deps: &Deps,
    event: &Event,
) -> (BTreeMap<OrderId, Vec<OrderLine>>, Failures) {
    let mut turned: BTreeMap<OrderId, Vec<usize>> = BTreeMap::new();
    for change in stream_handler::changes(event, &[OrderSummary::TYPE])
        .into_iter()
        .flatten()
    {
        // An image that does not decode is the aggregation's poison, not a read to make.
        if let (Ok(old), Ok(new)) = (
            change.old_image::<OrderSummary>(),
            change.new_image::<OrderSummary>(),
        ) && enters_or_leaves_sale(&old, &new)
            && let Some(OrderSummary(order)) = &new
        {
            turned.entry(order.order_id).or_default().push(change.index);
        }
    }
    let reads: Vec<_> = turned
        .keys()
        .copied()
        .map(|order| async move {
            // Strongly consistent: an eventually consistent read may miss lines of the order's
            // transaction (DynamoDB answers it read-committed, not all at once), and a line
            // missed here stays counted in its product's sales after a cancellation.
            let lines = deps.table.query(k::order_lines(order)).consistent();
            let page = lines.send_all().await;
            (order, page.and_then(|p| p.decode::<OrderLine>()))
        })
        .collect();
    let mut lines = BTreeMap::new();
    let mut unread = Failures::default();
    let mut reads = futures::stream::iter(reads).buffer_unordered(targets_in_flight());
    while let Some((order, read)) = reads.next().await {
        match read {
            Ok(page) => {
                lines.insert(order, page.items);
            }
            Err(e) => unread.store_error(
                turned.get(&order).into_iter().flatten().copied(),
                &format!("reading order {order}'s lines"),
                &e,
            ),
        }
    }
    (lines, unread)
}

/// A record's contributions; `shard` is the counters' shard of the batch's lane.
fn contributions_of(
    change: &Change<'_>,
    shard: Shard,
    lines: &BTreeMap<OrderId, Vec<OrderLine>>,
) -> Result<Vec<Contribution>, String> {
    match change.type_name() {
        Some(OrderSummary::TYPE) => {
            let old = change
                .old_image::<OrderSummary>()
                .map_err(|e| e.to_string())?;
            let new = change
                .new_image::<OrderSummary>()
                .map_err(|e| e.to_string())?;
            order_contributions(change, old, new, shard, lines)
        }
        Some(OrderLine::TYPE) => {
            let old = change.old_image::<OrderLine>().map_err(|e| e.to_string())?;
            let new = change.new_image::<OrderLine>().map_err(|e| e.to_string())?;
            line_contributions(change, old, new, shard)
        }
        Some(Inventory::TYPE) => {
            let old = change.old_image::<Inventory>().map_err(|e| e.to_string())?;
            let new = change.new_image::<Inventory>().map_err(|e| e.to_string())?;
            Ok(inventory_contributions(change, old, new))
        }
        // Other types are filtered out before they reach this function (FilterCriteria).
        _ => Ok(Vec::new()),
    }
}

/// 1 for an image that is there, 0 for none: what an image adds to a count.
fn one_if_present<T>(o: &Option<T>) -> i64 {
    i64::from(o.is_some())
}

/// `new - old` of two stored amounts (an absent image counts 0), or why it cannot be counted: a
/// difference beyond `i64` means a corrupt number, and its record is poison, never a wrapped
/// delta written as if it were right.
fn delta(new: Option<i64>, old: Option<i64>, what: &str) -> Result<i64, String> {
    let (new, old) = (new.unwrap_or(0), old.unwrap_or(0));
    new.checked_sub(old)
        .ok_or_else(|| format!("{what}: {new} - {old} overflows"))
}

/// A line's amount (quantity × unit price), or why it cannot be counted (see [`delta`]).
fn amount(line: &OrderLine) -> Result<i64, String> {
    line.amount().ok_or_else(|| {
        format!(
            "order {} line {}: {} × {} overflows",
            line.order_id, line.sku, line.quantity, line.unit_price
        )
    })
}

/// The image, if it is there and counts as a sale (`Order::is_sale`); `None` otherwise.
fn as_sale(o: &Option<OrderSummary>) -> Option<&OrderSummary> {
    o.as_ref().filter(|o| o.0.is_sale())
}

/// Whether a change of an existing summary (both images there) turns its order into a sale or
/// out of one: then its lines' share of the products' sales moves too.
fn enters_or_leaves_sale(old: &Option<OrderSummary>, new: &Option<OrderSummary>) -> bool {
    matches!((old, new), (Some(o), Some(n)) if o.0.is_sale() != n.0.is_sale())
}

fn order_contributions(
    change: &Change<'_>,
    old: Option<OrderSummary>,
    new: Option<OrderSummary>,
    shard: Shard,
    lines: &BTreeMap<OrderId, Vec<OrderLine>>,
) -> Result<Vec<Contribution>, String> {
    let Some(OrderSummary(any)) = new.as_ref().or(old.as_ref()) else {
        return Ok(Vec::new());
    };
    // An image counts while it is a sale: a cancellation or return (a MODIFY of `Status`, from
    // the status projection) subtracts the order as a removal would, and a later event that
    // makes it a sale again adds it back. Other status changes move nothing and write nothing.
    let (new_sale, old_sale) = (as_sale(&new), as_sale(&old));
    let count = one_if_present(&new_sale) - one_if_present(&old_sale);
    let value = delta(
        new_sale.map(|o| o.0.total),
        old_sale.map(|o| o.0.total),
        "Total",
    )?;
    let date = any.created_at.date();
    let customer = k::customer(&any.customer_id);
    let customer_adds = [
        (Customer::ORDER_COUNT, count),
        (Customer::LIFETIME_VALUE, value),
    ];
    let stats = derived::daily_stats(date, shard);
    let stats_adds = [(DailyStats::ORDERS, count), (DailyStats::REVENUE, value)];
    let stats_labels = [
        (DailyStats::DATE, s(date.iso())),
        (DailyStats::SHARD, n(shard.number())),
    ];
    let mut out = vec![
        change
            .contribution(customer, Customer::TYPE, customer_adds)
            .to_existing(),
        change
            .contribution(stats, DailyStats::TYPE, stats_adds)
            .labelled(stats_labels),
    ];
    // Its products' sales follow too: each line's units and amount, taken out or put back (the
    // lines read for this batch; an order whose lines could not be read is retried).
    if enters_or_leaves_sale(&old, &new) {
        for line in lines.get(&any.order_id).into_iter().flatten() {
            // `count` is -1 or 1 here; a quantity is a u32: only the amount can overflow.
            let revenue = count.checked_mul(amount(line)?).ok_or_else(|| {
                format!(
                    "order {} line {}: revenue overflows",
                    line.order_id, line.sku
                )
            })?;
            out.push(product_sales(
                change,
                line,
                count * i64::from(line.quantity),
                revenue,
                shard,
            ));
        }
    }
    // The rep the order was placed under is part of the order and never changes: old and new
    // images name the same one.
    if let Some(rep) = &any.account_rep_id {
        let period = Quarter::of(date);
        let adds = [(RepSales::TOTAL, value), (RepSales::ORDER_COUNT, count)];
        let labels = [
            (RepSales::PERIOD, s(period.to_string())),
            (RepSales::REP_ID, s(rep.as_str())),
        ];
        let ranked = {
            let rep = rep.clone();
            Ranked::new(RepSales::TOTAL, move |total| {
                k::rep_ranking_index(period, total, &rep)
            })
        };
        let sales = k::rep_sales(period, rep);
        out.push(
            change
                .contribution(sales, RepSales::TYPE, adds)
                .labelled(labels)
                .ranked(ranked),
        );
    }
    Ok(out)
}

/// A product's total inventory: new quantity minus old, on the product's record (which an
/// inventory requires: it is checked when the inventory is written).
fn inventory_contributions(
    change: &Change<'_>,
    old: Option<Inventory>,
    new: Option<Inventory>,
) -> Vec<Contribution> {
    let Some(any) = new.as_ref().or(old.as_ref()) else {
        return Vec::new();
    };
    // Quantities are u32s: their difference fits an i64 whatever is stored.
    let quantity = |i: &Option<Inventory>| i.as_ref().map_or(0, |i| i64::from(i.quantity));
    let adds = [(Product::TOTAL_INVENTORY, quantity(&new) - quantity(&old))];
    vec![
        change
            .contribution(k::product(any.sku), Product::TYPE, adds)
            .to_existing(),
    ]
}

fn line_contributions(
    change: &Change<'_>,
    old: Option<OrderLine>,
    new: Option<OrderLine>,
    shard: Shard,
) -> Result<Vec<Contribution>, String> {
    let Some(any) = new.as_ref().or(old.as_ref()) else {
        return Ok(Vec::new());
    };
    // Quantities are u32s: their difference fits an i64 whatever is stored.
    let units = new.as_ref().map_or(0, |l| i64::from(l.quantity))
        - old.as_ref().map_or(0, |l| i64::from(l.quantity));
    let revenue = delta(
        new.as_ref().map(amount).transpose()?,
        old.as_ref().map(amount).transpose()?,
        "Revenue",
    )?;
    Ok(vec![product_sales(change, any, units, revenue, shard)])
}

/// Units and revenue added to the product of `line`, on `shard` (the batch's lane's).
fn product_sales(
    change: &Change<'_>,
    line: &OrderLine,
    units: i64,
    revenue: i64,
    shard: Shard,
) -> Contribution {
    let adds = [
        (ProductSales::UNITS_SOLD, units),
        (ProductSales::REVENUE, revenue),
    ];
    let labels = [
        (ProductSales::SKU, n(line.sku.get())),
        (ProductSales::SHARD, n(shard.number())),
    ];
    let target = k::product_sales(line.sku, shard);
    change
        .contribution(target, ProductSales::TYPE, adds)
        .labelled(labels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use model::Item;
    use serde_json::Value;
    use store::{Table, aws_sdk_dynamodb::types::AttributeValue};
    use testkit::{Change as C, all_items, stream_event, stream_record};

    const SHARDS: u32 = 4;

    fn num(item: &Item, attr: &str) -> i64 {
        item.get(attr)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// The stream consumer's dependencies on `table`, with [`SHARDS`] write shards.
    fn consumer_deps(table: Table) -> Deps {
        Deps::new(
            table,
            super::super::CONSUMER.needs,
            testkit::TEST_CURSOR_KEY,
            SHARDS,
        )
        .unwrap()
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
        let deps = consumer_deps(table);
        (deps, sources)
    }

    fn inserts(sources: &[Item]) -> Vec<Value> {
        sources
            .iter()
            .enumerate()
            .map(|(i, item)| stream_record(&format!("ev{i}"), i as u64 + 1, C::Insert(item)))
            .collect()
    }

    /// Customer → (count, value), sku → units, day → (orders, revenue).
    type Derived = (
        BTreeMap<String, (i64, i64)>,
        BTreeMap<i64, i64>,
        BTreeMap<String, (i64, i64)>,
    );

    /// The derived totals, read from the table.
    async fn derived(table: &Table) -> Derived {
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

    fn expected() -> Derived {
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
        assert_eq!((applied.target_writes, applied.already_applied), (0, 11));
        let mut doubled = records.clone();
        doubled.push(records[0].clone());
        handle_counted(&deps, &stream_event(doubled)).await;
        assert_eq!(derived(&deps.table).await, expected());
    }

    /// What Lambda does after a partial failure: one target's write failed (here: undone, as
    /// if it never landed), the batch's other writes landed, and the retry starts at the first
    /// record that target counts, with every record after it again. Then a function error's
    /// bisection (the second half again, then the first) and a record of an earlier batch in a
    /// later one: each record counts once.
    #[tokio::test]
    async fn retries_from_any_record_and_redeliveries_count_each_record_once() {
        let (deps, sources) = with_orders().await;
        let records = inserts(&sources);
        let n = records.len();
        let batch = |r: &[Value]| stream_event(r.to_vec());
        let ann = k::customer(&fixtures::id("ann"));
        let before = deps
            .table
            .get_item(&ann, store::Read::Strong, None)
            .await
            .unwrap()
            .unwrap();
        handle_counted(&deps, &batch(&records)).await;
        deps.table.put_item(before, None).await.unwrap();
        let (r, applied) = handle_counted(&deps, &batch(&records)).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(applied.target_writes, 1, "ann's only: {applied:?}");
        assert_eq!(derived(&deps.table).await, expected());
        // Bisected: the second half again, then the first: nothing moves.
        handle_counted(&deps, &batch(&records[n / 2..])).await;
        handle_counted(&deps, &batch(&records[..n / 2])).await;
        // An early record again, in a batch of its own and beside a later one.
        handle_counted(&deps, &batch(&records[..1])).await;
        let (r, applied) =
            handle_counted(&deps, &batch(&[records[2].clone(), records[n - 1].clone()])).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(applied.target_writes, 0, "{applied:?}");
        assert_eq!(derived(&deps.table).await, expected());
    }

    /// A shard closed and followed by its child: the child's records (new sequence numbers of
    /// their own, maybe lower than the parent's) are counted, the parent's records delivered
    /// again are not, and a target the child writes drops the parent's mark.
    #[tokio::test]
    async fn a_child_shard_after_its_parent_counts_its_records_and_drops_the_parents_mark() {
        let (deps, sources) = with_orders().await;
        let records = inserts(&sources);
        let (parent, child) = ("shardId-parent", "shardId-child");
        stream_handler::lineage::remember(testkit::TEST_STREAM_ARN, child, Some(parent));
        let on = |shard: &str, r: &[Value]| testkit::stream_event_of::<Event>(shard, r.to_vec());
        // The parent carried the first records; the child the others, numbered from 1 again.
        let split = records.len() - 2;
        handle_counted(&deps, &on(parent, &records[..split])).await;
        let renumbered: Vec<Value> = sources[split..]
            .iter()
            .enumerate()
            .map(|(i, item)| stream_record(&format!("c{i}"), i as u64 + 1, C::Insert(item)))
            .collect();
        let (r, _) = handle_counted(&deps, &on(child, &renumbered)).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(derived(&deps.table).await, expected());
        let marks_of = |item: &Item| -> Vec<String> {
            item.keys()
                .filter(|a| store::aggregate::is_mark(a))
                .cloned()
                .collect()
        };
        let mut written_by_child = 0;
        for item in all_items(&deps.table).await {
            let marks = marks_of(&item);
            if marks.contains(&mark_attribute(child)) {
                written_by_child += 1;
                assert_eq!(
                    marks,
                    [mark_attribute(child)],
                    "the parent's mark is gone: {item:?}"
                );
            }
        }
        assert!(written_by_child > 0);
    }

    /// The attribute of this consumer's mark for stream shard `shard` of the tests' stream.
    fn mark_attribute(shard: &str) -> String {
        store::aggregate::Lane::new(super::super::CONSUMER.name, testkit::TEST_STREAM_ARN, shard)
            .attribute()
    }

    /// A target's mark older than 25 hours goes with its next write.
    #[tokio::test]
    async fn marks_older_than_a_day_go_with_the_next_write() {
        let (deps, sources) = with_orders().await;
        let records = inserts(&sources);
        let on = |shard: &str, r: &[Value]| testkit::stream_event_of::<Event>(shard, r.to_vec());
        handle_counted(&deps, &on("old", &records[..1])).await;
        // That shard's marks made 26 hours old, as if written then.
        let now = stream_handler::now_epoch();
        for mut item in all_items(&deps.table).await {
            if item.keys().any(|a| store::aggregate::is_mark(a)) {
                store::aggregate::marks_as_of(&mut item, now - 26 * 3600);
                deps.table.put_item(item, None).await.unwrap();
            }
        }
        handle_counted(&deps, &on("new", &records[1..])).await;
        assert_eq!(derived(&deps.table).await, expected());
        let written_again: Vec<Item> = all_items(&deps.table)
            .await
            .into_iter()
            .filter(|i| i.contains_key(&mark_attribute("new")))
            .collect();
        assert!(
            written_again
                .iter()
                .any(|i| i["Type"].as_s().unwrap() == "Customer"),
            "ann was written by both"
        );
        for item in written_again {
            assert!(!item.contains_key(&mark_attribute("old")), "{item:?}");
        }
    }

    /// The same batch handed to two invocations at once (a retry racing a slow attempt) counts
    /// once: each target's write is conditioned on its mark, so one of the two writes wins.
    #[tokio::test]
    async fn one_batch_delivered_twice_at_once_counts_once() {
        let (deps, sources) = with_orders().await;
        let event = stream_event(inserts(&sources));
        let (a, b) = futures::join!(handle_counted(&deps, &event), handle_counted(&deps, &event));
        assert!(a.0.batch_item_failures.is_empty() && b.0.batch_item_failures.is_empty());
        assert_eq!(derived(&deps.table).await, expected());
    }

    /// Without its shard (a mapping without a tumbling window), no record can be counted exactly
    /// once: the batch is retried whole and nothing is written.
    #[tokio::test]
    async fn a_batch_that_names_no_shard_is_retried_and_writes_nothing() {
        let (deps, sources) = with_orders().await;
        let records = inserts(&sources);
        let plain: Event =
            serde_json::from_value(serde_json::json!({ "Records": records })).unwrap();
        deps.table.meter().reset();
        let (r, _) = handle_counted(&deps, &plain).await;
        assert_eq!(r.batch_item_failures.len(), records.len());
        assert!(
            deps.table
                .meter()
                .requests()
                .iter()
                .all(|q| q.write_units == 0.0),
            "nothing written"
        );
    }

    #[tokio::test]
    async fn one_write_per_touched_target_per_batch() {
        let (deps, sources) = with_orders().await;
        deps.table.meter().reset();
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
        // And nothing else: one UpdateItem a target, no transaction, no ledger.
        let writes: Vec<_> = deps
            .table
            .meter()
            .requests()
            .iter()
            .filter(|r| r.write_units > 0.0 || r.operation != "Query")
            .map(|r| r.operation)
            .collect();
        assert_eq!(writes, vec!["UpdateItem"; targets]);
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

    /// Stored numbers whose delta does not fit an i64 (a total of i64::MIN, a line of u32::MAX
    /// units at i64::MAX cents): their records are poison, never a panic (debug builds) nor a
    /// wrapped delta written as if it were right (release builds); the records around them count.
    #[tokio::test]
    async fn a_stored_number_whose_delta_overflows_is_poison_not_a_wrapped_sum() {
        let (deps, sources) = with_orders().await;
        handle_counted(&deps, &stream_event(inserts(&sources))).await;
        let of = |ty: &str, attr: &str, value: &str| {
            sources
                .iter()
                .find(|i| {
                    i["Type"].as_s().unwrap() == ty
                        && i[attr].as_s().ok().map(String::as_str) == Some(value)
                })
                .unwrap()
                .clone()
        };
        let summary = of("Order", "CustomerId", "bob");
        let mut corrupt = summary.clone();
        corrupt.insert("Total".into(), AttributeValue::N(i64::MIN.to_string()));
        let mut line = sources
            .iter()
            .find(|i| i["Type"].as_s().unwrap() == "OrderItem" && num(i, "Sku") == 3)
            .unwrap()
            .clone();
        let old_line = line.clone();
        line.insert("Quantity".into(), AttributeValue::N(u32::MAX.to_string()));
        line.insert("UnitPrice".into(), AttributeValue::N(i64::MAX.to_string()));
        let mut more = of("Order", "CustomerId", "ann");
        let ann_total = num(&more, "Total");
        more.insert(
            "Total".into(),
            AttributeValue::N((ann_total + 1).to_string()),
        );
        let batch = stream_event(vec![
            stream_record("m1", 100, C::Modify(&corrupt, &summary)),
            stream_record("m2", 101, C::Modify(&old_line, &line)),
            stream_record(
                "m3",
                102,
                C::Modify(&of("Order", "CustomerId", "ann"), &more),
            ),
        ]);
        let (r, _) = handle_counted(&deps, &batch).await;
        assert!(r.failed_sequence_numbers().is_empty(), "not retried: {r:?}");
        assert_eq!(
            r.poison.iter().map(|p| p.index).collect::<Vec<_>>(),
            [0, 1],
            "{:?}",
            r.poison
        );
        assert!(
            r.poison.iter().all(|p| p.reason.contains("overflows")),
            "{:?}",
            r.poison
        );
        let (customers, sales, _) = derived(&deps.table).await;
        let (want_customers, want_sales, _) = expected();
        assert_eq!(sales, want_sales, "nothing of the poison applied");
        assert_eq!(customers["bob"], want_customers["bob"]);
        let ann = want_customers["ann"];
        assert_eq!(
            customers["ann"],
            (ann.0, ann.1 + 1),
            "the record behind them applied"
        );
    }

    #[tokio::test]
    async fn a_counter_no_write_can_fix_makes_its_records_poison_and_a_replay_after_repair_exact() {
        let (deps, sources) = with_orders().await;
        let records = inserts(&sources);
        // Break every shard of SKU 2: its counter holds a string, so DynamoDB refuses the ADD
        // there (ValidationException), however often it is sent.
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
        assert!(r.failed_sequence_numbers().is_empty(), "no retry can help");
        let mut poison: Vec<String> = r
            .poison
            .iter()
            .map(|p| format!("{:021}", p.index + 1))
            .collect();
        poison.sort();
        assert_eq!(poison, sku2, "exactly the records whose write was refused");

        // Repaired, then the batch replayed (from the failure queue): exact, nothing twice.
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
        let sink = stream_handler::DeadLetters::at(&format!("file://{}", file.display()))
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
        let nowhere = stream_handler::DeadLetters::at("file:///proc/no/such/dir/x.jsonl")
            .await
            .unwrap();
        let answer = nowhere.settle(&event, r).await;
        assert_eq!(
            answer.failed_sequence_numbers(),
            [records[1]["dynamodb"]["SequenceNumber"].as_str().unwrap()]
        );
    }

    /// Every item of `types`, as stream INSERT records (sequence numbers from `first`).
    async fn inserts_of(table: &Table, types: &[&str], first: u64) -> Vec<Value> {
        all_items(table)
            .await
            .into_iter()
            .filter(|i| types.contains(&i["Type"].as_s().unwrap().as_str()))
            .enumerate()
            .map(|(n, item)| {
                let seq = first + n as u64;
                stream_record(&format!("ev{seq}"), seq, C::Insert(&item))
            })
            .collect()
    }

    /// (period, rep) → (total, order count, ranking sort key), read from the table.
    async fn rep_sales(table: &Table) -> BTreeMap<(String, String), (i64, i64, String)> {
        all_items(table)
            .await
            .into_iter()
            .filter(|i| i["Type"].as_s().unwrap() == "RepSales")
            .map(|i| {
                assert_eq!(
                    i["GSI1PK"].as_s().unwrap(),
                    &format!("RANKING#{}", i["Period"].as_s().unwrap())
                );
                (
                    (
                        i["Period"].as_s().unwrap().clone(),
                        i["RepId"].as_s().unwrap().clone(),
                    ),
                    (
                        num(&i, "Total"),
                        num(&i, "OrderCount"),
                        i["GSI1SK"].as_s().unwrap().clone(),
                    ),
                )
            })
            .collect()
    }

    /// 2026-09-21 (Q3).
    const SEP_21_2026_MS: u64 = 1_790_000_000_000;
    const DAY_MS: u64 = 86_400_000;

    /// Reps E1 and E2; ann (E1) and bob (E2) order in two quarters, cy (no rep) too.
    async fn with_rep_orders() -> Deps {
        let table = hr::fixtures::org_with(
            testkit::table().await,
            &[("E1", "Ada Lovelace"), ("E2", "Alan Turing")],
        )
        .await;
        fixtures::customer_of_rep(&table, "ann", "E1").await;
        fixtures::customer_of_rep(&table, "bob", "E2").await;
        fixtures::customer(&table, "cy").await;
        let q3 = SEP_21_2026_MS; // 2026-09-21: Q3
        let q4 = SEP_21_2026_MS + 30 * DAY_MS; // 2026-10-21: Q4
        for (c, ms, price) in [
            ("ann", q3, 1000),
            ("ann", q3 + 1, 2000),
            ("ann", q4, 500),
            ("bob", q3 + 2, 3000),
            ("cy", q3 + 3, 700),
        ] {
            fixtures::order(&table, c, ms, &[(1, 1, price)]).await;
        }
        consumer_deps(table)
    }

    #[tokio::test]
    async fn rep_sales_are_exact_and_their_ranking_key_follows_the_total_under_replays() {
        let deps = with_rep_orders().await;
        let records = inserts_of(&deps.table, &["Order"], 1).await;
        // Bisected, then whole, replayed, and with a record delivered twice.
        handle_counted(&deps, &stream_event(records[..2].to_vec())).await;
        for _ in 0..2 {
            let (r, _) = handle_counted(&deps, &stream_event(records.clone())).await;
            assert!(r.batch_item_failures.is_empty());
        }
        let mut doubled = records.clone();
        doubled.push(records[3].clone());
        handle_counted(&deps, &stream_event(doubled)).await;
        let key = |total: u64, rep: &str| format!("{total:019}#{rep}");
        let expected = BTreeMap::from([
            (
                ("2026-Q3".to_owned(), "E1".to_owned()),
                (3000, 2, key(3000, "E1")),
            ),
            (
                ("2026-Q3".to_owned(), "E2".to_owned()),
                (3000, 1, key(3000, "E2")),
            ),
            (
                ("2026-Q4".to_owned(), "E1".to_owned()),
                (500, 1, key(500, "E1")),
            ),
        ]);
        assert_eq!(rep_sales(&deps.table).await, expected, "cy has no rep");
        // Their marks kept aside, one item per rep's quarter and lane, which names the rep's
        // quarter as the repair names its items: none on the quarter's item, copied to GSI1.
        let items = all_items(&deps.table).await;
        let quarters: std::collections::BTreeSet<String> = items
            .iter()
            .filter(|i| i["Type"].as_s().unwrap() == "RepSales")
            .inspect(|i| assert!(!i.keys().any(|a| store::aggregate::is_mark(a)), "{i:?}"))
            .map(|i| {
                let key = |a: &str| keys::escape(i[a].as_s().unwrap());
                format!("{}#{}", key("PK"), key("SK"))
            })
            .collect();
        let marked: std::collections::BTreeSet<String> = items
            .iter()
            .filter_map(store::aggregate::aside_mark)
            .map(|(target, _)| target)
            .collect();
        assert_eq!(marked, quarters);

        // An order removed (TTL): the total drops and the ranking key is rewritten with it.
        let ann_first = all_items(&deps.table)
            .await
            .into_iter()
            .find(|i| {
                i["Type"].as_s().unwrap() == "Order"
                    && i["CustomerId"].as_s().unwrap() == "ann"
                    && num(i, "Total") == 1000
            })
            .unwrap();
        let removal = stream_event(vec![stream_record("gone", 99, C::TtlRemove(&ann_first))]);
        for _ in 0..2 {
            handle_counted(&deps, &removal).await;
        }
        let now = rep_sales(&deps.table).await;
        assert_eq!(
            now[&("2026-Q3".to_owned(), "E1".to_owned())],
            (2000, 1, key(2000, "E1"))
        );
    }

    /// A status change as the status projection writes it: the summary, old and new.
    fn status_change(id: &str, seq: u64, summary: &Item, from: &str, to: &str) -> Value {
        let with = |status: &str| {
            let mut i = summary.clone();
            i.insert("Status".into(), AttributeValue::S(status.into()));
            i
        };
        stream_record(id, seq, C::Modify(&with(from), &with(to)))
    }

    #[tokio::test]
    async fn a_cancelled_or_returned_order_leaves_the_sums_and_comes_back_if_reopened() {
        let deps = with_rep_orders().await;
        let placed = inserts_of(&deps.table, &["Order", "OrderItem"], 1).await;
        handle_counted(&deps, &stream_event(placed)).await;
        // Five orders of one unit of SKU 1 each.
        assert_eq!(derived(&deps.table).await.1[&1], 5);
        let summary = |customer: &str, total: i64| {
            let items = all_items(&deps.table);
            let customer = customer.to_owned();
            async move {
                items
                    .await
                    .into_iter()
                    .find(|i| {
                        i["Type"].as_s().unwrap() == "Order"
                            && i["CustomerId"].as_s().unwrap() == &customer
                            && num(i, "Total") == total
                    })
                    .unwrap()
            }
        };
        let (ann_2000, bob_3000) = (summary("ann", 2000).await, summary("bob", 3000).await);
        let key = |total: u64, rep: &str| format!("{total:019}#{rep}");
        let q3 = |rep: &str| ("2026-Q3".to_owned(), rep.to_owned());

        // Ann's 2000 cancelled, bob's 3000 delivered then returned; replayed: counted once.
        let batch = stream_event(vec![
            status_change("c1", 50, &ann_2000, "PROCESSING", "CANCELLED"),
            status_change("r1", 51, &bob_3000, "DELIVERED", "RETURNED"),
        ]);
        for _ in 0..2 {
            let (r, _) = handle_counted(&deps, &batch).await;
            assert!(r.batch_item_failures.is_empty());
        }
        let sales = rep_sales(&deps.table).await;
        assert_eq!(sales[&q3("E1")], (1000, 1, key(1000, "E1")));
        assert_eq!(sales[&q3("E2")], (0, 0, key(0, "E2")));
        let (customers, units, days) = derived(&deps.table).await;
        assert_eq!(customers["ann"], (2, 1000 + 500));
        assert_eq!(customers["bob"], (0, 0));
        assert_eq!(units[&1], 3, "their lines' units are out of SKU 1's sales");
        // 2026-09-21 had ann's 1000 and 2000, bob's 3000 and cy's 700.
        assert_eq!(days["2026-09-21"], (2, 1000 + 700));

        // One change of the status of ann's 2000, a batch of its own.
        let change_ann_2000 = async |id: &str, seq: u64, from: &str, to: &str| {
            let record = status_change(id, seq, &ann_2000, from, to);
            handle_counted(&deps, &stream_event(vec![record])).await
        };
        // A change between two statuses that are both sales moves nothing and writes nothing.
        let (_, applied) = change_ann_2000("p1", 52, "OPEN", "PROCESSING").await;
        assert_eq!(applied.target_writes, 0);

        // Reopened by a later event: counted again, with its ranking key.
        let (r, _) = change_ann_2000("o1", 53, "CANCELLED", "PROCESSING").await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(
            rep_sales(&deps.table).await[&q3("E1")],
            (3000, 2, key(3000, "E1"))
        );
        let (customers, units, _) = derived(&deps.table).await;
        assert_eq!(customers["ann"], (3, 3500));
        assert_eq!(units[&1], 4);
    }

    /// The item of `type_name` whose `attr` is `value`, as the table holds it.
    async fn item_where(
        table: &Table,
        type_name: &str,
        attr: &str,
        value: &AttributeValue,
    ) -> Item {
        all_items(table)
            .await
            .into_iter()
            .find(|i| i["Type"].as_s().unwrap() == type_name && i.get(attr) == Some(value))
            .unwrap_or_else(|| panic!("a {type_name} with {attr} = {value:?}"))
    }

    #[tokio::test]
    async fn an_order_line_that_does_not_decode_is_poison_not_a_retry() {
        let deps = with_rep_orders().await;
        let placed = inserts_of(&deps.table, &["Order", "OrderItem"], 1).await;
        handle_counted(&deps, &stream_event(placed)).await;
        let total = |t: i64| AttributeValue::N(t.to_string());
        let ann = item_where(&deps.table, "Order", "Total", &total(2000)).await;
        let bob = item_where(&deps.table, "Order", "Total", &total(3000)).await;
        // Ann's order's line, spoilt by hand: its order's cancellation cannot take it out of its
        // product's sales, however often it is retried.
        let mut line = item_where(&deps.table, "OrderItem", "OrderId", &ann["OrderId"]).await;
        line.insert("Quantity".into(), AttributeValue::S("many".into()));
        deps.table.put_item(line, None).await.unwrap();
        let batch = stream_event(vec![
            status_change("c1", 50, &ann, "PROCESSING", "CANCELLED"),
            status_change("r1", 51, &bob, "DELIVERED", "RETURNED"),
        ]);
        let (r, _) = handle_counted(&deps, &batch).await;
        assert!(r.failed_sequence_numbers().is_empty(), "{r:?}");
        assert_eq!(r.poison.iter().map(|p| p.index).collect::<Vec<_>>(), [0]);
        assert!(r.poison[0].reason.contains("lines"), "{:?}", r.poison);
        let q3 = |rep: &str| ("2026-Q3".to_owned(), rep.to_owned());
        assert_eq!(
            rep_sales(&deps.table).await[&q3("E2")],
            (0, 0, format!("{:019}#E2", 0)),
            "the record behind it was applied"
        );
    }

    #[tokio::test]
    async fn a_contribution_dynamodb_refuses_is_poison_and_the_rest_is_applied() {
        let deps = with_rep_orders().await;
        // Ann's customer item one write short of DynamoDB's 400 KB: adding to her totals is
        // refused (the item would grow past it), however often it is tried.
        let key = k::customer(&keys::Id::parse("c", "ann").unwrap());
        let mut customer = deps
            .table
            .get_item(&key, store::Read::Strong, None)
            .await
            .unwrap()
            .unwrap();
        let room = 400 * 1024 - testkit::item_size(&customer) - "Padding".len() - 8;
        customer.insert("Padding".into(), s("x".repeat(room)));
        deps.table.put_item(customer, None).await.unwrap();
        let records = inserts_of(&deps.table, &["Order"], 1).await;
        let (r, _) = handle_counted(&deps, &stream_event(records)).await;
        assert!(r.failed_sequence_numbers().is_empty(), "{r:?}");
        // Ann's three orders, each refused on her totals.
        assert_eq!(r.poison.len(), 3, "{:?}", r.poison);
        let (customers, _, _) = derived(&deps.table).await;
        assert_eq!(customers["bob"], (1, 3000), "other targets are written");
        assert_eq!(customers["ann"], (0, 0));
    }

    #[tokio::test]
    async fn concurrent_batches_for_one_rep_leave_the_key_matching_the_total() {
        let table = hr::fixtures::org_with(testkit::table().await, &[("E1", "Ada Lovelace")]).await;
        fixtures::customer_of_rep(&table, "ann", "E1").await;
        let mut expected = 0;
        for n in 0..12u64 {
            let price = 100 + n as i64;
            expected += price;
            fixtures::order(&table, "ann", SEP_21_2026_MS + n, &[(1, 1, price)]).await;
        }
        let deps = consumer_deps(table);
        let records = inserts_of(&deps.table, &["Order"], 1).await;
        // Four batches at once from four shards, all on the same rep's total: each one's
        // read-modify-write races the others'.
        let batches: Vec<_> = records
            .chunks(3)
            .enumerate()
            .map(|(i, c)| testkit::stream_event_of(&format!("shardId-{i}"), c.to_vec()))
            .collect();
        let results =
            futures::future::join_all(batches.iter().map(|b| handle_counted(&deps, b))).await;
        for (r, _) in &results {
            assert!(r.batch_item_failures.is_empty());
        }
        let sales = rep_sales(&deps.table).await;
        let (total, count, sk) = &sales[&("2026-Q3".to_owned(), "E1".to_owned())];
        assert_eq!((*total, *count), (expected, 12));
        assert_eq!(sk, &format!("{expected:019}#E1"));
    }

    #[tokio::test]
    async fn a_products_total_inventory_follows_its_inventories_exactly_once() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 7).await;
        fixtures::product(&table, 8).await;
        fixtures::inventory(&table, 7, "W1", 5).await;
        fixtures::inventory(&table, 7, "W2", 7).await;
        fixtures::inventory(&table, 8, "W1", 1).await;
        let deps = consumer_deps(table);
        let records = inserts_of(&deps.table, &["Inventory"], 1).await;
        let totals = async || -> BTreeMap<i64, i64> {
            all_items(&deps.table)
                .await
                .into_iter()
                .filter(|i| i["Type"].as_s().unwrap() == "Product")
                .map(|i| (num(&i, "Sku"), num(&i, "TotalInventory")))
                .collect()
        };
        handle_counted(&deps, &stream_event(records[..1].to_vec())).await;
        let (r, _) = handle_counted(&deps, &stream_event(records.clone())).await;
        assert!(r.batch_item_failures.is_empty());
        handle_counted(&deps, &stream_event(records.clone())).await;
        assert_eq!(totals().await, BTreeMap::from([(7, 12), (8, 1)]));

        // W1's stock of 7 goes from 5 to 2, W2's is removed: 12 → 2, replays included.
        let items = all_items(&deps.table).await;
        let stock = |w: &str| {
            items
                .iter()
                .find(|i| {
                    i["Type"].as_s().unwrap() == "Inventory"
                        && num(i, "Sku") == 7
                        && i["WarehouseId"].as_s().unwrap() == w
                })
                .unwrap()
                .clone()
        };
        let (w1, w2) = (stock("W1"), stock("W2"));
        let mut fewer = w1.clone();
        fewer.insert("Quantity".into(), AttributeValue::N("2".into()));
        let changes = stream_event(vec![
            stream_record("m", 50, C::Modify(&w1, &fewer)),
            stream_record("r", 51, C::Remove(&w2)),
        ]);
        for _ in 0..2 {
            let (r, _) = handle_counted(&deps, &changes).await;
            assert!(r.batch_item_failures.is_empty());
        }
        assert_eq!(totals().await, BTreeMap::from([(7, 2), (8, 1)]));
    }
}
