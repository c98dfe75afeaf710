//! O12: `GET /products/{sku}/inventory/{warehouseId}` → a product's stock in one warehouse (seed
//! 003 #12), with its version (what a PUT of an absolute quantity names): ONE GetItem of `PRODUCT#<sku>`, `WAREHOUSE#<warehouseId>`. 404
//! `inventory_not_found` when the warehouse holds no record of the product (or either does not
//! exist). Staff only.

use crate::data::products;
use crate::views as view;
use api::declare::*;
use keys::commerce::Sku;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-inventory",
    Access::Staff,
    &Route::get(
        "/products/{sku}/inventory/{warehouseId}",
        "O12: a product's stock in one warehouse: one GetItem",
        &[Pattern {
            id: "O12",
            route: "`GET /products/{sku}/inventory/{warehouseId}` (staff)",
            index: Index::Table,
            request: "GetItem `PRODUCT#<sku>` / `WAREHOUSE#<warehouseId>`",
            returns: "the inventory `{sku, warehouseId, quantity, updatedAt, version}`; 404 `inventory_not_found`",
            example: Example::staff("/products/42/inventory/W1"),
        }],
    ),
);

api::refusals! {
    InventoryNotFound = crate::refusals::INVENTORY_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::ok::<view::Inventory>("the inventory").refusals(Refused::ALL)];

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    let warehouse = api::path_id(&req, "warehouseId")?;
    let found = products::inventory(&deps.table, sku, &warehouse).await?;
    api::found(found, view::inventory, Refused::InventoryNotFound, || {
        format!("Warehouse {warehouse} holds no inventory of product {sku}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use serde_json::{Value, json};
    use store::Table;
    use testkit::Harness;

    async fn get(table: &Table, sku: &str, warehouse: &str) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.as_staff().get(&h.path(&[sku, warehouse]), &[]).await
    }

    #[tokio::test]
    async fn o12_is_one_get_item_of_one_small_item() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        fixtures::inventory(&table, 42, "W1", 12).await;
        fixtures::inventory(&table, 42, "W2", 30).await;
        table.meter().reset();
        let (s, b) = get(&table, "42", "W1").await;
        assert_eq!(s, 200, "{b}");
        let updated_at = b["updatedAt"].as_str().unwrap_or_default();
        assert!(keys::Timestamp::parse(updated_at).is_ok(), "{b}");
        assert_eq!(
            b,
            json!({ "sku": 42, "warehouseId": "W1", "quantity": 12, "updatedAt": updated_at, "version": 1 }),
            "the version a PUT of an absolute quantity names"
        );
        testkit::assert_one_small_get(&table);
    }

    #[tokio::test]
    async fn no_inventory_is_404() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        fixtures::inventory(&table, 42, "W1", 12).await;
        // Another warehouse, another product, a warehouse that does not exist.
        let cases = [("42", "W2"), ("43", "W1"), ("42", "W9")];
        let cases = cases.map(|path| (path, 404, "inventory_not_found"));
        testkit::assert_errors(cases, async |(sku, w)| get(&table, sku, w).await).await;
    }

    #[tokio::test]
    async fn bad_path_parameters_are_400_and_read_nothing() {
        let table = testkit::table().await;
        let long = "w".repeat(65);
        let cases = [
            ("0", "W1"),
            ("042", "W1"),
            ("abc", "W1"),
            ("1000000000000", "W1"),
            ("42", "W#1"),
            ("42", "W 1"),
            ("42", &long),
        ];
        let cases = cases.map(|path| (path, 400, "invalid_parameter"));
        testkit::assert_errors(cases, async |(sku, w)| get(&table, sku, w).await).await;
        assert!(table.meter().requests().is_empty());
    }
}
