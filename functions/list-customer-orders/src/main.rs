//! C4: GET /customers/{customerId}/orders: a customer's orders in a date range, newest first, paginated.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let deps = list_customer_orders::Deps {
        table: store::Table::from_env().await?,
        cursors: store::cursor::CursorCodec::from_env()?,
    };
    api::run(|req| list_customer_orders::handle(&deps, req)).await
}
