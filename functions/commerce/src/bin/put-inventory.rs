//! PUT /products/{sku}/inventory/{warehouseId}: a product's stock in a warehouse (staff).

use commerce::put_inventory as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
