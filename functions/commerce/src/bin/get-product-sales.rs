//! Sharded aggregate read: GET /products/{sku}/sales: units sold and revenue, summed over every write shard in one BatchGetItem.

use commerce::get_product_sales as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
