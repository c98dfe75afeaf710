//! `PUT /products/{sku}/inventory/{warehouseId}` with `{"quantity", "version"?}`: a product's
//! stock in one warehouse (an entity this project adds: AWS's relational example lists
//! warehouses but no inventory entity), in the product's
//! partition (O12) and in its GSI1 partition beside its order lines (O8). Created: ONE transaction
//! checks that the product and the warehouse exist and puts the inventory at version 1 (201);
//! replaced: ONE UpdateItem sets the quantity and adds 1 to the version (200); 404
//! `product_not_found` / `warehouse_not_found` with nothing written. The product's total inventory
//! (O13) follows through the stream pipeline. Staff only.
//!
//! An absolute quantity is a read-modify-write: give the `version` read (GET answers it) and the
//! PUT applies only if no write came in between (409 `version_mismatch` otherwise; 0 means "not
//! created yet"). Without a version the quantity is set whatever it was. To count goods in or out
//! without reading first, `POST .../adjustments` adds a relative amount.

use crate::data::products::{self as products, InventoryPut};
use crate::views as view;
use api::declare::*;
use keys::{Timestamp, commerce::Sku};
use model::commerce::Inventory;
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-inventory",
    Access::Staff,
    &Route::put(
        "/products/{sku}/inventory/{warehouseId}",
        "A product's stock in a warehouse; the product and the warehouse are checked in the same transaction",
        &[Pattern {
            id: "",
            route: "`PUT /products/{sku}/inventory/{warehouseId}` `{quantity: 0–1,000,000,000, version?}` (staff)",
            index: Index::Table,
            request: "TransactWriteItems: ConditionCheck the product, ConditionCheck the warehouse; Put `PRODUCT#<sku>` / `WAREHOUSE#<warehouseId>` (`attribute_not_exists`); when it exists, UpdateItem (`Version` = the one given, if any; `ADD Version 1`)",
            returns: "`{sku, warehouseId, quantity, updatedAt, version}`; 201 / 200; 404 `product_not_found`, `warehouse_not_found`; 409 `version_mismatch`",
            example: Example::staff("/products/42/inventory/W2")
                .with_body(r#"{"quantity": 25, "version": 1}"#),
        }],
    ),
)
// A warehouse is HR's reference data: checked in HR's table.
.needs(
    Needs::TABLE
        .with_peers(&[HR_TABLE])
        .with_settings(&[INDEX_DESIGN]),
);

api::refusals! {
    ProductNotFound = crate::refusals::PRODUCT_NOT_FOUND,
    WarehouseNotFound = Refusal::new(404, "warehouse_not_found", "no warehouse has that id"),
    VersionMismatch = crate::refusals::VERSION_MISMATCH,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::put::<view::Inventory>("replaced", "created")
    .body::<PutInventory>()
    .refusals(Refused::ALL)
    .worst(|| {
        api::function::Worst::new(format!("the highest quantity, {MAX_QUANTITY}"), largest())
    })];
const MAX_QUANTITY: u32 = model::commerce::Inventory::MAX_STOCK;

/// The request that stocks product 42 in W2 at the highest quantity (on the seeds' version).
pub fn largest() -> Example {
    Example::staff("/products/42/inventory/W2").with_body(api::function::leak(format!(
        r#"{{"quantity": {MAX_QUANTITY}, "version": 1}}"#
    )))
}

/// A quantity, and the version it replaces.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct PutInventory {
    quantity: api::Bounded<0, { MAX_QUANTITY as i64 }>,
    /// the version read (GET answers it): set only if no write came in between, else 409
    /// `version_mismatch`; 0: only if there is no inventory yet. Absent: set whatever it was
    #[serde(default, deserialize_with = "api::not_null")]
    #[schemars(with = "u64")]
    version: Option<u64>,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    let warehouse = api::path_id(&req, "warehouseId")?;
    let body: PutInventory = api::json_body(&req)?;
    let quantity = body.quantity.to_u32();
    let inventory = Inventory {
        sku,
        warehouse_id: warehouse,
        quantity,
        updated_at: Timestamp::now(),
        version: 0,
    };
    match products::set_inventory(
        &deps.table,
        deps.peer(&HR_TABLE)?,
        store::index_design(deps)?,
        &inventory,
        body.version,
    ).await? {
        (InventoryPut::Stored(created), Some(stored)) => api::json(
            if created { 201 } else { 200 },
            &view::inventory(&stored),
        ),
        (InventoryPut::Stored(_), None) => Err(ApiError::from(store::StoreError::Corrupt(
            "stored without the inventory".into(),
        ))),
        (InventoryPut::VersionMismatch(current), _) => Err(Refused::VersionMismatch.because(match current {
                Some(v) => format!(
                    "The inventory is at version {v}, not {}: read it again, then set it",
                    body.version.unwrap_or_default()
                ),
                None => "There is no inventory of this product in this warehouse: give version 0 to create it".into(),
            },
        )),
        (InventoryPut::NoProduct, _) => Err(Refused::ProductNotFound.because(format!("No such product: {sku}"),
        )),
        (InventoryPut::NoWarehouse, _) => Err(Refused::WarehouseNotFound.because(format!("No such warehouse: {}", inventory.warehouse_id),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use model::Entity;
    use serde_json::{Value, json};
    use store::Table;
    use testkit::Harness;
    use testkit::all_items;

    async fn put(table: &Table, sku: &str, warehouse: &str, body: &str) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.as_staff().put(&h.path(&[sku, warehouse]), body).await
    }

    #[tokio::test]
    async fn created_in_one_transaction_then_replaced() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        table.meter().reset();
        let (s, b) = put(&table, "42", "W1", r#"{"quantity":12}"#).await;
        assert_eq!(s, 201, "{b}");
        assert_eq!(
            (&b["sku"], &b["warehouseId"], &b["quantity"]),
            (&json!(42), &json!("W1"), &json!(12))
        );
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1, "{requests:?}");
        assert_eq!(requests[0].operation, "TransactWriteItems");
        // The IAM actions of its parts (the product's and the warehouse's checks, the put).
        let mut parts = requests[0].parts.clone();
        parts.sort();
        assert_eq!(parts, ["dynamodb:ConditionCheckItem", "dynamodb:PutItem"]);
        // Three small items (two checked, one put) at a transaction's double rate: the minimum.
        // (DynamoDB also bills the put's GSI1 entry; DynamoDB Local's transaction accounting
        // leaves it out.)
        assert_eq!(requests[0].write_units, 6.0, "{requests:?}");

        let items = all_items(&table).await;
        let stored: Vec<_> = items
            .iter()
            .filter(|i| model::type_of(i) == Some(Inventory::TYPE))
            .collect();
        assert_eq!(stored.len(), 1);
        let item = stored[0];
        for (attribute, value) in [
            ("PK", "PRODUCT#000000000042"),
            ("SK", "WAREHOUSE#W1"),
            ("GSI1PK", "PRODUCT#000000000042"),
            ("GSI1SK", "WAREHOUSE#W1"),
        ] {
            assert_eq!(item[attribute].as_s().unwrap(), value, "{attribute}");
        }

        // A replace answers 200 (the create's condition fails; one update replaces).
        table.meter().reset();
        let (s, b) = put(&table, "42", "W1", r#"{"quantity":0}"#).await;
        assert_eq!((s, &b["quantity"]), (200, &json!(0)), "{b}");
        let ops = table.meter().operations();
        assert_eq!(ops, ["TransactWriteItems", "UpdateItem"]);
        let stored =
            crate::data::products::inventory(&table, fixtures::sku(42), &fixtures::id("W1"))
                .await
                .unwrap()
                .unwrap();
        assert_eq!(stored.quantity, 0);
        assert_eq!(
            all_items(&table).await.len(),
            items.len(),
            "replaced, not added"
        );

        // The bound itself is fine.
        let (s, b) = put(&table, "42", "W2", r#"{"quantity":1000000000}"#).await;
        assert_eq!((s, &b["quantity"]), (201, &json!(MAX_QUANTITY)));
    }

    /// No lost update: a client that read version v sets an absolute quantity on condition that
    /// the version is still v. Two writers that read the same version: one wins, the other is a
    /// 409 naming the version now, and nothing of it is written. Without a version a PUT sets the
    /// quantity whatever it was (the simplest client's path, last writer wins).
    #[tokio::test]
    async fn two_writers_with_the_same_version_one_wins_one_is_409() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        let (s, b) = put(&table, "42", "W1", r#"{"quantity":10}"#).await;
        assert_eq!((s, &b["version"]), (201, &json!(1)), "{b}");
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&["42", "W1"]);
        let writers = [7, 9].map(|q| {
            let body = format!(r#"{{"quantity":{q},"version":1}}"#);
            let (h, path) = (&h, &path);
            async move { h.as_staff().put(path, &body).await }
        });
        let answers = futures::future::join_all(writers).await;
        let mut statuses: Vec<u16> = answers.iter().map(|(s, _)| *s).collect();
        statuses.sort();
        assert_eq!(statuses, [200, 409], "{answers:?}");
        let (won, lost) = if answers[0].0 == 200 {
            (&answers[0].1, &answers[1].1)
        } else {
            (&answers[1].1, &answers[0].1)
        };
        assert_eq!(won["version"], json!(2));
        assert_eq!(lost["code"], json!("version_mismatch"));
        assert!(
            lost["message"].as_str().unwrap().contains("version 2"),
            "{lost}"
        );
        let stored =
            crate::data::products::inventory(&table, fixtures::sku(42), &fixtures::id("W1"))
                .await
                .unwrap()
                .unwrap();
        assert_eq!(
            (stored.quantity, stored.version),
            (won["quantity"].as_u64().unwrap() as u32, 2)
        );

        // Version 0: only if there is none yet (or it was written before versions).
        let (s, b) = put(&table, "42", "W2", r#"{"quantity":3,"version":0}"#).await;
        assert_eq!((s, &b["version"]), (201, &json!(1)), "{b}");
        let (s, b) = put(&table, "42", "W2", r#"{"quantity":4,"version":0}"#).await;
        assert_eq!((s, &b["code"]), (409, &json!("version_mismatch")), "{b}");
        // No version: set, whatever it was.
        let (s, b) = put(&table, "42", "W2", r#"{"quantity":5}"#).await;
        assert_eq!(
            (s, &b["quantity"], &b["version"]),
            (200, &json!(5), &json!(2)),
            "{b}"
        );
    }

    #[tokio::test]
    async fn a_missing_product_or_warehouse_is_404_and_writes_nothing() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        let before = all_items(&table).await;
        for (sku, warehouse, code) in [
            ("43", "W1", "product_not_found"),
            ("42", "W9", "warehouse_not_found"),
            // Both missing: the product is named first.
            ("43", "W9", "product_not_found"),
        ] {
            let (s, b) = put(&table, sku, warehouse, r#"{"quantity":1}"#).await;
            assert_eq!(
                (s, b["code"].as_str()),
                (404, Some(code)),
                "{sku} {warehouse}"
            );
        }
        assert_eq!(all_items(&table).await, before, "nothing written");
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = hr::fixtures::org_with(testkit::table().await, &[]).await;
        fixtures::product(&table, 42).await;
        let before = all_items(&table).await;
        table.meter().reset();
        let long_id = "w".repeat(65);
        let good = r#"{"quantity":1}"#;
        type Case<'a> = ((&'a str, &'a str, &'a str), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("0", "W1", good), 400, "invalid_parameter"),
            (("042", "W1", good), 400, "invalid_parameter"),
            (("abc", "W1", good), 400, "invalid_parameter"),
            (("1000000000000", "W1", good), 400, "invalid_parameter"),
            (("42", "W#1", good), 400, "invalid_parameter"),
            (("42", "W 1", good), 400, "invalid_parameter"),
            (("42", &long_id, good), 400, "invalid_parameter"),
            (("42", "W1", ""), 400, "missing_body"),
            (("42", "W1", "{"), 400, "invalid_json"),
            (("42", "W1", "[1]"), 400, "invalid_body"),
            (("42", "W1", "{}"), 400, "invalid_body"),
            (("42", "W1", r#"{"quantity":-1}"#), 400, "invalid_body"),
            (("42", "W1", r#"{"quantity":1000000001}"#), 400, "invalid_body"),
            (("42", "W1", r#"{"quantity":1e20}"#), 400, "invalid_body"),
            (("42", "W1", r#"{"quantity":1.5}"#), 400, "invalid_body"),
            (("42", "W1", r#"{"quantity":"5"}"#), 400, "invalid_body"),
            (("42", "W1", r#"{"quantity":null}"#), 400, "invalid_body"),
            // A null version is not "no version": it once wrote whatever the inventory was.
            (("42", "W1", r#"{"quantity":1,"version":null}"#), 400, "invalid_body"),
            (("42", "W1", r#"{"quantity":1,"warehouseId":"W2"}"#), 400, "invalid_body"),
        ];
        testkit::assert_errors(cases, async |(sku, warehouse, body)| {
            put(&table, sku, warehouse, body).await
        })
        .await;
        assert!(table.meter().requests().is_empty(), "nothing even sent");
        assert_eq!(all_items(&table).await, before, "nothing written");
    }
}
