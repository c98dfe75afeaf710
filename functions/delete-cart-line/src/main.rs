//! C7: DELETE /carts/{cartId}/items/{productId}: remove a cart line.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let table = store::Table::from_env().await?;
    api::run(|req| delete_cart_line::handle(&table, req)).await
}
