//! R3: DELETE /books/{isbn}/reviews/{username}: remove a user's review of a book and its marker, in one transaction.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let table = store::Table::from_env().await?;
    api::run(|req| delete_review::handle(&table, req)).await
}
