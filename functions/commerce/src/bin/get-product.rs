//! O13: GET /products/{sku}: a product with its total inventory.

use commerce::get_product as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
