//! C5: `GET /orders/{orderId}`: an order's tracking page: the header, the purchased items and the
//! tracking events, read together in ONE query of the order's item collection (seed 004).

use api::{ApiError, views::commerce as view};
use keys::SortableId;
use lambda_http::{Body, Request, Response};
use serde_json::json;
use store::{Table, commerce};

pub async fn handle(table: &Table, req: Request) -> Result<Response<Body>, ApiError> {
    let raw = api::path_param(&req, "orderId")?;
    let order = SortableId::parse(&raw).map_err(|e| ApiError::invalid_parameter("orderId", e))?;
    let Some(page) = commerce::order_page(table, order).await? else {
        return Err(ApiError::not_found(
            "order_not_found",
            format!("There is no order {order}."),
        ));
    };
    api::json(
        200,
        &json!({
            "order": view::order_summary(&page.order),
            "items": page.lines.iter().map(view::order_line).collect::<Vec<_>>(),
            "events": page.events.iter().map(view::tracking_event).collect::<Vec<_>>(),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::{Id, commerce::EventId};
    use store::commerce::{NewOrder, TrackingEvent, add_tracking_event, place_order, put_customer};
    use testkit::{all_items, event, query_read_units, request, response_json};

    const ROUTE: &str = "GET /orders/{orderId}";

    #[tokio::test]
    async fn header_items_and_events_in_one_minimal_query() {
        let table = testkit::table().await;
        let c = Id::parse("c", "123").unwrap();
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
            lines: vec![(42, 2, 500), (7, 1, 100), (100000, 3, 1)],
        };
        place_order(&table, &order, None).await.unwrap();
        let base = order.order_id.timestamp_ms();
        for (i, status) in ["PROCESSING", "SHIPPED"].iter().enumerate() {
            let ev: EventId = SortableId::at_ms(base + 1000 * (i as u64 + 1));
            let rec = TrackingEvent {
                order_id: order.order_id.to_string(),
                event_id: ev.to_string(),
                status: status.to_string(),
                note: None,
                at: keys::iso_timestamp(ev.timestamp_ms()).unwrap(),
            };
            assert!(
                add_tracking_event(&table, order.order_id, ev, &rec)
                    .await
                    .unwrap()
            );
        }
        table.meter().reset();

        let path = format!("/orders/{}", order.order_id);
        let (s, body) = response_json(
            &handle(&table, request(&event(ROUTE, &path, &[], None)))
                .await
                .unwrap(),
        );
        assert_eq!(s, 200);
        assert_eq!(body["order"]["orderId"], order.order_id.to_string());
        let skus: Vec<_> = body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["sku"].as_u64().unwrap())
            .collect();
        assert_eq!(
            skus,
            [7, 42, 100000],
            "numeric SKUs sort as numbers: zero-padded sort keys"
        );
        let statuses: Vec<_> = body["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["PROCESSING", "SHIPPED"], "events in time order");

        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1);
        let read: Vec<_> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == &format!("ORDER#{}", order.order_id))
            .collect();
        assert_eq!(read.len(), 6);
        assert_eq!(requests[0].read_units, query_read_units(&read, false));
    }

    #[tokio::test]
    async fn unknown_or_malformed_order_ids_are_4xx() {
        let table = testkit::table().await;
        for (id, status, code) in [
            (SortableId::new().to_string(), 404, "order_not_found"),
            ("not-an-order".to_owned(), 400, "invalid_parameter"),
            (
                "01ARZ3NDEKTSV4RRFFQ69G5FA#".to_owned(),
                400,
                "invalid_parameter",
            ),
            (
                SortableId::new().to_string().to_lowercase(),
                400,
                "invalid_parameter",
            ),
        ] {
            let mut ev = event(ROUTE, "/orders/x", &[], None);
            ev["pathParameters"]["orderId"] = json!(id);
            let (s, b) = response_json(&api::respond(handle(&table, request(&ev)).await));
            assert_eq!((s, b["code"].as_str().unwrap()), (status, code), "{id}");
        }
    }
}
