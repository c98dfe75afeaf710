//! PUT /products/{sku}/inventory/{warehouseId}: a product's stock in a warehouse (staff).
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_inventory::PATTERN,
        put_inventory::NEEDS,
        put_inventory::ACCESS,
        put_inventory::handle,
    )
    .await
}
