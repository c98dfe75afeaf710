//! C1: `GET /customers/{customerId}?orders=N`: the customer and their newest N orders (default
//! 10, 1..=100), newest first, in ONE query: the customer's collection read backwards from its
//! `A` record with `Limit = N + 1` (Good's data-modeling post).

use crate::views as view;
use api::declare::*;
use keys::commerce as k;
use model::commerce::{Customer, OrderSummary};
use serde::Serialize;
use store::ParentPage;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-customer",
    Access::owner("customerId", Refused::CustomerNotFound.refusal()),
    &Route::get(
        "/customers/{customerId}",
        "C1: a customer and their newest orders",
        &[Pattern {
            id: "C1",
            route: "`GET /customers/{customerId}?orders=N` (default 10, 1–100)",
            index: Index::Table,
            request: r##"Query `PK = CUSTOMER#<id> AND SK BETWEEN "#ORDER#" AND "A"`, backwards, `Limit N+1`"##,
            returns: "`{customer, orders}` newest first; 404 `customer_not_found`",
            example: Example::sub("123", "/customers/123?orders=2"),
        }],
    ),
);

api::refusals! {
    CustomerNotFound = crate::refusals::CUSTOMER_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::ok::<CustomerPage>("the customer and up to `orders` orders, newest first")
.refusals(Refused::ALL)
        .query(&[Query::with("orders", "how many of the newest orders to return", |_| {
            json_schema!({ "type": "integer", "minimum": 1, "maximum": MAX_ORDERS, "default": DEFAULT_ORDERS })
        })]),
];

/// A customer and their newest orders.
#[derive(Serialize, JsonSchema)]
#[schemars(inline)]
struct CustomerPage {
    customer: view::Customer,
    orders: Vec<view::OrderSummary>,
}
pub const DEFAULT_ORDERS: u32 = 10;
pub const MAX_ORDERS: u32 = 100;

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let customer = api::path_id(&req, "customerId")?;
    let newest = api::query_u32(&req, "orders", DEFAULT_ORDERS, 1, MAX_ORDERS)?;
    let page = deps
        .table
        .query(k::customer_and_orders(&customer))
        .parent_page::<Customer, OrderSummary>(newest, None)
        .await?;
    let Some(ParentPage {
        parent: Some(c),
        children: orders,
        ..
    }) = page
    else {
        return Err(Refused::CustomerNotFound.because(format!(
            "There is no customer {customer}; create it with PUT /customers/{customer}."
        )));
    };
    api::json(
        200,
        &CustomerPage {
            customer: view::customer(&c),
            orders: orders.iter().map(|o| view::order_summary(&o.0)).collect(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use serde_json::json;
    use testkit::{Harness, all_items, query_read_units};

    async fn harness() -> Harness {
        Harness::on_new_table(&FUNCTION, handle).await
    }

    #[tokio::test]
    async fn customer_and_newest_orders_in_one_minimal_query() {
        let h = harness().await;
        let orders = fixtures::customer_with_seed_orders(&h.table, "123").await;
        h.table.meter().reset();

        let (status, body) = h.get("/customers/123", &[("orders", "2")]).await;
        assert_eq!(status, 200);
        assert_eq!(body["customer"]["customerId"], "123");
        assert_eq!(body["customer"]["name"], "Customer 123");
        let got = testkit::column(&body["orders"], "orderId");
        assert_eq!(
            got,
            [
                orders[2].order_id.to_string(),
                orders[1].order_id.to_string()
            ],
            "newest first, N of them"
        );

        // One request, costing exactly what the three items it read cost.
        let requests = h.table.meter().requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].operation, "Query");
        let read: Vec<_> = all_items(&h.table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == "CUSTOMER#123")
            .filter(|i| {
                let sk = i["SK"].as_s().unwrap();
                sk == "A" || got.iter().any(|id| sk.ends_with(id.as_str()))
            })
            .collect();
        assert_eq!(read.len(), 3);
        assert_eq!(requests[0].read_units, query_read_units(&read, false));
    }

    #[tokio::test]
    async fn reading_a_few_of_many_orders_pays_for_the_few() {
        // 60 orders are about 10 KB: reading them all would cost 1.5 read units, the customer and
        // 2 orders cost 0.5. DynamoDB's bill shows whether Limit bounded the read.
        let h = harness().await;
        fixtures::customer(&h.table, "many").await;
        for i in 0..60u64 {
            fixtures::order(
                &h.table,
                "many",
                1_600_000_000_000 + i * 60_000,
                &[(i + 1, 1, 100)],
            )
            .await;
        }
        let all: Vec<_> = all_items(&h.table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == "CUSTOMER#many")
            .collect();
        assert!(
            query_read_units(&all, false) >= 1.5,
            "the collection is big enough to tell"
        );
        h.table.meter().reset();
        let (_, body) = h.get("/customers/many", &[("orders", "2")]).await;
        assert_eq!(body["orders"].as_array().unwrap().len(), 2);
        let requests = h.table.meter().requests();
        assert_eq!((requests.len(), requests[0].items), (1, 3));
        assert_eq!(requests[0].read_units, 0.5);
    }

    #[tokio::test]
    async fn default_is_ten_orders_and_a_customer_without_orders_has_none() {
        let h = harness().await;
        let orders = fixtures::customer_with_seed_orders(&h.table, "123").await;
        let (_, body) = h.get("/customers/123", &[]).await;
        assert_eq!(body["orders"].as_array().unwrap().len(), orders.len());

        fixtures::customer(&h.table, "9").await;
        let (_, body) = h.get("/customers/9", &[]).await;
        assert_eq!(body["orders"], json!([]));
    }

    #[tokio::test]
    async fn unknown_customer_and_bad_parameters_are_4xx_with_a_code() {
        let h = harness().await;
        fixtures::customer_with_seed_orders(&h.table, "123").await;
        /// A path, its query, and the status and error code it must get.
        type Case = (
            (&'static str, &'static [(&'static str, &'static str)]),
            u16,
            &'static str,
        );
        #[rustfmt::skip]
        let cases: &[Case] = &[
            (("/customers/404", &[]), 404, "customer_not_found"),
            (("/customers/1%232", &[]), 400, "invalid_parameter"),
            (("/customers/123", &[("orders", "0")]), 400, "invalid_parameter"),
            (("/customers/123", &[("orders", "101")]), 400, "invalid_parameter"),
            (("/customers/123", &[("orders", "-1")]), 400, "invalid_parameter"),
            (("/customers/123", &[("orders", "ten")]), 400, "invalid_parameter"),
        ];
        testkit::assert_errors(cases.iter().copied(), async |(path, query)| {
            h.get(path, query).await
        })
        .await;
    }
}
