//! R4: PUT /users/{username}: create or update a user, keeping their derived review count.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let table = store::Table::from_env().await?;
    api::run(|req| put_user::handle(&table, req)).await
}
