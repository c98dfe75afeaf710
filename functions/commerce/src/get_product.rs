//! O13: `GET /products/{sku}` → a product with its total inventory over every warehouse (AWS's
//! relational example, pattern 13): ONE GetItem of `PRODUCT#<sku>`, `A`. The total is not summed
//! here: the stream pipeline keeps it on the product's own record as inventories change, so the
//! read is one small item whatever the number of warehouses. A drifted total shows as `null`, named
//! in `X-Derived-Inconsistent`. 404 `product_not_found`. Anyone may read it (a catalogue page).

use crate::data::products;
use crate::views as view;
use api::declare::*;
use keys::commerce::Sku;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-product",
    Access::Public,
    &Route::get(
        "/products/{sku}",
        "O13: a product with its total inventory over every warehouse (derived): one GetItem",
        &[Pattern {
            id: "O13",
            route: "`GET /products/{sku}` (public)",
            index: Index::Table,
            request: "GetItem `PRODUCT#<sku>` / `A` (the total is on the product, kept by `commerce-stream`)",
            returns: "`{sku, name, description, createdAt, updatedAt, totalInventory}`; 404 `product_not_found`",
            example: Example::anyone("/products/42"),
        }],
    ),
);

api::refusals! {
    ProductNotFound = crate::refusals::PRODUCT_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<view::Product>("the product")
    .refusals(Refused::ALL)
    .worst_read_units(1.5)
    .worst(|| {
        use api::function::{Worst, leak};
        Worst::new(
            "the largest product (`put-product`'s worst case)",
            Example::anyone(leak(format!("/products/{}", Sku::MAX))),
        )
        .after("put-product", crate::put_product::largest(Sku::MAX))
    })];

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    let found = products::product(&deps.table, sku).await?;
    api::found(found, view::product, Refused::ProductNotFound, || {
        format!("No such product: {sku}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use model::commerce::Product;
    use serde_json::{Value, json};
    use store::{Table, Update};
    use testkit::Harness;

    /// Status, body and the drift header, as anyone (no token) gets them.
    async fn get(table: &Table, sku: &str) -> (u16, Value, Option<String>) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let response = h.anyone().get_response(&h.path(&[sku]), &[]).await;
        let header = response
            .headers()
            .get(api::DERIVED_INCONSISTENT)
            .map(|v| v.to_str().unwrap().to_owned());
        let (status, body) = testkit::response_json(&response);
        (status, body, header)
    }

    async fn set_total(
        table: &Table,
        sku: u64,
        total: store::aws_sdk_dynamodb::types::AttributeValue,
    ) {
        let update = Update::new().set(Product::TOTAL_INVENTORY, total);
        table
            .update(&keys::commerce::product(fixtures::sku(sku)), &update, None)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn o13_is_one_get_item_with_the_derived_total() {
        let table = testkit::table().await;
        fixtures::product(&table, 42).await;
        // What the stream pipeline keeps from the product's inventories.
        set_total(&table, 42, model::n(42)).await;
        table.meter().reset();
        let (s, b, drift) = get(&table, "42").await;
        assert_eq!((s, drift), (200, None), "{b}");
        assert_eq!(
            (
                &b["sku"],
                &b["name"],
                &b["description"],
                &b["totalInventory"]
            ),
            (&json!(42), &json!("Product 42"), &Value::Null, &json!(42))
        );
        assert!(b["createdAt"].is_string() && b["updatedAt"].is_string());
        testkit::assert_one_small_get(&table);
    }

    #[tokio::test]
    async fn a_drifted_total_is_null_and_named_never_a_500() {
        let table = testkit::table().await;
        fixtures::product(&table, 42).await;
        set_total(&table, 42, model::n(-3)).await;
        let (s, b, drift) = get(&table, "42").await;
        assert_eq!((s, drift.as_deref()), (200, Some("totalInventory")), "{b}");
        assert_eq!(b["totalInventory"], Value::Null);
        assert_eq!(b["name"], "Product 42", "the rest shows as usual");
    }

    #[tokio::test]
    async fn a_missing_product_is_404_and_bad_skus_are_400() {
        let table = testkit::table().await;
        fixtures::product(&table, 42).await;
        let (s, b, _) = get(&table, "43").await;
        assert_eq!((s, b["code"].as_str()), (404, Some("product_not_found")));
        table.meter().reset();
        for bad in ["0", "042", "abc", "-1", "1.5", "1000000000000", "4#2", ""] {
            let (s, b, _) = get(&table, bad).await;
            testkit::assert_refused(&(s, b), 400, "invalid_parameter", bad);
        }
        assert!(table.meter().requests().is_empty(), "nothing read");
    }
}
