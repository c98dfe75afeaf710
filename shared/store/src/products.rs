//! Products and their inventories (the order entry of AWS's relational example): writes and point
//! reads (O12, O13), shared by the functions, the seed loader and the tests. O8 is declared in the
//! function that serves it.

use keys::{
    Id, Timestamp,
    commerce::{self as k, Sku},
    hr::{Reference, reference},
};
use model::{
    commerce::{Inventory, Product},
    s,
};

use crate::{Condition, Read, StoreError, Table, Update};

/// Creates the product or replaces its name and description, keeping its derived total
/// inventory. Returns the product as stored and whether this call created it. One UpdateItem.
pub async fn put_product(
    table: &Table,
    sku: Sku,
    name: &str,
    description: Option<&str>,
    now: Timestamp,
) -> Result<(Product, bool), StoreError> {
    let now = s(now.to_string());
    let update = Update::new()
        .set(Product::SKU, model::n(sku.get()))
        .set(Product::NAME, s(name))
        .set(Product::UPDATED_AT, now.clone())
        .set_if_absent(Product::CREATED_AT, now);
    let update = match description {
        Some(d) => update.set(Product::DESCRIPTION, s(d)),
        None => update.remove(Product::DESCRIPTION),
    };
    table.upsert(&k::product(sku), update).await
}

/// What an inventory PUT did.
#[derive(Debug, Clone, PartialEq)]
pub enum InventoryPut {
    /// Stored; `true` when this call created it.
    Stored(bool),
    NoProduct,
    NoWarehouse,
}

/// Sets a product's stock in a warehouse, the product and the warehouse checked to exist in the
/// same transaction. The product's total is derived from this item by the stream pipeline.
pub async fn put_inventory(
    table: &Table,
    inventory: &Inventory,
) -> Result<InventoryPut, StoreError> {
    // Created or replaced: the first try puts on `attribute_not_exists`, a second replaces.
    for create in [true, false] {
        let mut tx = table.transaction();
        let product = tx.check(&k::product(inventory.sku), Condition::Exists)?;
        let warehouse = tx.check(
            &reference(Reference::Warehouse, &inventory.warehouse_id),
            Condition::Exists,
        )?;
        let put = tx.put(inventory, create.then_some(Condition::Absent))?;
        match tx.send().await {
            Ok(()) => return Ok(InventoryPut::Stored(create)),
            Err(e) if product.failed(&e) => return Ok(InventoryPut::NoProduct),
            Err(e) if warehouse.failed(&e) => return Ok(InventoryPut::NoWarehouse),
            Err(e) if create && put.failed(&e) => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("the second try replaces without a condition")
}

/// O13: a product with its total inventory over all warehouses: ONE GetItem (the total is on the
/// product's own record, derived by the stream pipeline).
pub async fn product(table: &Table, sku: Sku) -> Result<Option<Product>, StoreError> {
    table.get(&k::product(sku), Read::Eventual).await
}

/// O12: a product's stock in one warehouse: ONE GetItem.
pub async fn inventory(
    table: &Table,
    sku: Sku,
    warehouse: &Id,
) -> Result<Option<Inventory>, StoreError> {
    table
        .get(&k::inventory(sku, warehouse), Read::Eventual)
        .await
}
