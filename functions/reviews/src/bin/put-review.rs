//! R3: PUT /books/{isbn}/reviews/{username}: write a user's one review of a book, in one transaction.

use reviews::put_review as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
