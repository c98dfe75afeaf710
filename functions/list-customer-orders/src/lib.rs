//! C4: `GET /customers/{customerId}/orders?from=YYYY-MM-DD&to=YYYY-MM-DD&limit=&cursor=`: the
//! customer's orders placed in the date range (UTC, both ends included), newest first, a page at
//! a time. One query per page: order ids are ULIDs, so a date range is a sort-key range of the
//! customer's collection.
//!
//! An unknown customer is a 404. Telling it apart from a customer without orders in the range
//! costs a second request (a GetItem of the key only), made only when a first page is empty.

use api::{Access, ApiError, views::commerce as view};
use keys::commerce as k;
use lambda_http::{Body, Request, Response};
use model::commerce::OrderSummary;
use serde_json::json;
use store::{Deps, Needs, commerce};

pub const NEEDS: Needs = Needs::CURSORS;
/// The owner only: the caller whose id is in the path.
pub const ACCESS: Access = Access::Owner {
    param: "customerId",
    not_found: "customer_not_found",
};

pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let customer = api::path_id(&req, "customerId")?;
    let (from, to) = api::query_order_dates(&req)?;
    // A cursor is bound to this pattern, this customer and this range.
    let paging = api::Paging::from_request(&req, deps, DEFAULT_LIMIT, MAX_LIMIT, |_| {
        format!("C4|{customer}|{from}|{to}")
    })?;

    let range = k::orders_in_range(&customer, from, to)
        .map_err(|e| ApiError::invalid_parameter("from", e))?;
    let page = deps
        .table
        .query(range)
        .backwards()
        .limit(paging.limit)
        .start(paging.start.clone())
        .send()
        .await?
        .decode::<OrderSummary>()?;
    if paging.is_first()
        && page.items.is_empty()
        && !commerce::customer_exists(&deps.table, &customer).await?
    {
        return Err(ApiError::not_found(
            "customer_not_found",
            format!("There is no customer {customer}."),
        ));
    }
    let next = paging.next_cursor(page.last_key)?;
    api::json(
        200,
        &json!({
            "customerId": customer.as_str(),
            "orders": page.items.iter().map(|o| view::order_summary(&o.0)).collect::<Vec<_>>(),
            "nextCursor": next,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use store::Table;
    use testkit::fixtures;
    use testkit::{all_items, event, query_read_units, request, response_json};

    const ROUTE: &str = "GET /customers/{customerId}/orders";

    fn deps(table: Table) -> Deps {
        testkit::deps(table, NEEDS)
    }

    fn day_ms(iso: &str, plus_ms: i128) -> u64 {
        (keys::Date::parse_iso(iso).unwrap().start_ms() + plus_ms) as u64
    }

    /// Customer 123 with one order per day from 2020-11-25 to 2020-12-06 (12 orders).
    async fn seeded() -> (Deps, Vec<String>) {
        let table = testkit::table().await;
        fixtures::customer(&table, "123").await;
        let mut ids = Vec::new();
        for day in 0..12 {
            let ms = day_ms("2020-11-25", day * 86_400_000 + 3_600_000);
            let order = fixtures::order(&table, "123", ms, &[(1, 1, 100)]).await;
            ids.push(order.order_id.to_string());
        }
        table.meter().reset();
        (deps(table), ids)
    }

    async fn get(d: &Deps, customer: &str, query: &[(&str, &str)]) -> (u16, Value) {
        let mut ev = event(ROUTE, &format!("/customers/{customer}/orders"), query, None);
        ev["pathParameters"]["customerId"] = json!(customer);
        response_json(&api::respond(handle(d, request(&ev)).await))
    }

    fn ids_of(body: &Value) -> Vec<String> {
        body["orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["orderId"].as_str().unwrap().to_owned())
            .collect()
    }

    #[tokio::test]
    async fn a_range_newest_first_in_one_minimal_query() {
        let (d, ids) = seeded().await;
        let (s, body) = get(&d, "123", &[("from", "2020-12-01"), ("to", "2020-12-03")]).await;
        assert_eq!(s, 200);
        // Dec 1..=3 are days 6, 7, 8.
        assert_eq!(
            ids_of(&body),
            [ids[8].clone(), ids[7].clone(), ids[6].clone()]
        );
        assert_eq!(body["nextCursor"], Value::Null);
        let requests = d.table.meter().requests();
        assert_eq!(requests.len(), 1);
        let read: Vec<_> = all_items(&d.table)
            .await
            .into_iter()
            .filter(|i| {
                ids[6..=8]
                    .iter()
                    .any(|id| i["SK"].as_s().unwrap() == &format!("#ORDER#{id}"))
            })
            .collect();
        assert_eq!(requests[0].read_units, query_read_units(&read, false));
    }

    #[tokio::test]
    async fn walking_the_pages_returns_every_order_once() {
        let (d, ids) = seeded().await;
        let pages = testkit::walk_pages("5", async |q| {
            let (s, body) = get(&d, "123", q).await;
            assert_eq!(s, 200);
            body
        })
        .await;
        let seen: Vec<_> = pages.iter().flat_map(ids_of).collect();
        let mut expected = ids.clone();
        expected.reverse();
        assert_eq!(seen, expected);
        assert!(pages.len() >= 3);
    }

    #[tokio::test]
    async fn bad_input_and_foreign_cursors_are_400() {
        let (d, _) = seeded().await;
        let (_, page) = get(&d, "123", &[("limit", "2")]).await;
        let cursor = page["nextCursor"].as_str().unwrap().to_owned();
        let mut tampered = cursor.clone();
        tampered.replace_range(3..4, if &cursor[3..4] == "A" { "B" } else { "A" });
        let cases: Vec<(&str, Vec<(&str, &str)>, u16, &str)> = vec![
            (
                "123",
                vec![("from", "2020-02-30")],
                400,
                "invalid_parameter",
            ),
            ("123", vec![("to", "2020-13-01")], 400, "invalid_parameter"),
            ("123", vec![("from", "yesterday")], 400, "invalid_parameter"),
            (
                "123",
                vec![("from", "1969-12-31")],
                400,
                "invalid_parameter",
            ),
            (
                "123",
                vec![("from", "2020-12-02"), ("to", "2020-12-01")],
                400,
                "invalid_range",
            ),
            ("123", vec![("limit", "0")], 400, "invalid_parameter"),
            ("123", vec![("limit", "1000")], 400, "invalid_parameter"),
            ("123", vec![("cursor", "garbage")], 400, "invalid_cursor"),
            ("123", vec![("cursor", &tampered)], 400, "invalid_cursor"),
            // The cursor of another range, or of another customer.
            (
                "123",
                vec![("cursor", &cursor), ("from", "2020-12-01")],
                400,
                "invalid_cursor",
            ),
            ("456", vec![("cursor", &cursor)], 400, "invalid_cursor"),
            ("nobody", vec![], 404, "customer_not_found"),
            ("1#2", vec![], 400, "invalid_parameter"),
        ];
        for (customer, q, status, code) in cases {
            let (s, b) = get(&d, customer, &q).await;
            assert_eq!(
                (s, b["code"].as_str().unwrap_or("")),
                (status, code),
                "{customer} {q:?}"
            );
        }
        // A known customer with nothing in the range is an empty page, not a 404.
        let (s, b) = get(&d, "123", &[("from", "2021-01-01")]).await;
        assert_eq!((s, b["orders"].clone()), (200, json!([])));
    }
}
