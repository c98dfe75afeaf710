//! Stream handler: a book's rating, a user's review count and daily review counts (sharded).
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    streams::serve(
        aggregate_reviews::PATTERN,
        aggregate_reviews::NEEDS,
        aggregate_reviews::handle,
    )
    .await
}
