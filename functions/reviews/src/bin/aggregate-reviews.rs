//! Stream handler: a book's rating, a user's review count and daily review counts (sharded).

use reviews::aggregate_reviews as consumer;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    stream_handler::serve(&consumer::CONSUMER, consumer::handle).await
}
