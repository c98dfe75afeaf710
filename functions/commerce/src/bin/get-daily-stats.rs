//! Sharded aggregate read: GET /stats/daily/{date}: site-wide orders, revenue and reviews of a day, summed over every write shard in one BatchGetItem.

use commerce::get_daily_stats as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
