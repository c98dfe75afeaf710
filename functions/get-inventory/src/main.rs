//! O12: GET /products/{sku}/inventory/{warehouseId}: a product's stock in one warehouse (staff).
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_inventory::PATTERN,
        get_inventory::NEEDS,
        get_inventory::ACCESS,
        get_inventory::handle,
    )
    .await
}
