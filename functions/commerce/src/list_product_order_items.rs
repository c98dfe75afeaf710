//! O8: `GET /products/{sku}/order-items` → a product's warehouse inventories and its order lines,
//! `{sku, inventories, orderItems, nextCursor}`, from ONE query of GSI1 per page (AWS's relational
//! example, pattern 8, "GSI overloading"): the product's partition `PRODUCT#<sku>` holds two kinds,
//! each order line (`ORDERITEM#<orderId>`) and each inventory (`WAREHOUSE#<warehouseId>`). Read
//! backwards, the inventories come first (`W` > `O`), then the order lines newest first (order ids
//! are ULIDs). Each item is decoded by its `Type`; any other kind there is a corrupt item, never
//! skipped. Paged (`limit`, default 50, 1..=100, signed `cursor`). A product with neither answers
//! empty lists: telling an unknown product apart would cost a second request. Staff only.

use crate::views as view;
use api::declare::*;
use keys::commerce::{self as k, Sku};
use model::{
    Entity,
    commerce::{Inventory, OrderLine},
};
use serde::Serialize;
use store::StoreError;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-product-order-items",
    Access::Staff,
    &Route::get(
        "/products/{sku}/order-items",
        "O8: a product's warehouse inventories and order lines (newest first): one query of its GSI1 partition per page",
        &[Pattern {
            id: "O8",
            route: "`GET /products/{sku}/order-items?limit=&cursor=` (staff; default 50, 1–100)",
            index: Index::Gsi1,
            request: "Query `GSI1PK = PRODUCT#<sku>` (inventories `WAREHOUSE#<id>` and order lines `ORDERITEM#<orderId>`, one overloaded partition), backwards",
            returns: "`{sku, inventories, orderItems: [{orderId, sku, quantity, unitPrice}], nextCursor}`: the inventories first, then the order lines newest first",
            example: Example::staff("/products/42/order-items?limit=10"),
        }],
    )
    .paged(50),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>(
    "a page of the product's partition, inventories first (they sort after the order lines, read backwards)",
)];

api::page! {
    /// A page of a product's inventories and order lines.
    Page {
        sku: Sku,
        inventories: Vec<view::Inventory>,
        order_items: Vec<OrderItem>,
    }
}

/// An order line as an order page shows it, with the order it belongs to.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
struct OrderItem {
    order_id: keys::commerce::OrderId,
    #[serde(flatten)]
    line: view::OrderLine,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    let paging = api::paging(deps, &req, &FUNCTION, |limit| format!("O8|{sku}|{limit}"))?;
    let (items, next) = paging
        .items(deps.table.query(k::product_order_items(sku)).backwards())
        .await?;
    let (mut inventories, mut order_items) = (Vec::new(), Vec::new());
    for item in items {
        match model::type_of(&item) {
            Some(Inventory::TYPE) => {
                inventories.push(view::inventory(&model::from_item::<Inventory>(item)?))
            }
            Some(OrderLine::TYPE) => {
                // The line as an order page shows it, with the order it belongs to.
                let line = model::from_item::<OrderLine>(item)?;
                order_items.push(OrderItem {
                    order_id: line.order_id,
                    line: view::order_line(&line),
                });
            }
            other => {
                let e = StoreError::Corrupt(format!("unexpected {other:?} in a product's items"));
                return Err(e.into());
            }
        }
    }
    api::json(
        200,
        &Page {
            sku,
            inventories,
            order_items,
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use serde_json::Value;
    use serde_json::json;
    use store::Table;
    use testkit::Harness;
    use testkit::walk_pages;

    async fn get(table: &Table, sku: &str, query: &[(&str, &str)]) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.as_staff().get(&h.path(&[sku]), query).await
    }

    /// Product 42 in W1 and W2 and in three orders; beside it, every other kind GSI1 holds: a
    /// neighbouring product's inventory and lines, an employee's warehouse edge and current job,
    /// a customer under a rep with order headers and summaries, a user and a review.
    async fn overloaded_index(table: &Table) -> Vec<String> {
        hr::fixtures::org(table).await;
        hr::fixtures::employee(table, "E1", "Ada Lovelace").await;
        hr::fixtures::add_job(table, "E1", "REP", "2024-01-01").await;
        fixtures::customer_of_rep(table, "c1", "E1").await;
        for sku in [42, 43] {
            fixtures::product(table, sku).await;
        }
        fixtures::inventory(table, 42, "W1", 12).await;
        fixtures::inventory(table, 42, "W2", 30).await;
        fixtures::inventory(table, 43, "W1", 5).await;
        let mut orders = Vec::new();
        for (i, ms) in fixtures::ORDER_DATES_MS.into_iter().enumerate() {
            let lines = [(42, 1 + i as u32, 499), (43, 7, 100), (4200, 1, 1)];
            orders.push(
                fixtures::order(table, "c1", ms, &lines)
                    .await
                    .order_id
                    .to_string(),
            );
        }
        reviews::fixtures::book(table, reviews::fixtures::FELLOWSHIP).await;
        reviews::fixtures::user(table, "frodo").await;
        reviews::fixtures::review(
            table,
            reviews::fixtures::FELLOWSHIP,
            "frodo",
            reviews::fixtures::REVIEW_2001_MS,
            9,
            "Good.",
        )
        .await;
        orders.reverse();
        orders
    }

    #[tokio::test]
    async fn o8_one_query_returns_the_products_inventories_and_order_lines_and_nothing_else() {
        let table = testkit::table().await;
        let newest_first = overloaded_index(&table).await;
        table.meter().reset();
        let (s, b) = get(&table, "42", &[]).await;
        assert_eq!(s, 200, "{b}");
        let warehouses = testkit::counted(&b["inventories"], "warehouseId", "quantity");
        assert_eq!(warehouses, [("W2", 30), ("W1", 12)], "backwards: W2 first");
        assert!(
            b["inventories"]
                .as_array()
                .unwrap()
                .iter()
                .all(|i| i["sku"] == 42)
        );
        let lines = b["orderItems"].as_array().unwrap();
        let orders: Vec<_> = lines
            .iter()
            .map(|l| l["orderId"].as_str().unwrap())
            .collect();
        assert_eq!(orders, newest_first, "newest first");
        assert_eq!(
            lines[0],
            json!({ "orderId": newest_first[0], "sku": 42, "quantity": 3, "unitPrice": 499 })
        );
        assert_eq!((&b["sku"], &b["nextCursor"]), (&json!(42), &Value::Null));

        // One query of GSI1, paying for exactly the five items of the product's partition.
        let partition = testkit::items_with(&table, "GSI1PK", "PRODUCT#000000000042").await;
        assert_eq!(partition.len(), 5);
        testkit::assert_one_index_query(&table, "GSI1", 5, &partition);

        // A product with neither: empty lists, one query.
        let (s, b) = get(&table, "44", &[]).await;
        assert_eq!(s, 200);
        assert_eq!(
            (&b["inventories"], &b["orderItems"]),
            (&json!([]), &json!([]))
        );
    }

    #[tokio::test]
    async fn pages_walk_every_item_once_in_order() {
        let table = testkit::table().await;
        let newest_first = overloaded_index(&table).await;
        let pages = walk_pages("2", async |query| {
            let (s, b) = get(&table, "42", query).await;
            assert_eq!(s, 200, "{b}");
            b
        })
        .await;
        // Five items, two a page: the third page holds the last one, and no cursor.
        assert_eq!(pages.len(), 3);
        let warehouses = testkit::column_of_pages(&pages, "inventories", "warehouseId");
        let orders = testkit::column_of_pages(&pages, "orderItems", "orderId");
        assert_eq!(warehouses, ["W2", "W1"]);
        assert_eq!(orders, newest_first);

        // A cursor is bound to its product and page size.
        let cursor = pages[0]["nextCursor"].as_str().unwrap();
        let cases = [("43", "2"), ("42", "3")].map(|c| (c, 400, "invalid_cursor"));
        testkit::assert_errors(cases, async |(sku, limit)| {
            get(&table, sku, &[("limit", limit), ("cursor", cursor)]).await
        })
        .await;
    }

    #[tokio::test]
    async fn bad_parameters_are_400_and_read_nothing() {
        let table = testkit::table().await;
        let bad_sku = ["0", "042", "abc", "-1", "1000000000000", "4#2"].map(|sku| (sku, vec![]));
        let bad_limit = ["0", "101", "x", "-1"].map(|limit| ("42", vec![("limit", limit)]));
        let cases = (bad_sku.into_iter().chain(bad_limit))
            .map(|case| (case, 400, "invalid_parameter"))
            .chain([(
                ("42", vec![("cursor", "not-a-cursor")]),
                400,
                "invalid_cursor",
            )]);
        testkit::assert_errors(cases, async |(sku, q)| get(&table, sku, q).await).await;
        assert!(table.meter().requests().is_empty());
    }

    #[tokio::test]
    async fn another_kind_in_the_partition_is_a_corrupt_item_not_skipped() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        fixtures::inventory(&table, 42, "W1", 12).await;
        // A hand edit retypes the inventory: the answer is a 500, not a list short of it.
        let key = k::inventory(fixtures::sku(42), &fixtures::id("W1"));
        let retype = store::Update::new().set(model::attr::TYPE, model::s("Product"));
        table.update(&key, &retype, None).await.unwrap();
        let answer = get(&table, "42", &[]).await;
        testkit::assert_refused(&answer, 500, "internal_error", "a corrupt item");
    }
}
