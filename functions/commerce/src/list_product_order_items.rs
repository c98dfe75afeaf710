//! O8: `GET /products/{sku}/order-items` → a product's warehouse inventories and its order lines,
//! `{sku, inventories, orderItems, nextCursor}`, from ONE query of GSI1 per page (AWS's relational
//! example, pattern 8, "GSI overloading"): the product's partition `PRODUCT#<sku>` holds two kinds,
//! each order line (`ORDERITEM#<orderId>`) and each inventory (`WAREHOUSE#<warehouseId>`). Read
//! backwards, the inventories come first (`W` > `O`), then the order lines newest first (order ids
//! are ULIDs). Each item is decoded by its `Type`; any other kind there is a corrupt item, never
//! skipped. Paged (`limit`, default 50, 1..=100, signed `cursor`). A product with neither answers
//! empty lists: telling an unknown product apart would cost a second request. Staff only.
//!
//! With `IndexDesign` dedicated, the same pages come from two places: the inventories from the
//! product's own partition (`PRODUCT#<sku>`, `begins_with(SK, WAREHOUSE#)`, backwards), then the
//! order lines from `OrderLinesByProduct` (`Sku = <sku>`, backwards), which holds each line's
//! keys, `Type`, quantity and unit price; a page's `limit` counts both, as GSI1's does. A first
//! page is two Queries, unless the inventories fill it; a cursor names its position in either and
//! is bound to the design (one from the other design is an `invalid_cursor`).

use crate::data::products::ProductOrderItems;
use crate::views as view;
use api::declare::*;
use keys::commerce::Sku;
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
            request: "Query `GSI1PK = PRODUCT#<sku>` (inventories `WAREHOUSE#<id>` and order lines `ORDERITEM#<orderId>`, one overloaded partition), backwards; with `IndexDesign=dedicated`, Query `PK = PRODUCT#<sku> AND begins_with(SK, WAREHOUSE#)`, then `OrderLinesByProduct` `Sku = <sku>`, backwards; within 32 read units at 2 KB an item",
            returns: "`{sku, inventories, orderItems: [{orderId, sku, quantity, unitPrice}], nextCursor}`: the inventories first, then the order lines newest first",
            example: Example::staff("/products/42/order-items?limit=10"),
        }],
    )
    .paged(50),
)
.needs(Needs::TABLE.with_settings(&[INDEX_DESIGN]));

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
    let items_of = ProductOrderItems::of(deps)?;
    // A cursor is bound to this pattern, this product, this page size and the design's reader.
    let paging = api::paging(deps, &req, &FUNCTION, |limit| {
        format!("O8|{}{sku}|{limit}", items_of.cursor_scope())
    })?;
    let (items, next) = items_of.page(&deps.table, &paging, sku).await?;
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
    use keys::{commerce as k, indexes::IndexDesign};
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

    /// O8 answered in `design`.
    async fn get_in(
        table: &Table,
        design: IndexDesign,
        sku: &str,
        query: &[(&str, &str)],
    ) -> (u16, Value) {
        let deps = testkit::deps(table.clone(), FUNCTION.needs)
            .with_setting(&INDEX_DESIGN, design.as_str())
            .unwrap();
        let h = Harness::with_deps(&FUNCTION, handle, deps);
        h.as_staff().get(&h.path(&[sku]), query).await
    }

    /// With `IndexDesign` dedicated, the same pages, item for item and page for page, for every
    /// page size: the inventories from the product's partition, then the lines from
    /// `OrderLinesByProduct`, which holds the lines only and what O8 shows of them.
    #[tokio::test]
    async fn both_designs_answer_every_page_alike() {
        let table = testkit::table().await;
        overloaded_index(&table).await;
        for (i, ms) in fixtures::ORDER_DATES_MS.into_iter().enumerate() {
            fixtures::order(&table, "c1", ms + 1, &[(42, 2 + i as u32, 300)]).await;
        }
        for limit in ["1", "2", "3", "5", "50"] {
            let walk = async |design| {
                walk_pages(limit, async |q| {
                    let (s, body) = get_in(&table, design, "42", q).await;
                    assert_eq!(s, 200, "{body}");
                    body
                })
                .await
            };
            let (a, b) = (
                walk(IndexDesign::Overloaded).await,
                walk(IndexDesign::Dedicated).await,
            );
            let contents = |pages: &[Value]| -> Vec<(Value, Value, bool)> {
                pages
                    .iter()
                    .map(|p| {
                        (
                            p["inventories"].clone(),
                            p["orderItems"].clone(),
                            p["nextCursor"].is_null(),
                        )
                    })
                    .collect()
            };
            assert_eq!(contents(&a), contents(&b), "limit {limit}");
            let lines: usize = a
                .iter()
                .map(|p| p["orderItems"].as_array().unwrap().len())
                .sum();
            assert_eq!(lines, 2 * fixtures::ORDER_DATES_MS.len(), "limit {limit}");
        }
        // A first page: two Queries (the product's partition, then the index); the index holds
        // the lines only, with their keys, Type, quantity and unit price.
        table.meter().reset();
        let (_, first) = get_in(&table, IndexDesign::Dedicated, "42", &[("limit", "4")]).await;
        let requests = table.meter().requests();
        let read: Vec<_> = requests.iter().map(|r| (r.index, r.items)).collect();
        assert_eq!(read, [(None, 2), (Some("OrderLinesByProduct"), 2)]);
        let entries = table
            .query(k::order_lines_by_product(Sku::parse("42").unwrap()))
            .send()
            .await
            .unwrap()
            .items;
        assert_eq!(entries.len(), 2 * fixtures::ORDER_DATES_MS.len());
        let mut names: Vec<_> = entries[0].keys().cloned().collect();
        names.sort();
        assert_eq!(
            names,
            [
                "OrderId",
                "PK",
                "Quantity",
                "SK",
                "Sku",
                "Type",
                "UnitPrice"
            ]
        );
        // A cursor of one design is refused by the other.
        let cursor = first["nextCursor"].as_str().unwrap();
        let (s, body) = get_in(
            &table,
            IndexDesign::Overloaded,
            "42",
            &[("limit", "4"), ("cursor", cursor)],
        )
        .await;
        assert_eq!((s, body["code"].as_str()), (400, Some("invalid_cursor")));
    }

    /// The dedicated design's writers: order lines and inventories carry no GSI1 keys (GSI1
    /// holds neither), and O8 finds both in the dedicated design.
    #[tokio::test]
    async fn the_dedicated_writers_leave_gsi1_out() {
        let table = testkit::table().await;
        hr::fixtures::org(&table).await;
        fixtures::customer(&table, "c1").await;
        fixtures::priced_product(&table, 42, 499).await;
        let inventory = model::commerce::Inventory {
            sku: Sku::parse("42").unwrap(),
            warehouse_id: keys::Id::parse("w", "W1").unwrap(),
            quantity: 5,
            updated_at: keys::Timestamp::from_ms(fixtures::ORDER_DATES_MS[0]).unwrap(),
            version: 0,
        };
        let design = IndexDesign::Dedicated;
        crate::data::products::set_inventory(&table, &table, design, &inventory, None)
            .await
            .unwrap();
        let order = crate::data::NewOrder {
            customer: keys::Id::parse("c", "c1").unwrap(),
            order_id: keys::SortableId::at_ms(fixtures::ORDER_DATES_MS[0]),
            created_at: keys::Timestamp::from_ms(fixtures::ORDER_DATES_MS[0]).unwrap(),
            lines: vec![(Sku::parse("42").unwrap(), 3, 499)],
            design: crate::data::OrderDesign {
                index_design: design,
                ..Default::default()
            },
        };
        let placed = fixtures::place_order(&table, &order, None).await.unwrap();
        assert_eq!(placed, crate::data::PlaceOutcome::Placed);
        let items = testkit::all_items(&table).await;
        for t in [OrderLine::TYPE, Inventory::TYPE] {
            let of_type: Vec<_> = items
                .iter()
                .filter(|i| model::type_of(i) == Some(t))
                .collect();
            assert_eq!(of_type.len(), 1, "{t}");
            assert!(!of_type[0].contains_key("GSI1PK"), "{t}");
        }
        let (s, body) = get_in(&table, design, "42", &[]).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(body["inventories"].as_array().unwrap().len(), 1);
        assert_eq!(body["orderItems"][0]["quantity"], 3);
        let (_, gsi1) = get_in(&table, IndexDesign::Overloaded, "42", &[]).await;
        assert_eq!(gsi1["orderItems"], serde_json::json!([]));
    }
}
