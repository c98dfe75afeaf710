//! R4: PUT /books/{isbn}: create or update a book, keeping its derived rating.

use reviews::put_book as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
