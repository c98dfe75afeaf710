//! `POST /products/{sku}/inventory/{warehouseId}/adjustments` with `{"delta"}`: goods received
//! (a positive delta) or shipped (a negative one), without reading first. ONE UpdateItem: an atomic
//! `ADD` to the quantity, on condition that the stock stays within 0 and 1,000,000,000, so
//! concurrent adjustments all count and none takes the stock below 0 (409 `insufficient_stock`,
//! or `stock_limit_exceeded`, naming the stock now; nothing written). The inventory must exist
//! (404 `inventory_not_found`: create it with `PUT`). Its version goes up by one, as with every
//! write. Staff only. An adjustment is not idempotent: under an `Idempotency-Key` ([`replay`]),
//! a retry of one whose answer was lost answers the inventory as the first left it, changing
//! nothing.

use crate::data::products::{self as products, Adjusted};
use crate::replay;
use crate::views as view;
use api::declare::*;
use keys::{Timestamp, commerce::Sku};
use serde::Deserialize;

const MAX_QUANTITY: u32 = model::commerce::Inventory::MAX_STOCK;

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
            request: "UpdateItem `PRODUCT#<sku>` / `WAREHOUSE#<warehouseId>`: `ADD Quantity :delta, Version 1` if the result stays within 0–1,000,000,000 (with an `Idempotency-Key`: and the key's mark is absent; the mark is set with the quantity and version it leaves)",
            returns: "the inventory `{sku, warehouseId, quantity, updatedAt, version}`; 404 `inventory_not_found`; 409 `insufficient_stock`, `stock_limit_exceeded`; 422 `idempotency_key_reused`",
            example: Example::staff("/products/42/inventory/W1/adjustments")
                .with_body(r#"{"delta": -2}"#),
        }],
    ),
);

api::refusals! {
    InventoryNotFound = crate::refusals::INVENTORY_NOT_FOUND,
    InsufficientStock = Refusal::new(409, "insufficient_stock", "the adjustment would take the stock below 0; nothing was written"),
    StockLimitExceeded = Refusal::new(409, "stock_limit_exceeded", "the adjustment would take the stock above 1,000,000,000; nothing was written"),
    InvalidIdempotencyKey = crate::replay::INVALID_KEY,
    IdempotencyKeyReused = crate::replay::KEY_REUSED,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::ok::<view::Inventory>("the inventory after the change")
            .body::<Adjust>()
            .refusals(Refused::ALL)
            .more(|| replay::documented("200", "the inventory as that adjustment left it"))
            .worst(|| {
                api::function::Worst::new(
                    format!(
                        "the whole stock out at once, from the highest quantity ({MAX_QUANTITY})"
                    ),
                    Example::staff("/products/42/inventory/W2/adjustments").with_body(
                        api::function::leak(format!(r#"{{"delta": -{MAX_QUANTITY}}}"#)),
                    ),
                )
                .after("put-inventory", crate::put_inventory::largest())
            }),
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
        return Err(Common::InvalidBody.because(format!(
                "delta: give the units received (1 to {MAX_QUANTITY}) or shipped (-1 to -{MAX_QUANTITY}), not 0"
            ),
        ));
    }
    let named = replay::key(&req)?.map(|key| replay::Named::new(key, &serde_json::json!(delta)));
    let adjusted = products::adjust_inventory(
        &deps.table,
        sku,
        &warehouse,
        delta,
        MAX_QUANTITY,
        Timestamp::now(),
        named.as_ref(),
    )
    .await?;
    match adjusted {
        Adjusted::Applied(inventory) => api::json(200, &view::inventory(&inventory)),
        Adjusted::Replayed {
            inventory,
            same_request: true,
        } => Ok(replay::replayed(api::json(
            200,
            &view::inventory(&inventory),
        )?)),
        Adjusted::Replayed { .. } => Err(replay::reused()),
        Adjusted::NotFound => Err(Refused::InventoryNotFound.because(format!(
            "Warehouse {warehouse} holds no inventory of product {sku}; create it with PUT first"
        ))),
        Adjusted::OutOfRange(now) if delta < 0 => Err(Refused::InsufficientStock.because(format!(
            "Warehouse {warehouse} holds {} of product {sku}, fewer than {}; nothing was taken",
            now.quantity, -delta
        ))),
        Adjusted::OutOfRange(now) => Err(Refused::StockLimitExceeded.because(format!(
            "Warehouse {warehouse} holds {} of product {sku}; {} more would pass {MAX_QUANTITY}",
            now.quantity, delta
        ))),
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

    /// The answer to a keyed adjustment is lost after DynamoDB applied it (the function killed,
    /// a 503 after the write): the client's retry under the same key answers what the first
    /// answered, with `Idempotent-Replayed`, and the stock moved once, also when another
    /// adjustment came in between. The same key with another delta is a 422, nothing written.
    #[tokio::test]
    async fn a_keyed_adjustment_sent_twice_is_applied_once() {
        let table = stocked(10).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&["42", "W1"]);
        let keyed = |body: &'static str| {
            let (h, path) = (&h, &path);
            async move {
                h.as_staff()
                    .with_header("Idempotency-Key", "ship-7")
                    .post_full(path, body)
                    .await
            }
        };
        let (s, _, first) = keyed(r#"{"delta":-3}"#).await;
        assert_eq!(s, 200, "{first}");
        assert_eq!(
            (first["quantity"].clone(), first["version"].clone()),
            (json!(7), json!(2))
        );
        // Someone else's adjustment, then the retry.
        let (s, _) = adjust(&table, "42", "W1", r#"{"delta":5}"#).await;
        assert_eq!(s, 200);
        let before = all_items(&table).await;
        let (s, headers, again) = keyed(r#"{"delta":-3}"#).await;
        assert_eq!((s, &again), (200, &first), "the first answer again");
        assert_eq!(
            headers
                .get("idempotent-replayed")
                .map(|v| v.to_str().unwrap()),
            Some("true")
        );
        let (s, _, other) = keyed(r#"{"delta":-4}"#).await;
        assert_eq!(
            (s, other["code"].as_str()),
            (422, Some("idempotency_key_reused")),
            "{other}"
        );
        assert_eq!(all_items(&table).await, before, "the retries wrote nothing");
        assert_eq!(stock(&table).await, (12, 3), "10 - 3 + 5, three writes");
    }

    /// A key's mark goes once it is a day old (or beyond the newest `KEPT_MARKS`): an inventory
    /// adjusted under keys all year does not grow toward DynamoDB's 400 KB.
    #[tokio::test]
    async fn a_days_old_key_is_forgotten_at_the_next_write() {
        use store::{Condition, Update};
        let table = stocked(10).await;
        let key = keys::commerce::inventory(fixtures::sku(42), &fixtures::id("W1"));
        let old = replay::Named::new(keys::Id::parse("k", "old-key").unwrap(), &json!(1)).mark();
        let two_days_ago = Timestamp::from_ms(keys::now_ms() - 2 * 86_400_000).unwrap();
        let planted = Update::new()
            .set_named(old.clone(), model::s(format!("h {two_days_ago}")))
            .set_named(format!("{old}_q"), model::n(11))
            .set_named(format!("{old}_v"), model::n(2));
        table
            .update(&key, &planted, Some(Condition::Exists))
            .await
            .unwrap();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let (s, _, b) = h
            .as_staff()
            .with_header("Idempotency-Key", "new-key")
            .post_full(&h.path(&["42", "W1"]), r#"{"delta":1}"#)
            .await;
        assert_eq!(s, 200, "{b}");
        let item = table
            .get_item(&key, store::Read::Strong, None)
            .await
            .unwrap()
            .unwrap();
        let marks: Vec<&String> = item
            .keys()
            .filter(|n| n.starts_with(replay::MARK_PREFIX))
            .collect();
        assert_eq!(marks.len(), 3, "only the new key's mark: {marks:?}");
        assert!(!item.contains_key(&old));
    }

    /// Keyed adjustments without end: the inventory keeps its newest `KEPT_MARKS` keys only,
    /// so its size (what every write and read of it is billed by) stays bounded: with the
    /// longest warehouse id and the highest SKU, at most `LARGEST_INVENTORY_BYTES`, the size
    /// staff pages of inventories assume, and within 1 KB of it.
    #[tokio::test]
    async fn an_inventory_keeps_its_newest_keys_only() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        let (sku, warehouse) = (999_999_999_999, "w".repeat(keys::MAX_ID_LEN));
        let longest = model::hr::Warehouse {
            warehouse_id: fixtures::id(&warehouse),
            name: "The longest id".into(),
            region_id: fixtures::id("EU"),
        };
        hr::data::put_reference(&table, &longest).await.unwrap();
        fixtures::product(&table, sku).await;
        fixtures::inventory(&table, sku, &warehouse, 10).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&[&sku.to_string(), &warehouse]);
        for i in 0..products::KEPT_MARKS + 8 {
            let key = format!("bulk-{i}-{}", "k".repeat(keys::MAX_ID_LEN - 10));
            let (s, _, b) = h
                .as_staff()
                .with_header("Idempotency-Key", &key)
                .post_full(&path, r#"{"delta":1}"#)
                .await;
            assert_eq!(s, 200, "{b}");
        }
        let key = keys::commerce::inventory(fixtures::sku(sku), &fixtures::id(&warehouse));
        let item = table
            .get_item(&key, store::Read::Strong, None)
            .await
            .unwrap()
            .unwrap();
        let marks = item
            .keys()
            .filter(|n| {
                n.starts_with(replay::MARK_PREFIX) && !n.ends_with("_q") && !n.ends_with("_v")
            })
            .count();
        assert!(marks <= products::KEPT_MARKS, "{marks} marks");
        let size = testkit::item_size(&item);
        let largest = products::LARGEST_INVENTORY_BYTES as usize;
        assert!(
            size <= largest && size + 1024 > largest,
            "{size} bytes with {marks} marks"
        );
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
