//! Stream handler: per-customer order count and lifetime value, units sold per product and daily
//! order counts (both write sharded). Wiring only; the handler is in lib.rs.

use lambda_runtime::{LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    streams::init_tracing();
    let deps = aggregate_orders::Deps {
        table: store::Table::from_env().await?,
        shards: streams::shards_from_env()?,
    };
    lambda_runtime::run(service_fn(|event: LambdaEvent<streams::Event>| {
        let deps = &deps;
        async move {
            Ok::<_, lambda_runtime::Error>(aggregate_orders::handle(deps, &event.payload).await)
        }
    }))
    .await
}
