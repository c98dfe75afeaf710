//! O12, every warehouse: `GET /products/{sku}/inventory` → a product's stock in each warehouse
//! that holds it, by warehouse id, a page at a time (`limit`, default 20, 1..=100, sealed
//! `cursor`), staff only: where the total of O13 is. ONE query of the product's partition,
//! `begins_with(SK, "WAREHOUSE#")`: the inventories sit beside the product's own record (`A`), so
//! the query reads them and nothing else. A product no warehouse holds answers an empty list; one
//! that does not exist, 404 `product_not_found` (known from a GetItem, made only when a first page
//! is empty).

use crate::views as view;
use api::declare::*;
use keys::commerce::{self as k, Sku};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-product-inventories",
    Access::Staff,
    &Route::get(
        "/products/{sku}/inventory",
        "O12 (every warehouse): a product's stock in each warehouse, a page at a time",
        &[Pattern {
            id: "O12 every warehouse",
            route: "`GET /products/{sku}/inventory?limit=&cursor=` (staff)",
            index: Index::Table,
            request: r#"Query `PK = PRODUCT#<sku> AND begins_with(SK, "WAREHOUSE#")`; within 32 read units at 2 KB an inventory (100 fit: one Query)"#,
            returns: "`{sku, inventories, nextCursor}` by warehouse id; 404 `product_not_found`",
            example: Example::staff("/products/42/inventory"),
        }],
    )
    .paged(20),
);

api::refusals! {
    ProductNotFound = crate::refusals::PRODUCT_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::ok::<Page>("a page of the product's inventories, by warehouse id")
            .refusals(Refused::ALL),
    ];

api::page! {
    /// A page of a product's inventories.
    Page {
        sku: Sku,
        inventories: Vec<view::Inventory>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    // A cursor is bound to this pattern, this product and this page size.
    let paging = api::paging(deps, &req, &FUNCTION, |limit| {
        format!("O12 all|{sku}|{limit}")
    })?;
    let query = deps.table.query(k::product_inventories(sku));
    // Within the read budget, as a public page, at the largest inventory's size (2 KB: 100 of
    // them fit it, so a page is one query whatever they hold).
    let largest = crate::data::products::LARGEST_INVENTORY_BYTES;
    let (inventories, next_cursor) = paging
        .page_shown_within(query, largest, view::inventory)
        .await?;
    if inventories.is_empty() && paging.is_first() && !deps.table.exists(&k::product(sku)).await? {
        return Err(Refused::ProductNotFound.because(format!("No such product: {sku}")));
    }
    api::json(
        200,
        &Page {
            sku,
            inventories,
            next_cursor,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use serde_json::Value;
    use testkit::Harness;

    fn warehouses(page: &Value) -> Vec<(String, u64)> {
        page["inventories"]
            .as_array()
            .expect("inventories")
            .iter()
            .map(|i| {
                (
                    i["warehouseId"].as_str().unwrap().to_owned(),
                    i["quantity"].as_u64().unwrap(),
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn every_warehouse_of_one_product_by_warehouse_id_a_page_at_a_time() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        fixtures::product(&table, 42).await;
        fixtures::product(&table, 43).await;
        let (s, b) = h.as_staff().get("/products/42/inventory", &[]).await;
        assert_eq!((s, &b["inventories"]), (200, &serde_json::json!([])), "{b}");
        // The small org's warehouses, written out of order.
        for (warehouse, quantity) in [("W2", 30), ("W1", 12)] {
            fixtures::inventory(&table, 42, warehouse, quantity).await;
        }
        fixtures::inventory(&table, 43, "W1", 7).await;
        table.meter().reset();
        let pages = h.as_staff().walk("/products/42/inventory", &[], "1").await;
        assert!(pages.iter().all(|p| warehouses(p).len() <= 1), "{pages:?}");
        let all: Vec<_> = pages.iter().flat_map(warehouses).collect();
        let want = [("W1", 12), ("W2", 30)].map(|(w, q)| (w.to_owned(), q));
        assert_eq!(
            all, want,
            "by warehouse id; neither the product's record nor 43's stock"
        );
        assert!(
            table.meter().operations().iter().all(|op| *op == "Query"),
            "only Queries: {:?}",
            table.meter().operations()
        );
        let answer = h.as_staff().get("/products/44/inventory", &[]).await;
        testkit::assert_refused(&answer, 404, "product_not_found", "an unknown product");
    }

    #[tokio::test]
    async fn only_staff_read_stock() {
        let table = testkit::table().await;
        let h = Harness::new(&FUNCTION, handle, table.clone()).dispatched();
        let (s, _) = h.as_sub("123").get("/products/42/inventory", &[]).await;
        assert_eq!(s, 403);
        let (s, _) = h.get("/products/42/inventory", &[]).await;
        assert_eq!(s, 401);
    }
}
