//! C6: POST /orders/{orderId}/events: append a tracking event.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let table = store::Table::from_env().await?;
    api::run(|req| add_order_event::handle(&table, req)).await
}
