//! R3: DELETE /books/{isbn}/reviews/{username}: remove a user's review of a book and its marker, in one transaction.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        delete_review::PATTERN,
        delete_review::NEEDS,
        delete_review::ACCESS,
        delete_review::handle,
    )
    .await
}
