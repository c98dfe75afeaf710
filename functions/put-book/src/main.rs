//! R4: PUT /books/{isbn}: create or update a book, keeping its derived rating.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let table = store::Table::from_env().await?;
    api::run(|req| put_book::handle(&table, req)).await
}
