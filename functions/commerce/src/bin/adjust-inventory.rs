//! POST /products/{sku}/inventory/{warehouseId}/adjustments: goods received or shipped (staff).

use commerce::adjust_inventory as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
