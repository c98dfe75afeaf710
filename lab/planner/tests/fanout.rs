//! The stream handlers' fan-out the planner declares (`planner::fanout::FANOUT`), held to the real
//! handlers: each runs on DynamoDB Local with one INSERT record of each source, and the items it
//! writes are counted by `Type`.

use std::collections::{BTreeMap, BTreeSet};

use devkit::{Change, all_items, deps, stream_event, stream_record, table as scratch_table};
use model::{Entity, Item, commerce::TrackingEvent, type_of};
use planner::fanout::{AGGREGATE_REVIEWS, COMMERCE_STREAM, FANOUT, Fanout};

fn key(item: &Item) -> (String, String) {
    let s = |name: &str| {
        item.get(name)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    (s("PK"), s("SK"))
}

/// The items written between two reads of the table, counted by `Type`.
fn written(before: &[Item], after: &[Item]) -> BTreeMap<String, usize> {
    let before: BTreeMap<_, _> = before.iter().map(|i| (key(i), i)).collect();
    let mut out = BTreeMap::new();
    for item in after {
        if before.get(&key(item)) != Some(&item) {
            *out.entry(type_of(item).unwrap_or("?").to_owned())
                .or_insert(0) += 1;
        }
    }
    out
}

/// What the declaration says one record writes.
fn declared(f: &Fanout) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for t in f.targets {
        *out.entry((*t).to_owned()).or_insert(0) += 1;
    }
    out
}

async fn run(f: &Fanout, source: &Item, table: &store::Table) -> BTreeMap<String, usize> {
    let before = all_items(table).await;
    let event = stream_event(vec![stream_record("e-1", 1, Change::Insert(source))]);
    let response = match f.consumer {
        COMMERCE_STREAM => {
            let d = deps(table.clone(), commerce::commerce_stream::CONSUMER.needs);
            commerce::commerce_stream::handle(&d, event).await
        }
        AGGREGATE_REVIEWS => {
            let d = deps(table.clone(), reviews::aggregate_reviews::CONSUMER.needs);
            reviews::aggregate_reviews::handle(&d, event).await
        }
        other => panic!("no handler {other}"),
    };
    assert!(
        response.batch_item_failures.is_empty(),
        "{f:?}: {response:?}"
    );
    written(&before, &all_items(table).await)
}

fn item_of<E: Entity>(e: &E) -> Item {
    model::to_item(e).expect("an item")
}

#[tokio::test]
async fn every_declared_fanout_is_what_the_handler_writes() {
    for f in FANOUT {
        let table = scratch_table().await;
        let source: Item = match (f.source, f.case) {
            ("Order", "placed") => {
                commerce::fixtures::customer(&table, "c1").await;
                let o = commerce::fixtures::order(&table, "c1", 1_700_000_000_000, &[(1, 2, 500)])
                    .await;
                item_of(&model::commerce::OrderSummary(o))
            }
            ("Order", "placed under an account rep") => {
                hr::fixtures::org(&table).await;
                hr::fixtures::employee(&table, "rep1", "Rep One").await;
                commerce::fixtures::customer_of_rep(&table, "c1", "rep1").await;
                let o = commerce::fixtures::order(&table, "c1", 1_700_000_000_000, &[(1, 2, 500)])
                    .await;
                assert!(o.account_rep_id.is_some());
                item_of(&model::commerce::OrderSummary(o))
            }
            ("OrderItem", _) => {
                commerce::fixtures::customer(&table, "c1").await;
                let o = commerce::fixtures::order(&table, "c1", 1_700_000_000_000, &[(7, 2, 500)])
                    .await;
                item_of(&model::commerce::OrderLine {
                    order_id: o.order_id,
                    sku: commerce::fixtures::sku(7),
                    quantity: 2,
                    unit_price: 500,
                })
            }
            ("TrackingEvent", _) => {
                commerce::fixtures::customer(&table, "c1").await;
                let o = commerce::fixtures::order(&table, "c1", 1_700_000_000_000, &[(1, 2, 500)])
                    .await;
                let event = TrackingEvent {
                    order_id: o.order_id,
                    event_id: keys::SortableId::at_ms(1_700_000_100_000),
                    status: keys::commerce::OrderStatus::Shipped,
                    note: None,
                    at: commerce::fixtures::at(1_700_000_100_000),
                };
                let item = item_of(&event);
                table.put_item(item.clone(), None).await.expect("the event");
                item
            }
            ("Review", _) => {
                let isbn = planner::model::isbn(1);
                reviews::fixtures::book(&table, isbn.as_str()).await;
                reviews::fixtures::user(&table, "ann").await;
                let r = reviews::fixtures::review(
                    &table,
                    isbn.as_str(),
                    "ann",
                    1_700_000_000_000,
                    8,
                    "Good.",
                )
                .await;
                item_of(&r)
            }
            ("Inventory", _) => {
                commerce::fixtures::product(&table, 7).await;
                item_of(&model::commerce::Inventory {
                    sku: commerce::fixtures::sku(7),
                    warehouse_id: commerce::fixtures::id("W1"),
                    quantity: 25,
                    updated_at: commerce::fixtures::at(1_700_000_000_000),
                    version: 1,
                })
            }
            other => panic!("no source for {other:?}: add one here"),
        };
        assert_eq!(run(f, &source, &table).await, declared(f), "{f:?}");
    }
}

#[test]
fn every_source_a_consumer_declares_has_a_fanout_and_no_other() {
    let consumers: BTreeSet<&str> = catalogue::CONSUMERS.iter().map(|c| c.name).collect();
    let modelled: BTreeSet<&str> = planner::fanout::CONSUMERS.iter().copied().collect();
    assert_eq!(modelled, consumers, "the consumers the plan models");
    let declared: BTreeSet<(&str, &str)> = catalogue::CONSUMERS
        .iter()
        .flat_map(|c| c.sources.iter().map(|s| (c.name, s.type_name)))
        .collect();
    let planned: BTreeSet<(&str, &str)> = FANOUT.iter().map(|f| (f.consumer, f.source)).collect();
    assert_eq!(
        planned, declared,
        "planner::fanout::FANOUT against the consumers' sources (CONSUMER.sources)"
    );
}
