//! What coalescing saves the stream pipeline. One batch of 100 DynamoDB Streams
//! records (25 orders: a summary and 3 lines each, over 10 customers and 10 products) goes through
//! the commerce stream consumer's order totals (`commerce-stream`) twice, each time on a fresh table in DynamoDB Local:
//! - as one batch (the handler as deployed: one write per touched target);
//! - record by record (the baseline: what a handler without coalescing writes).
//!
//! Reported: writes to aggregate targets against the number of distinct targets touched, and the
//! write units DynamoDB reports. DynamoDB Local's accounting of transactions is known to differ
//! from DynamoDB's, so the units are indicative; the write counts are exact.

use std::collections::BTreeSet;

use devkit::{Change, stream_event, stream_record};
use model::{
    Entity, Item,
    commerce::{Customer, OrderLine, OrderSummary, ProductSales},
    derived::DailyStats,
};
use serde_json::Value;
use store::{Deps, Table};

const SHARDS: u32 = 10;

async fn source_items() -> Result<(Table, Vec<Item>), Box<dyn std::error::Error>> {
    let table = devkit::table().await;
    for c in 0..10 {
        commerce::fixtures::customer(&table, &format!("c{c}")).await;
    }
    for o in 0..25u64 {
        let ms = 1_790_000_000_000 + o * 3_600_000;
        let lines: Vec<_> = (0..3)
            .map(|l| (1 + (o + l) % 10, 1 + l as u32, 500))
            .collect();
        commerce::fixtures::order(&table, &format!("c{}", o % 10), ms, &lines).await;
    }
    let items = devkit::all_items(&table)
        .await
        .into_iter()
        .filter(|i| {
            matches!(
                model::type_of(i),
                Some(OrderSummary::TYPE | OrderLine::TYPE)
            )
        })
        .collect();
    Ok((table, items))
}

fn records(items: &[Item]) -> Vec<Value> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| stream_record(&format!("bench{i}"), i as u64 + 1, Change::Insert(item)))
        .collect()
}

fn write_units(table: &Table) -> f64 {
    table.meter().requests().iter().map(|r| r.write_units).sum()
}

pub async fn run() -> Result<(), Box<dyn std::error::Error>> {
    // Coalesced: the whole batch at once.
    let (table, items) = source_items().await?;
    let batch = records(&items);
    table.meter().reset();
    let deps = Deps::new(
        table,
        commerce::commerce_stream::CONSUMER.needs,
        devkit::TEST_CURSOR_KEY,
        SHARDS,
    )?;
    let (response, coalesced) =
        commerce::commerce_stream::totals::handle_counted(&deps, &stream_event(batch.clone()))
            .await;
    assert!(
        response.batch_item_failures.is_empty(),
        "the batch failed: {response:?}"
    );
    let coalesced_units = write_units(&deps.table);
    let targets: BTreeSet<(Option<String>, Option<String>)> = devkit::all_items(&deps.table)
        .await
        .iter()
        .filter(|i| {
            matches!(
                model::type_of(i),
                Some(ProductSales::TYPE | DailyStats::TYPE | Customer::TYPE)
            )
        })
        .map(|i| {
            let key = |a: &str| i.get(a).and_then(|v| v.as_s().ok()).cloned();
            (key(keys::attr::PK), key(keys::attr::SK))
        })
        .collect();

    // Baseline: the same records, one invocation each.
    let (table, items) = source_items().await?;
    table.meter().reset();
    let deps = Deps::new(
        table,
        commerce::commerce_stream::CONSUMER.needs,
        devkit::TEST_CURSOR_KEY,
        SHARDS,
    )?;
    let mut base_targets = 0;
    for record in records(&items) {
        let (r, applied) =
            commerce::commerce_stream::totals::handle_counted(&deps, &stream_event(vec![record]))
                .await;
        assert!(r.batch_item_failures.is_empty());
        base_targets += applied.target_writes;
    }
    let base_units = write_units(&deps.table);

    let t = targets.len() as f64;
    println!(
        "stream batch: {} records (25 order summaries, 75 order lines), {SHARDS} shards per counter",
        batch.len()
    );
    println!("distinct aggregate targets touched: {}", targets.len());
    println!(
        "coalesced (as deployed): {:>4} target writes = {:.2} per target, {:>6.1} write units",
        coalesced.target_writes,
        coalesced.target_writes as f64 / t,
        coalesced_units
    );
    println!(
        "per record (baseline):   {:>4} target writes = {:.2} per target, {:>6.1} write units",
        base_targets,
        base_targets as f64 / t,
        base_units
    );
    println!(
        "ratio coalesced / baseline: target writes {:.3}, write units {:.3}",
        coalesced.target_writes as f64 / base_targets as f64,
        coalesced_units / base_units
    );
    Ok(())
}
