//! Sharded aggregate read: GET /stats/daily/{date}: site-wide orders, revenue and reviews of a day, summed over every write shard in one BatchGetItem.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_daily_stats::PATTERN,
        get_daily_stats::NEEDS,
        get_daily_stats::ACCESS,
        get_daily_stats::handle,
    )
    .await
}
