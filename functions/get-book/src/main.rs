//! R1: GET /books/{isbn}: a book and its reviews, newest first, paginated, one query per page.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_book::PATTERN,
        get_book::NEEDS,
        get_book::ACCESS,
        get_book::handle,
    )
    .await
}
