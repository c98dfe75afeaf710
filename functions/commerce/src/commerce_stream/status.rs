//! Tracking events → order status (part of the commerce stream consumer). For each order touched
//! by a batch, the newest tracking event's status is written to the order header (and its GSI2
//! status key, so O5 sees the change; GSI1's too, but in the multi-attribute design:
//! `ORDER_STATUS_KEYS`) and to the order's summary in the customer's collection: one pair of
//! conditional updates per order per batch, not per event, the batch's orders written
//! concurrently. Conditions on `LastEventId` make it exact under replays, duplicates and
//! out-of-order delivery. Removed events change nothing: events are
//! append-only, and a status never rolls back.

use std::collections::BTreeMap;

use crate::data::{StatusKeys, apply_order_status};
use futures::StreamExt;
use keys::commerce::{EventId, OrderId, OrderStatus};
use model::{Entity, commerce::TrackingEvent};
use store::{Deps, aggregate::targets_in_flight};
use stream_handler::{BatchResponse, Event, Failures, Kind};

/// The consumer's source this part reads; the totals read the others.
pub const SOURCE: &str = TrackingEvent::TYPE;

pub async fn handle(deps: &Deps, event: &Event) -> BatchResponse {
    let table = &deps.table;
    let mut failures = Failures::default();
    // Order → (newest event, its status, the records it stands for).
    let mut newest: BTreeMap<OrderId, (EventId, OrderStatus, Vec<usize>)> = BTreeMap::new();
    for change in stream_handler::changes(event, &[SOURCE]) {
        let change = match change {
            Ok(c) => c,
            Err(e) => {
                failures.poison(e.index(), e.to_string());
                continue;
            }
        };
        if change.kind == Kind::Remove || change.type_name() != Some(TrackingEvent::TYPE) {
            continue;
        }
        let parsed = change
            .new_image::<TrackingEvent>()
            .map_err(|e| e.to_string())
            .and_then(|e| {
                let e = e.ok_or("no new image")?;
                Ok::<_, String>((e.order_id, e.event_id, e.status))
            });
        let (order, event_id, status) = match parsed {
            Ok(p) => p,
            Err(e) => {
                failures.poison(change.index, format!("tracking event does not decode: {e}"));
                continue;
            }
        };
        let entry = newest
            .entry(order)
            .or_insert((event_id, status, Vec::new()));
        if event_id > entry.0 {
            (entry.0, entry.1) = (event_id, status);
        }
        entry.2.push(change.index);
    }
    // Declared (`CONSUMER.needs`) and checked at start-up.
    let keys = StatusKeys::of(deps).map_err(|e| e.to_string());
    // Each order's pair of writes is its own: orders are written concurrently.
    let writes = newest
        .into_iter()
        .map(|(order, (event_id, status, records))| {
            let keys = &keys;
            async move {
                let applied = match keys {
                    Ok(keys) => apply_order_status(table, *keys, order, event_id, status).await,
                    Err(e) => Err(store::StoreError::Config(e.clone())),
                };
                (order, records, applied)
            }
        })
        .collect::<Vec<_>>();
    let mut writes = futures::stream::iter(writes).buffer_unordered(targets_in_flight());
    while let Some((order, records, applied)) = writes.next().await {
        if let Err(e) = applied {
            // A header that no longer decodes, a write DynamoDB refuses: poison; else retried.
            failures.store_error(records, &format!("order {order}'s status"), &e);
        }
    }
    failures.response(event)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::fixtures::add_tracking_event;
    use keys::SortableId;
    use model::Item;
    use serde_json::Value;
    use store::Table;
    use testkit::{Change as C, all_items, stream_event, stream_record};

    async fn handle(table: &Table, event: &Event) -> BatchResponse {
        super::handle(
            &testkit::deps(table.clone(), super::super::CONSUMER.needs),
            event,
        )
        .await
    }

    async fn order_with_events() -> (Table, OrderId, Vec<Item>) {
        let table = testkit::table().await;
        fixtures::customer(&table, "ann").await;
        let order = fixtures::order(&table, "ann", keys::now_ms(), &[(1, 1, 1)]).await;
        let statuses = [OrderStatus::Processing, OrderStatus::Shipped];
        fixtures::tracking_events(&table, &order, &statuses).await;
        let events = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["Type"].as_s().unwrap() == "TrackingEvent")
            .collect();
        (table, order.order_id, events)
    }

    async fn statuses(table: &Table) -> Vec<(String, String)> {
        let items = all_items(table).await;
        let orders = items
            .iter()
            .filter(|i| matches!(i["Type"].as_s().unwrap().as_str(), "Order" | "OrderHeader"));
        testkit::attribute_pairs(orders, "Type", "Status")
    }

    #[tokio::test]
    async fn the_newest_event_wins_whatever_the_delivery_order() {
        let (table, order, events) = order_with_events().await;
        // Newest first, each in its own batch, then the older one replayed as a MODIFY whose old
        // image is older than what the order already shows.
        let r = handle(
            &table,
            &stream_event(vec![stream_record("e2", 2, C::Insert(&events[1]))]),
        )
        .await;
        assert!(r.batch_item_failures.is_empty());
        handle(
            &table,
            &stream_event(vec![stream_record("e1", 1, C::Insert(&events[0]))]),
        )
        .await;
        let mut noted = events[0].clone();
        noted.insert("Note".into(), model::s("late edit"));
        handle(
            &table,
            &stream_event(vec![stream_record("e3", 3, C::Modify(&events[0], &noted))]),
        )
        .await;
        assert_eq!(
            statuses(&table).await,
            [
                ("Order".into(), "SHIPPED".into()),
                ("OrderHeader".into(), "SHIPPED".into())
            ]
        );
        let header = all_items(&table)
            .await
            .into_iter()
            .find(|i| i["Type"].as_s().unwrap() == "OrderHeader")
            .unwrap();
        assert_eq!(
            header["GSI2SK"].as_s().unwrap(),
            &format!("SHIPPED#{order}"),
            "O5's index follows the status"
        );
    }

    #[tokio::test]
    async fn one_batch_of_many_events_is_one_update_pair_and_replays_change_nothing() {
        let (table, _, events) = order_with_events().await;
        let batch = stream_event(vec![
            stream_record("e1", 1, C::Insert(&events[0])),
            stream_record("e2", 2, C::Insert(&events[1])),
        ]);
        table.meter().reset();
        handle(&table, &batch).await;
        assert_eq!(
            table.meter().requests().len(),
            2,
            "header and summary, once"
        );
        let before = all_items(&table).await;
        handle(&table, &batch).await;
        assert_eq!(all_items(&table).await, before);
        assert_eq!(statuses(&table).await[0].1, "SHIPPED");
    }

    /// A tracking event moving `order` to `status`, written to the table, as a stream INSERT.
    /// In the multi-attribute design a status change is the `Status` attribute (and O5's GSI2
    /// key): headers and summaries without GSI1 keys get none, so no GSI1 entry is written.
    #[tokio::test]
    async fn the_multi_attribute_design_moves_no_gsi1_key() {
        let table = testkit::table().await;
        hr::fixtures::org(&table).await;
        hr::fixtures::employee(&table, "E1", "Ada Lovelace").await;
        fixtures::customer_of_rep(&table, "ann", "E1").await;
        let order = fixtures::order(&table, "ann", keys::now_ms(), &[(1, 1, 1)]).await;
        // The order as the multi-attribute design's place-order writes it.
        for item in all_items(&table).await {
            if matches!(
                item["Type"].as_s().unwrap().as_str(),
                "Order" | "OrderHeader"
            ) {
                let mut item = item.clone();
                item.remove("GSI1PK");
                item.remove("GSI1SK");
                table.put_item(item, None).await.unwrap();
            }
        }
        let record = event_of(&table, order.order_id, OrderStatus::Shipped, 1).await;
        let deps = testkit::deps(table.clone(), super::super::CONSUMER.needs)
            .with_setting(&crate::data::ORDER_STATUS_KEYS, "multi-attribute")
            .unwrap();
        let r = super::handle(&deps, &stream_event(vec![record])).await;
        assert!(r.batch_item_failures.is_empty());
        assert_eq!(
            statuses(&table).await,
            [
                ("Order".into(), "SHIPPED".into()),
                ("OrderHeader".into(), "SHIPPED".into())
            ]
        );
        for item in all_items(&table).await {
            if matches!(
                item["Type"].as_s().unwrap().as_str(),
                "Order" | "OrderHeader"
            ) {
                assert!(!item.keys().any(|k| k.starts_with("GSI1")), "{item:?}");
            }
        }
    }

    async fn event_of(table: &Table, order: OrderId, status: OrderStatus, seq: u64) -> Value {
        let ev = SortableId::at_ms(order.timestamp_ms() + 1000);
        let rec = TrackingEvent {
            order_id: order,
            event_id: ev,
            status,
            note: None,
            at: fixtures::at(ev.timestamp_ms()),
        };
        add_tracking_event(table, &rec).await.unwrap();
        let item = model::to_item(&rec).unwrap();
        stream_record(&format!("ev{seq}"), seq, C::Insert(&item))
    }

    /// Rewrites `order`'s header item by hand (what no code of ours writes).
    async fn edit_header(table: &Table, order: OrderId, edit: impl FnOnce(&mut Item)) {
        let key = keys::commerce::order_header(order);
        let mut item = table
            .get_item(&key, store::Read::Strong, None)
            .await
            .unwrap()
            .expect("the header");
        edit(&mut item);
        table.put_item(item, None).await.unwrap();
    }

    /// Two orders of ann's, the first one's header spoilt by `spoil`; a batch moves both to
    /// PROCESSING, the spoilt one first. Returns the answer and the second order's statuses.
    async fn spoilt_first(spoil: impl FnOnce(&mut Item)) -> (BatchResponse, Vec<String>) {
        let table = testkit::table().await;
        fixtures::customer(&table, "ann").await;
        let now = keys::now_ms();
        let bad = fixtures::order(&table, "ann", now, &[(1, 1, 1)]).await;
        let good = fixtures::order(&table, "ann", now + 1, &[(2, 1, 1)]).await;
        edit_header(&table, bad.order_id, spoil).await;
        let batch = stream_event(vec![
            event_of(&table, bad.order_id, OrderStatus::Processing, 1).await,
            event_of(&table, good.order_id, OrderStatus::Processing, 2).await,
        ]);
        let r = handle(&table, &batch).await;
        let good_statuses = all_items(&table)
            .await
            .into_iter()
            .filter(|i| matches!(i["Type"].as_s().unwrap().as_str(), "Order" | "OrderHeader"))
            .filter(|i| i.get("OrderId") == Some(&model::s(good.order_id.to_string())))
            .filter_map(|i| i.get("Status").and_then(|s| s.as_s().ok()).cloned())
            .collect();
        (r, good_statuses)
    }

    #[tokio::test]
    async fn a_header_that_no_longer_decodes_is_poison_and_the_next_order_goes_on() {
        let (r, good) = spoilt_first(|header| {
            header.remove("ItemCount");
        })
        .await;
        assert!(
            r.failed_sequence_numbers().is_empty(),
            "retrying cannot make the header decode: {r:?}"
        );
        assert_eq!(r.poison.iter().map(|p| p.index).collect::<Vec<_>>(), [0]);
        assert!(r.poison[0].reason.contains("ItemCount"), "{:?}", r.poison);
        assert_eq!(good, ["PROCESSING", "PROCESSING"], "header and summary");
    }

    #[tokio::test]
    async fn a_status_write_dynamodb_refuses_is_poison() {
        // A header one write short of DynamoDB's 400 KB: its status update is refused
        // (ValidationException), however often it is tried.
        let (r, good) = spoilt_first(|header| {
            // Room left for the event's `EventCount` on the header, not for the status update.
            let room = 400 * 1024 - testkit::item_size(header) - "Padding".len() - 8;
            let room = room - "EventCount".len() - 8;
            header.insert("Padding".into(), model::s("x".repeat(room)));
        })
        .await;
        assert!(r.failed_sequence_numbers().is_empty(), "{r:?}");
        assert_eq!(r.poison.iter().map(|p| p.index).collect::<Vec<_>>(), [0]);
        assert!(r.poison[0].reason.contains("size"), "{:?}", r.poison);
        assert_eq!(good, ["PROCESSING", "PROCESSING"]);
    }

    #[tokio::test]
    async fn an_unreadable_event_is_poison_not_a_failure() {
        let (table, _, events) = order_with_events().await;
        let mut bad = events[1].clone();
        bad.insert("Status".into(), model::s("TELEPORTED"));
        let r = handle(
            &table,
            &stream_event(vec![
                stream_record("e1", 1, C::Insert(&events[0])),
                stream_record("bad", 2, C::Insert(&bad)),
            ]),
        )
        .await;
        // Never a batch failure (retried without bound, it would block the shard): poison, for
        // the failure destination.
        assert!(r.failed_sequence_numbers().is_empty());
        assert_eq!(r.poison.len(), 1);
        assert_eq!(r.poison[0].index, 1);
        assert_eq!(
            statuses(&table).await[0].1,
            "PROCESSING",
            "the good record was applied"
        );
    }
}
