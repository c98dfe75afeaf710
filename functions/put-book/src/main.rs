//! R4: PUT /books/{isbn}: create or update a book, keeping its derived rating.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_book::PATTERN,
        put_book::NEEDS,
        put_book::ACCESS,
        put_book::handle,
    )
    .await
}
