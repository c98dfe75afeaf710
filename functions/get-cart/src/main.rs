//! C7: GET /carts/{cartId}: a cart and its lines, in one query.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let table = store::Table::from_env().await?;
    api::run(|req| get_cart::handle(&table, req)).await
}
