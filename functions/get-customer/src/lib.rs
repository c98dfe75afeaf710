//! C1: `GET /customers/{customerId}?orders=N`: the customer and their newest N orders (default
//! 10, 1..=100), newest first, in ONE query: the customer's collection read backwards from its
//! `A` record with `Limit = N + 1` (seed 000).

use api::{ApiError, views::commerce as view};
use lambda_http::{Body, Request, Response};
use serde_json::json;
use store::{Table, commerce};

pub const DEFAULT_ORDERS: u32 = 10;
pub const MAX_ORDERS: u32 = 100;

pub async fn handle(table: &Table, req: Request) -> Result<Response<Body>, ApiError> {
    let customer = api::path_id(&req, "customerId")?;
    let newest = api::query_u32(&req, "orders", DEFAULT_ORDERS, 1, MAX_ORDERS)?;
    let Some((c, orders)) = commerce::customer_with_orders(table, &customer, newest).await? else {
        return Err(ApiError::not_found(
            "customer_not_found",
            format!("There is no customer {customer}; create it with PUT /customers/{customer}."),
        ));
    };
    api::json(
        200,
        &json!({
            "customer": view::customer(&c),
            "orders": orders.iter().map(view::order_summary).collect::<Vec<_>>(),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::{Id, SortableId};
    use store::commerce::{NewOrder, place_order, put_customer};
    use testkit::{all_items, event, query_read_units, request, response_json};

    const ROUTE: &str = "GET /customers/{customerId}";

    async fn customer_with_three_orders(table: &Table) -> Vec<String> {
        let id = Id::parse("customerId", "123").unwrap();
        put_customer(
            table,
            &id,
            "Ann",
            "ann@example.com",
            "2020-11-01T00:00:00.000Z",
        )
        .await
        .unwrap();
        let mut ids = Vec::new();
        // Seed 000's three orders, on their dates.
        for (i, ms) in [1_606_262_400_000u64, 1_606_780_800_000, 1_607_212_800_000]
            .into_iter()
            .enumerate()
        {
            let order = NewOrder {
                customer: id.clone(),
                order_id: SortableId::at_ms(ms),
                created_at: keys::iso_timestamp(ms).unwrap(),
                lines: vec![(i as u64 + 1, 1, 100)],
            };
            place_order(table, &order, None).await.unwrap();
            ids.push(order.order_id.to_string());
        }
        ids
    }

    #[tokio::test]
    async fn customer_and_newest_orders_in_one_minimal_query() {
        let table = testkit::table().await;
        let ids = customer_with_three_orders(&table).await;
        table.meter().reset();

        let res = handle(
            &table,
            request(&event(ROUTE, "/customers/123", &[("orders", "2")], None)),
        )
        .await
        .unwrap();
        let (status, body) = response_json(&res);
        assert_eq!(status, 200);
        assert_eq!(body["customer"]["customerId"], "123");
        assert_eq!(body["customer"]["name"], "Ann");
        let got: Vec<_> = body["orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["orderId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            got,
            [ids[2].clone(), ids[1].clone()],
            "newest first, N of them"
        );

        // One request, costing exactly what the three items it read cost.
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].operation, "Query");
        let read: Vec<_> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == "CUSTOMER#123")
            .filter(|i| {
                let sk = i["SK"].as_s().unwrap();
                sk == "A" || sk.ends_with(&ids[2]) || sk.ends_with(&ids[1])
            })
            .collect();
        assert_eq!(read.len(), 3);
        assert_eq!(requests[0].read_units, query_read_units(&read, false));
    }

    #[tokio::test]
    async fn reading_a_few_of_many_orders_pays_for_the_few() {
        // 60 orders are about 10 KB: reading them all would cost 1.5 read units, the customer and
        // 2 orders cost 0.5. DynamoDB's bill shows whether Limit bounded the read.
        let table = testkit::table().await;
        let id = Id::parse("customerId", "many").unwrap();
        put_customer(
            &table,
            &id,
            "Many",
            "many@example.com",
            "2020-11-01T00:00:00.000Z",
        )
        .await
        .unwrap();
        for i in 0..60u64 {
            let order = NewOrder {
                customer: id.clone(),
                order_id: SortableId::at_ms(1_600_000_000_000 + i * 60_000),
                created_at: keys::iso_timestamp(1_600_000_000_000 + i * 60_000).unwrap(),
                lines: vec![(i + 1, 1, 100)],
            };
            place_order(&table, &order, None).await.unwrap();
        }
        let all: Vec<_> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == "CUSTOMER#many")
            .collect();
        assert!(
            query_read_units(&all, false) >= 1.5,
            "the collection is big enough to tell"
        );
        table.meter().reset();
        let res = handle(
            &table,
            request(&event(ROUTE, "/customers/many", &[("orders", "2")], None)),
        )
        .await
        .unwrap();
        assert_eq!(response_json(&res).1["orders"].as_array().unwrap().len(), 2);
        let requests = table.meter().requests();
        assert_eq!((requests.len(), requests[0].items), (1, 3));
        assert_eq!(requests[0].read_units, 0.5);
    }

    #[tokio::test]
    async fn default_is_ten_orders_and_a_customer_without_orders_has_none() {
        let table = testkit::table().await;
        let ids = customer_with_three_orders(&table).await;
        let res = handle(&table, request(&event(ROUTE, "/customers/123", &[], None)))
            .await
            .unwrap();
        assert_eq!(
            response_json(&res).1["orders"].as_array().unwrap().len(),
            ids.len()
        );

        put_customer(
            &table,
            &Id::parse("c", "9").unwrap(),
            "B",
            "b@example.com",
            "2020-11-01T00:00:00.000Z",
        )
        .await
        .unwrap();
        let res = handle(&table, request(&event(ROUTE, "/customers/9", &[], None)))
            .await
            .unwrap();
        assert_eq!(response_json(&res).1["orders"], json!([]));
    }

    #[tokio::test]
    async fn unknown_customer_and_bad_parameters_are_4xx_with_a_code() {
        let table = testkit::table().await;
        customer_with_three_orders(&table).await;
        let cases: &[(&str, &[(&str, &str)], u16, &str)] = &[
            ("/customers/404", &[], 404, "customer_not_found"),
            ("/customers/1%232", &[], 400, "invalid_parameter"),
            (
                "/customers/123",
                &[("orders", "0")],
                400,
                "invalid_parameter",
            ),
            (
                "/customers/123",
                &[("orders", "101")],
                400,
                "invalid_parameter",
            ),
            (
                "/customers/123",
                &[("orders", "-1")],
                400,
                "invalid_parameter",
            ),
            (
                "/customers/123",
                &[("orders", "ten")],
                400,
                "invalid_parameter",
            ),
        ];
        for (path, query, status, code) in cases {
            let mut ev = event(ROUTE, path, query, None);
            if path.contains("%23") {
                ev["pathParameters"]["customerId"] = json!("1#2");
            }
            let res = api::respond(handle(&table, request(&ev)).await);
            let (s, body) = response_json(&res);
            assert_eq!(
                (s, body["code"].as_str().unwrap()),
                (*status, *code),
                "{path} {query:?}"
            );
            assert!(!body["message"].as_str().unwrap().is_empty());
        }
    }
}
