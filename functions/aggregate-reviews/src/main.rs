//! Stream handler: a book's rating, a user's review count and daily review counts (sharded).

use lambda_runtime::{LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    streams::init_tracing();
    let deps = aggregate_reviews::Deps {
        table: store::Table::from_env().await?,
        shards: streams::shards_from_env()?,
    };
    lambda_runtime::run(service_fn(|event: LambdaEvent<streams::Event>| {
        let deps = &deps;
        async move {
            Ok::<_, lambda_runtime::Error>(aggregate_reviews::handle(deps, &event.payload).await)
        }
    }))
    .await
}
