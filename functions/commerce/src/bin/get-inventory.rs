//! O12: GET /products/{sku}/inventory/{warehouseId}: a product's stock in one warehouse (staff).

use commerce::get_inventory as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
