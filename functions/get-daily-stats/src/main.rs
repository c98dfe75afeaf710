//! Sharded aggregate read: GET /stats/daily/{date}: site-wide orders, revenue and reviews of a day, summed over every write shard in one BatchGetItem.
//! Wiring only; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let deps = get_daily_stats::Deps {
        table: store::Table::from_env().await?,
        shards: streams::shards_from_env()?,
    };
    api::run(|req| get_daily_stats::handle(&deps, req)).await
}
