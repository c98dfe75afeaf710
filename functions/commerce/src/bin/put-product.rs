//! PUT /products/{sku}: create or replace a product (staff).

use commerce::put_product as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
