//! `POST /products/{sku}/inventory/{warehouseId}/adjustments` with `{"delta"}`: goods received
//! (a positive delta) or shipped (a negative one), without reading first. ONE UpdateItem: an atomic
//! `ADD` to the quantity, on condition that the stock stays within 0 and 1,000,000,000, so
//! concurrent adjustments all count and none takes the stock below 0 (409 `insufficient_stock`,
//! or `stock_limit_exceeded`, naming the stock now; nothing written). The inventory must exist
//! (404 `inventory_not_found`: create it with `PUT`). Its version goes up by one, as with every
//! write. Staff only.

use crate::data::products::{self as products, Adjusted};
use crate::views as view;
use api::declare::*;
use keys::{Timestamp, commerce::Sku};
use serde::Deserialize;

use crate::put_inventory::MAX_QUANTITY;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "adjust-inventory",
    Access::Staff,
    &Route::post(
        "/products/{sku}/inventory/{warehouseId}/adjustments",
        "Goods received or shipped: a relative change of a product's stock in a warehouse, never below 0",
        &[Pattern {
            id: "",
            route: "`POST /products/{sku}/inventory/{warehouseId}/adjustments` `{delta: ±1–1,000,000,000}` (staff)",
            index: Index::Table,
            request: "UpdateItem `PRODUCT#<sku>` / `WAREHOUSE#<warehouseId>`: `ADD Quantity :delta, Version 1` if the result stays within 0–1,000,000,000",
            returns: "the inventory `{sku, warehouseId, quantity, updatedAt, version}`; 404 `inventory_not_found`; 409 `insufficient_stock`, `stock_limit_exceeded`",
            example: Example::staff("/products/42/inventory/W1/adjustments")
                .with_body(r#"{"delta": -2}"#)
                .with_worst(|| {
                    api::function::Worst::new(
                        format!("the whole stock out at once, from the highest quantity ({MAX_QUANTITY})"),
                        Example::staff("/products/42/inventory/W2/adjustments").with_body(
                            api::function::leak(format!(r#"{{"delta": -{MAX_QUANTITY}}}"#)),
                        ),
                    )
                    .after("put-inventory", crate::put_inventory::largest())
                }),
        }],
    ),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::ok::<view::Inventory>("the inventory after the change")
            .body::<Adjust>()
            .refusals(&[
                Refusal::NOT_FOUND,
                Refusal::new(409, "`insufficient_stock` (it would go below 0) or `stock_limit_exceeded` (above 1,000,000,000); nothing was written"),
            ]),
];

/// Units received (positive) or shipped (negative): at most a whole stock either way, so neither
/// the delta nor its negation can overflow (i64::MIN once did: `abs()` panicked or wrapped).
type Delta = api::Bounded<{ -(MAX_QUANTITY as i64) }, { MAX_QUANTITY as i64 }>;

/// A relative change of the stock.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct Adjust {
    /// units received (positive) or shipped (negative), not 0
    #[schemars(extend("not" = { "const": 0 }))]
    delta: Delta,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    let warehouse = api::path_id(&req, "warehouseId")?;
    let body: Adjust = api::json_body(&req)?;
    let delta = body.delta.get();
    if delta == 0 {
        return Err(ApiError::bad_request(
            "invalid_body",
            format!(
                "delta: give the units received (1 to {MAX_QUANTITY}) or shipped (-1 to -{MAX_QUANTITY}), not 0"
            ),
        ));
    }
    let adjusted = products::adjust_inventory(
        &deps.table,
        sku,
        &warehouse,
        delta,
        MAX_QUANTITY,
        Timestamp::now(),
    )
    .await?;
    match adjusted {
        Adjusted::Applied(inventory) => api::json(200, &view::inventory(&inventory)),
        Adjusted::NotFound => Err(ApiError::not_found(
            "inventory_not_found",
            format!(
                "Warehouse {warehouse} holds no inventory of product {sku}; create it with PUT first"
            ),
        )),
        Adjusted::OutOfRange(now) if delta < 0 => Err(ApiError::new(
            409,
            "insufficient_stock",
            format!(
                "Warehouse {warehouse} holds {} of product {sku}, fewer than {}; nothing was taken",
                now.quantity, -delta
            ),
        )),
        Adjusted::OutOfRange(now) => Err(ApiError::new(
            409,
            "stock_limit_exceeded",
            format!(
                "Warehouse {warehouse} holds {} of product {sku}; {} more would pass {MAX_QUANTITY}",
                now.quantity, delta
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use serde_json::{Value, json};
    use store::Table;
    use testkit::{Harness, all_items};

    async fn adjust(table: &Table, sku: &str, warehouse: &str, body: &str) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.as_staff().post(&h.path(&[sku, warehouse]), body).await
    }

    async fn stocked(quantity: u32) -> Table {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        fixtures::inventory(&table, 42, "W1", quantity).await;
        table.meter().reset();
        table
    }

    async fn stock(table: &Table) -> (u32, u64) {
        let i = products::inventory(table, fixtures::sku(42), &fixtures::id("W1"))
            .await
            .unwrap()
            .unwrap();
        (i.quantity, i.version)
    }

    /// N parallel adjustments, received and shipped, all count: the stock is exactly the sum,
    /// each one ONE UpdateItem.
    #[tokio::test]
    async fn parallel_adjustments_sum_exactly() {
        let table = stocked(100).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&["42", "W1"]);
        let deltas: Vec<i64> = (0..40).map(|i| if i % 4 == 0 { -3 } else { 2 }).collect();
        let calls = deltas.iter().map(|d| {
            let body = format!(r#"{{"delta":{d}}}"#);
            let (h, path) = (&h, &path);
            async move { h.as_staff().post(path, &body).await }
        });
        let answers = futures::future::join_all(calls).await;
        assert!(answers.iter().all(|(s, _)| *s == 200), "{answers:?}");
        let ops = table.meter().operations();
        assert_eq!(ops, vec!["UpdateItem"; deltas.len()]);
        let expected = 100 + deltas.iter().sum::<i64>();
        assert_eq!(
            stock(&table).await,
            (expected as u32, 1 + deltas.len() as u64)
        );
    }

    /// Shipping more than the stock is refused whole (409, naming the stock), and so are
    /// concurrent shipments that together would: the stock never goes below 0.
    #[tokio::test]
    async fn the_stock_never_goes_below_zero() {
        let table = stocked(5).await;
        let (s, b) = adjust(&table, "42", "W1", r#"{"delta":-6}"#).await;
        assert_eq!((s, &b["code"]), (409, &json!("insufficient_stock")), "{b}");
        assert!(b["message"].as_str().unwrap().contains("holds 5"), "{b}");
        assert_eq!(stock(&table).await, (5, 1), "nothing taken");

        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&["42", "W1"]);
        let calls = (0..8).map(|_| {
            let (h, path) = (&h, &path);
            async move { h.as_staff().post(path, r#"{"delta":-1}"#).await }
        });
        let answers = futures::future::join_all(calls).await;
        let shipped = answers.iter().filter(|(s, _)| *s == 200).count();
        assert_eq!(shipped, 5, "{answers:?}");
        assert!(answers.iter().all(|(s, _)| *s == 200 || *s == 409));
        assert_eq!(stock(&table).await.0, 0);
    }

    #[tokio::test]
    async fn bad_input_and_unknown_inventories_are_4xx_and_write_nothing() {
        let table = stocked(5).await;
        let before = all_items(&table).await;
        // i64's extremes: `abs()` of the first overflowed (a panic, or a wrapped condition that
        // let the stock go below 0).
        const I64_MIN: &str = r#"{"delta":-9223372036854775808}"#;
        const I64_MAX: &str = r#"{"delta":9223372036854775807}"#;
        const OVER_LIMIT: &str = r#"{"delta":1000000000}"#;
        for (sku, warehouse, body, status, code) in [
            ("42", "W1", r#"{"delta":0}"#, 400, "invalid_body"),
            ("42", "W1", r#"{"delta":1000000001}"#, 400, "invalid_body"),
            ("42", "W1", r#"{"delta":-1000000001}"#, 400, "invalid_body"),
            ("42", "W1", r#"{"delta":1.5}"#, 400, "invalid_body"),
            ("42", "W1", I64_MIN, 400, "invalid_body"),
            ("42", "W1", I64_MAX, 400, "invalid_body"),
            ("42", "W1", r#"{"quantity":1}"#, 400, "invalid_body"),
            ("42", "W#1", r#"{"delta":1}"#, 400, "invalid_parameter"),
            ("42", "W2", r#"{"delta":1}"#, 404, "inventory_not_found"),
            ("43", "W1", r#"{"delta":1}"#, 404, "inventory_not_found"),
            ("42", "W1", OVER_LIMIT, 409, "stock_limit_exceeded"),
        ] {
            let (s, b) = adjust(&table, sku, warehouse, body).await;
            assert_eq!((s, b["code"].as_str()), (status, Some(code)), "{body}: {b}");
        }
        assert_eq!(all_items(&table).await, before, "nothing written");
    }
}
