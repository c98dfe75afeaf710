//! C6: `POST /orders/{orderId}/events` with `{"status", "note"?}`: appends a tracking event to an
//! existing order. Event ids are ULIDs, so events sort by time in the order's collection. One
//! transaction: a ConditionCheck that the order exists, and the event's Put.

use api::ApiError;
use keys::{
    SortableId,
    commerce::{EventId, OrderStatus},
};
use lambda_http::{Body, Request, Response};
use serde::Deserialize;
use store::{
    Table,
    commerce::{self, TrackingEvent},
};

pub const MAX_NOTE_CHARS: usize = 500;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AddEvent {
    status: String,
    #[serde(default)]
    note: Option<String>,
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
            ApiError::bad_request(
                "invalid_status",
                format!("status: give one of {}", allowed.join(", ")),
            )
        })
}

pub async fn handle(table: &Table, req: Request) -> Result<Response<Body>, ApiError> {
    let raw = api::path_param(&req, "orderId")?;
    let order = SortableId::parse(&raw).map_err(|e| ApiError::invalid_parameter("orderId", e))?;
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
        return Err(ApiError::bad_request(
            "invalid_body",
            format!("note: give at most {MAX_NOTE_CHARS} characters"),
        ));
    }
    let event: EventId = SortableId::new();
    let record = TrackingEvent {
        order_id: order.to_string(),
        event_id: event.to_string(),
        status: status.to_string(),
        note,
        at: keys::iso_timestamp(event.timestamp_ms()).unwrap_or_default(),
    };
    if !commerce::add_tracking_event(table, order, event, &record).await? {
        return Err(ApiError::not_found(
            "order_not_found",
            format!("There is no order {order}."),
        ));
    }
    let mut view = api::views::commerce::tracking_event(&record);
    view["orderId"] = order.to_string().into();
    api::json(201, &view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::Id;
    use serde_json::json;
    use store::commerce::{NewOrder, place_order, put_customer};
    use testkit::{all_items, event, request, response_json};

    const ROUTE: &str = "POST /orders/{orderId}/events";

    async fn with_order() -> (Table, String) {
        let table = testkit::table().await;
        let c = Id::parse("c", "1").unwrap();
        put_customer(
            &table,
            &c,
            "Ann",
            "ann@example.com",
            "2020-01-01T00:00:00.000Z",
        )
        .await
        .unwrap();
        let order = NewOrder {
            customer: c,
            order_id: SortableId::new(),
            created_at: "2020-01-01T00:00:00.000Z".into(),
            lines: vec![(1, 1, 1)],
        };
        place_order(&table, &order, None).await.unwrap();
        (table, order.order_id.to_string())
    }

    async fn post(table: &Table, order: &str, body: &str) -> (u16, serde_json::Value) {
        let mut ev = event(ROUTE, "/orders/x/events", &[], Some(body));
        ev["pathParameters"]["orderId"] = json!(order);
        response_json(&api::respond(handle(table, request(&ev)).await))
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
        let cases: Vec<(&str, &str, u16, &str)> = vec![
            (&unknown, r#"{"status":"SHIPPED"}"#, 404, "order_not_found"),
            ("nope", r#"{"status":"SHIPPED"}"#, 400, "invalid_parameter"),
            (&order, "", 400, "missing_body"),
            (&order, "{", 400, "invalid_json"),
            (&order, r#"{"status":"LOST"}"#, 400, "invalid_status"),
            (&order, r#"{"status":"OPEN"}"#, 400, "invalid_status"),
            (&order, r#"{"status":"shipped"}"#, 400, "invalid_status"),
            (&order, r#"{"status":7}"#, 400, "invalid_body"),
            (&order, r#"{"note":"x"}"#, 400, "invalid_body"),
            (
                &order,
                r#"{"status":"SHIPPED","extra":1}"#,
                400,
                "invalid_body",
            ),
            (&order, &long_note, 400, "invalid_body"),
        ];
        for (id, body, status, code) in cases {
            let (s, b) = post(&table, id, body).await;
            assert_eq!(
                (s, b["code"].as_str().unwrap()),
                (status, code),
                "{id} {body:.60}"
            );
        }
        assert_eq!(all_items(&table).await, before);
    }
}
