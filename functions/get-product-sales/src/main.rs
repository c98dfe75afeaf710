//! Sharded aggregate read: GET /products/{productId}/sales: units sold and revenue, summed over every write shard in one BatchGetItem.
//! Wiring only; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let deps = get_product_sales::Deps {
        table: store::Table::from_env().await?,
        shards: streams::shards_from_env()?,
    };
    api::run(|req| get_product_sales::handle(&deps, req)).await
}
