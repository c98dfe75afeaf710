//! R1: GET /books/{isbn}: a book and its reviews, newest first, paginated, one query per page.

use reviews::get_book as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
