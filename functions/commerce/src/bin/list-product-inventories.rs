//! O12 (every warehouse): GET /products/{sku}/inventory: a product's stock in each warehouse (staff)

use commerce::list_product_inventories as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
