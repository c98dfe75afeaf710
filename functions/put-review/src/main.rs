//! R3: PUT /books/{isbn}/reviews/{username}: write a user's one review of a book, in one transaction.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_review::PATTERN,
        put_review::NEEDS,
        put_review::ACCESS,
        put_review::handle,
    )
    .await
}
