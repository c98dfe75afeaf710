//! Sharded aggregate read: GET /products/{sku}/sales: units sold and revenue, summed over every write shard in one BatchGetItem.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_product_sales::PATTERN,
        get_product_sales::NEEDS,
        get_product_sales::ACCESS,
        get_product_sales::handle,
    )
    .await
}
