//! R3: DELETE /books/{isbn}/reviews/{username}: remove a user's review of a book and its marker, in one transaction.

use reviews::delete_review as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
