//! C5: `GET /orders/{orderId}`: an order's tracking page: the header, the purchased items and the
//! tracking events, read together in ONE query of the order's item collection (Naylor's post); an
//! order with more than 1 MB of events takes one request per 1 MB page, read to the end: the page
//! is never cut short silently.
//!
//! The path does not say whose order it is: the header read by the same query does. A caller who
//! is neither that customer nor staff gets the same 404 as for an order that does not exist.

use crate::views as view;
use api::declare::*;
use keys::{SortableId, commerce as k};
use model::{
    Entity,
    commerce::{OrderHeader, OrderLine, TrackingEvent},
};
use serde::Serialize;
use store::StoreError;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-order",
    Access::SignedIn,
    &Route::get(
        "/orders/{orderId}",
        "C5: an order with its lines and tracking events",
        &[Pattern {
            id: "C5",
            route: "`GET /orders/{orderId}`",
            index: Index::Table,
            request: "Query `PK = ORDER#<orderId>`, read to its end (one request per 1 MB page)",
            returns: "`{order, items, events}`; 404 `order_not_found`",
            example: Example::sub("123", "/orders/01ERTNJ6000000000000000000"),
        }],
    ),
);

api::refusals! {
    OrderNotFound = crate::refusals::ORDER_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::ok::<OrderPage>("the order page").refusals(Refused::ALL)];

/// An order, its lines and its tracking events.
#[derive(Serialize, JsonSchema)]
#[schemars(inline)]
struct OrderPage {
    order: view::OrderSummary,
    items: Vec<view::OrderLine>,
    events: Vec<view::TrackingEvent>,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let caller = api::auth::signed_in_caller(&req)?;
    let order = api::path(&req, "orderId", SortableId::parse)?;
    let page = deps
        .table
        .query(k::order_collection(order))
        .send_all()
        .await?;
    let (mut header, mut lines, mut events) = (None, Vec::new(), Vec::new());
    for item in page.items {
        match model::type_of(&item) {
            Some(OrderHeader::TYPE) => header = Some(model::from_item::<OrderHeader>(item)?),
            Some(OrderLine::TYPE) => lines.push(model::from_item::<OrderLine>(item)?),
            Some(TrackingEvent::TYPE) => events.push(model::from_item::<TrackingEvent>(item)?),
            other => {
                let e = StoreError::Corrupt(format!("unexpected {other:?} in an order collection"));
                return Err(e.into());
            }
        }
    }
    // Another customer's order is answered as one that does not exist.
    let Some(OrderHeader(order)) = header.filter(|h| caller.may_see(&h.0.customer_id)) else {
        return Err(Refused::OrderNotFound.because(format!("There is no order {order}.")));
    };
    api::json(
        200,
        &OrderPage {
            order: view::order_summary(&order),
            items: lines.iter().map(view::order_line).collect(),
            events: events.iter().map(view::tracking_event).collect(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use keys::commerce::OrderStatus;
    use serde_json::json;
    use testkit::{Harness, all_items, query_read_units};

    #[tokio::test]
    async fn header_items_and_events_in_one_minimal_query() {
        let table = testkit::table().await;
        fixtures::customer(&table, "123").await;
        let order = fixtures::order(
            &table,
            "123",
            keys::now_ms(),
            &[(42, 2, 500), (7, 1, 100), (100000, 3, 1)],
        )
        .await;
        let statuses = [OrderStatus::Processing, OrderStatus::Shipped];
        fixtures::tracking_events(&table, &order, &statuses).await;
        table.meter().reset();

        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = format!("/orders/{}", order.order_id);
        let (s, body) = h.as_sub("123").get(&path, &[]).await;
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
        let statuses = testkit::column(&body["events"], "status");
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
        let h = Harness::on_new_table(&FUNCTION, handle).await;
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
            let mut ev = h.as_sub("123").event("GET", "/orders/x", &[], None);
            ev["pathParameters"]["orderId"] = json!(id);
            let (s, b) = h.send(&ev).await;
            assert_eq!((s, b["code"].as_str().unwrap()), (status, code), "{id}");
        }
    }

    #[tokio::test]
    async fn another_customers_order_is_not_found_for_them_and_visible_to_staff() {
        let table = testkit::table().await;
        fixtures::customer(&table, "123").await;
        let order = fixtures::order(&table, "123", keys::now_ms(), &[(1, 1, 100)]).await;
        let path = format!("/orders/{}", order.order_id);
        let unknown = format!("/orders/{}", SortableId::new());
        // Authorized as `main` does.
        let h = Harness::new(&FUNCTION, handle, table).dispatched();
        let (s, theirs) = h.as_sub("456").get(&path, &[]).await;
        let (_, missing) = h.as_sub("456").get(&unknown, &[]).await;
        assert_eq!((s, theirs["code"].as_str()), (404, Some("order_not_found")));
        assert_eq!(
            theirs["code"], missing["code"],
            "indistinguishable from a missing order"
        );
        let (s, staff) = h.as_staff().get(&path, &[]).await;
        assert_eq!(
            (s, staff["order"]["customerId"].as_str()),
            (200, Some("123"))
        );
        let (s, anonymous) = h.get(&path, &[]).await;
        assert_eq!((s, anonymous["code"].as_str()), (401, Some("unauthorized")));
    }

    /// Past DynamoDB's 1 MB page (the 50 events an order takes at most, with notes of 26,000
    /// characters, ~1.3 MB, where the API takes 500): every event comes back, over as many
    /// requests as pages.
    #[tokio::test]
    async fn an_order_page_past_one_megabyte_comes_back_whole() {
        let table = testkit::table().await;
        fixtures::customer(&table, "123").await;
        let order = fixtures::order(&table, "123", 1_600_000_000_000, &[(42, 1, 499)]).await;
        let events: Vec<TrackingEvent> = (0..crate::data::MAX_ORDER_EVENTS as u64)
            .map(|n| TrackingEvent {
                order_id: order.order_id,
                event_id: SortableId::at_ms(order.order_id.timestamp_ms() + 1 + n),
                status: OrderStatus::InTransit,
                note: Some("n".repeat(26_000)),
                at: keys::Timestamp::now(),
            })
            .collect();
        testkit::batch_put(&table, &events).await;
        table.meter().reset();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = format!("/orders/{}", order.order_id);
        let (s, body) = h.as_sub("123").get(&path, &[]).await;
        assert_eq!(s, 200);
        assert_eq!(body["events"].as_array().unwrap().len(), 50);
        assert!(
            !body["items"].as_array().unwrap().is_empty(),
            "the lines sort after the events"
        );
        assert!(table.meter().requests().len() >= 2, "more than one page");
    }
}
