//! C6: `POST /orders/{orderId}/events` with `{"status", "note"?}`: appends a tracking event to an
//! existing order. Event ids are ULIDs, so events sort by time in the order's collection. One
//! transaction: the order's header counts the event (`ADD EventCount 1`, on condition that the
//! order exists and has fewer than 50: 409 `order_events_full` otherwise), and the event's Put.
//! A new event each time, so not idempotent: under an `Idempotency-Key` ([`replay`]), a retry of
//! one whose answer was lost answers the event the first added, writing nothing.

use crate::data::{self as commerce, EventAdded, MAX_ORDER_EVENTS};
use crate::replay;
use api::declare::*;
use keys::{
    SortableId, Timestamp,
    commerce::{EventId, OrderStatus},
};
use model::commerce::TrackingEvent;
use serde::{Deserialize, Serialize};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "add-order-event",
    Access::Staff,
    &Route::post(
        "/orders/{orderId}/events",
        "C6: append a tracking event (the order's status follows through the stream)",
        &[Pattern {
            id: "C6",
            route: "`POST /orders/{orderId}/events` `{status, note?}`",
            index: Index::Table,
            request: "TransactWriteItems: Update the header `ADD EventCount 1` (exists, fewer than 50 events; with an `Idempotency-Key`: the key's mark absent, then set to the event's id); Put `EVENT#<eventId>`",
            returns: "201 the event; 404 unknown order; 409 `order_events_full`; 422 `idempotency_key_reused`",
            example: Example::staff("/orders/01ERTNJ6000000000000000000/events")
                .with_body(r#"{"status": "SHIPPED", "note": "Left the warehouse"}"#),
        }],
    ),
);

api::refusals! {
    OrderNotFound = crate::refusals::ORDER_NOT_FOUND,
    InvalidStatus = Refusal::new(400, "invalid_status", "the status is none of the tracking statuses"),
    OrderEventsFull = Refusal::new(409, "order_events_full", "the order has 50 tracking events, the most an order takes; nothing was written"),
    InvalidIdempotencyKey = crate::replay::INVALID_KEY,
    IdempotencyKeyReused = crate::replay::KEY_REUSED,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::created::<Added>("the event")
    .body::<AddEvent>()
    .refusals(Refused::ALL)
    .more(|| replay::documented("201", "the event that request added"))
    .worst(|| {
        use api::function::{leak, widest_text};
        let body = serde_json::json!({ "status": "SHIPPED", "note": widest_text(MAX_NOTE_CHARS) });
        api::function::Worst::new(
            format!("a note of {MAX_NOTE_CHARS} characters of 4 bytes"),
            Example::staff("/orders/01ERTNJ6000000000000000000/events")
                .with_body(leak(body.to_string())),
        )
    })];

/// The tracking event added, and its order.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
struct Added {
    #[serde(flatten)]
    event: crate::views::TrackingEvent,
    order_id: keys::commerce::OrderId,
}

pub const MAX_NOTE_CHARS: usize = 500;

/// A status and a note.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct AddEvent {
    #[schemars(with = "EventStatus")]
    status: String,
    #[serde(default)]
    #[schemars(with = "String", length(min = 1, max = MAX_NOTE_CHARS))]
    note: Option<String>,
}

/// every status but OPEN (an order is OPEN when placed)
struct EventStatus;

impl JsonSchema for EventStatus {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EventStatus".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let allowed: Vec<_> = OrderStatus::ALL
            .into_iter()
            .filter(|st| *st != OrderStatus::Open)
            .map(OrderStatus::as_str)
            .collect();
        json_schema!({
            "description": "every status but OPEN (an order is OPEN when placed)",
            "type": "string",
            "enum": allowed,
        })
    }
}

fn parse_status(s: &str) -> Result<OrderStatus, ApiError> {
    let allowed: Vec<_> = OrderStatus::ALL
        .into_iter()
        .filter(|st| *st != OrderStatus::Open)
        .map(OrderStatus::as_str)
        .collect();
    s.parse::<OrderStatus>()
        .ok()
        .filter(|st| *st != OrderStatus::Open)
        .ok_or_else(|| {
            Refused::InvalidStatus.because(format!("status: give one of {}", allowed.join(", ")))
        })
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let order = api::path(&req, "orderId", SortableId::parse)?;
    let body: AddEvent = api::json_body(&req)?;
    let status = parse_status(&body.status)?;
    let note = body
        .note
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    if note
        .as_ref()
        .is_some_and(|n| n.chars().count() > MAX_NOTE_CHARS)
    {
        return Err(
            Common::InvalidBody.because(format!("note: give at most {MAX_NOTE_CHARS} characters"))
        );
    }
    let event: EventId = SortableId::new();
    let record = TrackingEvent {
        order_id: order,
        event_id: event,
        status,
        note,
        at: Timestamp::from_ms(event.timestamp_ms())
            .map_err(|e| ApiError::from(store::StoreError::from(e)))?,
    };
    let named = replay::key(&req)?.map(|key| {
        replay::Named::new(
            key,
            &serde_json::json!([record.status.as_str(), record.note]),
        )
    });
    match commerce::append_tracking_event(&deps.table, &record, named.as_ref()).await? {
        EventAdded::Added => {}
        EventAdded::Replayed {
            event,
            same_request: true,
        } => {
            let added = Added {
                event: crate::views::tracking_event(&event),
                order_id: order,
            };
            return Ok(replay::replayed(api::json(201, &added)?));
        }
        EventAdded::Replayed { .. } => return Err(replay::reused()),
        EventAdded::NoOrder => {
            return Err(Refused::OrderNotFound.because(format!("There is no order {order}.")));
        }
        EventAdded::Full => {
            return Err(Refused::OrderEventsFull.because(format!(
                "Order {order} has {MAX_ORDER_EVENTS} tracking events, the most an order takes"
            )));
        }
    }
    let added = Added {
        event: crate::views::tracking_event(&record),
        order_id: order,
    };
    api::json(201, &added)
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;
    use testkit::Harness;

    use crate::fixtures;
    use testkit::all_items;

    async fn with_order() -> (Table, String) {
        let table = testkit::table().await;
        fixtures::customer(&table, "1").await;
        let order = fixtures::order(&table, "1", keys::now_ms(), &[(1, 1, 1)]).await;
        (table, order.order_id.to_string())
    }

    async fn post(table: &Table, order: &str, body: &str) -> (u16, serde_json::Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.post(&h.path(&[order]), body).await
    }

    /// The answer to a keyed event is lost after DynamoDB wrote it: the retry under the same
    /// key answers the same event (201, `Idempotent-Replayed`) and adds none, even after another
    /// event came in between; the same key with another status is a 422, nothing written. The
    /// same key on another order is another request.
    #[tokio::test]
    async fn a_keyed_event_sent_twice_is_added_once() {
        let (table, order) = with_order().await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&[&order]);
        let keyed = |body: &'static str| {
            let (h, path) = (&h, &path);
            async move {
                h.anyone()
                    .as_staff()
                    .with_header("Idempotency-Key", "scan-42")
                    .post_full(path, body)
                    .await
            }
        };
        const SHIPPED: &str = r#"{"status":"SHIPPED","note":"Left the warehouse"}"#;
        let (s, _, first) = keyed(SHIPPED).await;
        assert_eq!(s, 201, "{first}");
        let (s, _) = post(&table, &order, r#"{"status":"IN_TRANSIT"}"#).await;
        assert_eq!(s, 201);
        let before = all_items(&table).await;
        let (s, headers, again) = keyed(SHIPPED).await;
        assert_eq!((s, &again), (201, &first), "the first answer again");
        assert_eq!(
            headers
                .get("idempotent-replayed")
                .map(|v| v.to_str().unwrap()),
            Some("true")
        );
        let (s, _, other) = keyed(r#"{"status":"DELIVERED"}"#).await;
        assert_eq!(
            (s, other["code"].as_str()),
            (422, Some("idempotency_key_reused")),
            "{other}"
        );
        assert_eq!(all_items(&table).await, before, "the retries wrote nothing");
        let events = before
            .iter()
            .filter(|i| i["Type"].as_s().is_ok_and(|t| t == "TrackingEvent"))
            .count();
        assert_eq!(events, 2);

        // Another order, the same key: its own event.
        let other_order = fixtures::order(&table, "1", keys::now_ms(), &[(1, 1, 1)]).await;
        let other_path = h.path(&[&other_order.order_id.to_string()]);
        let (s, headers, b) = h
            .as_staff()
            .with_header("Idempotency-Key", "scan-42")
            .post_full(&other_path, SHIPPED)
            .await;
        assert_eq!(s, 201, "{b}");
        assert!(headers.get("idempotent-replayed").is_none());
    }

    /// The largest order there can be: a 64-character customer and rep, a currency, and 50
    /// events each sent under a 64-character `Idempotency-Key` (a mark each on the header). The
    /// header is at most `Order::LARGEST_BYTES`, within 1 KB of it; its summary no larger.
    #[tokio::test]
    async fn the_largest_order_is_within_its_bound() {
        let (customer, rep) = ("c".repeat(keys::MAX_ID_LEN), "r".repeat(keys::MAX_ID_LEN));
        let table = hr::fixtures::org_with(testkit::table().await, &[(&rep, "A rep")]).await;
        fixtures::customer_of_rep(&table, &customer, &rep).await;
        let placed = crate::data::NewOrder {
            customer: fixtures::id(&customer),
            order_id: keys::SortableId::at_ms(keys::now_ms()),
            created_at: fixtures::at(keys::now_ms()),
            lines: vec![(fixtures::sku(keys::commerce::Sku::MAX), 10_000, 100_000_000)],
            design: Default::default(),
        };
        fixtures::place_order_in(&table, &placed, "EUR")
            .await
            .unwrap();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&[&placed.order_id.to_string()]);
        for i in 0..crate::data::MAX_ORDER_EVENTS {
            let key = format!("{i:02}{}", "k".repeat(keys::MAX_ID_LEN - 2));
            let (s, _, b) = h
                .as_staff()
                .with_header("Idempotency-Key", &key)
                .post_full(&path, r#"{"status":"PROCESSING"}"#)
                .await;
            assert_eq!(s, 201, "{b}");
        }
        let read = |key| {
            let table = table.clone();
            async move {
                let item = table.get_item(&key, store::Read::Strong, None).await;
                testkit::item_size(&item.unwrap().expect("written"))
            }
        };
        let header = read(keys::commerce::order_header(placed.order_id)).await;
        let summary = read(keys::commerce::order_summary(
            &placed.customer,
            placed.order_id,
        ))
        .await;
        let largest = model::commerce::Order::LARGEST_BYTES as usize;
        assert!(
            header <= largest && header + 1024 > largest && summary <= header,
            "header {header} bytes, summary {summary}"
        );
    }

    /// An order takes at most 50 tracking events (C5 reads them all with the order): counted on
    /// the header in the event's transaction, so parallel appends cannot pass the cap; the 51st
    /// is a 409 `order_events_full` and writes nothing.
    #[tokio::test]
    async fn an_order_takes_at_most_max_events_even_in_parallel() {
        let (table, order) = with_order().await;
        let max = crate::data::MAX_ORDER_EVENTS as usize;
        for _ in 0..max - 4 {
            let (s, b) = post(&table, &order, r#"{"status":"PROCESSING"}"#).await;
            assert_eq!(s, 201, "{b}");
        }
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&[&order]);
        let calls = (0..10).map(|_| h.post(&path, r#"{"status":"SHIPPED"}"#));
        let answers = futures::future::join_all(calls).await;
        assert_eq!(
            answers.iter().filter(|(s, _)| *s == 201).count(),
            4,
            "{answers:?}"
        );
        for answer in answers.iter().filter(|(s, _)| *s != 201) {
            testkit::assert_refused(answer, 409, "order_events_full", "an event past the limit");
        }
        let events = all_items(&table)
            .await
            .iter()
            .filter(|i| model::type_of(i) == Some("TrackingEvent"))
            .count();
        assert_eq!(events, max);
    }

    #[tokio::test]
    async fn appends_events_that_sort_by_time() {
        let (table, order) = with_order().await;
        let (s1, e1) = post(&table, &order, r#"{"status":"PROCESSING"}"#).await;
        let (s2, e2) = post(
            &table,
            &order,
            r#"{"status":"SHIPPED","note":"  via courier "}"#,
        )
        .await;
        assert_eq!((s1, s2), (201, 201));
        assert_eq!(e2["note"], "via courier");
        assert!(e1["eventId"].as_str().unwrap() < e2["eventId"].as_str().unwrap());
        let events: Vec<_> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["Type"].as_s().unwrap() == "TrackingEvent")
            .map(|i| i["SK"].as_s().unwrap().clone())
            .collect();
        assert_eq!(
            events,
            [
                format!("EVENT#{}", e1["eventId"].as_str().unwrap()),
                format!("EVENT#{}", e2["eventId"].as_str().unwrap())
            ]
        );
    }

    #[tokio::test]
    async fn bad_input_and_unknown_orders_are_4xx_and_write_nothing() {
        let (table, order) = with_order().await;
        let before = all_items(&table).await;
        let unknown = SortableId::new().to_string();
        let long_note = format!(r#"{{"status":"SHIPPED","note":"{}"}}"#, "x".repeat(501));
        type Case<'a> = ((&'a str, &'a str), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            ((&unknown, r#"{"status":"SHIPPED"}"#), 404, "order_not_found"),
            (("nope", r#"{"status":"SHIPPED"}"#), 400, "invalid_parameter"),
            ((&order, ""), 400, "missing_body"),
            ((&order, "{"), 400, "invalid_json"),
            ((&order, r#"{"status":"LOST"}"#), 400, "invalid_status"),
            ((&order, r#"{"status":"OPEN"}"#), 400, "invalid_status"),
            ((&order, r#"{"status":"shipped"}"#), 400, "invalid_status"),
            ((&order, r#"{"status":7}"#), 400, "invalid_body"),
            ((&order, r#"{"note":"x"}"#), 400, "invalid_body"),
            ((&order, r#"{"status":"SHIPPED","extra":1}"#), 400, "invalid_body"),
            ((&order, &long_note), 400, "invalid_body"),
        ];
        testkit::assert_errors(cases, async |(id, body)| post(&table, id, body).await).await;
        assert_eq!(all_items(&table).await, before);
    }
}
