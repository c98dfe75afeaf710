//! C4: GET /customers/{customerId}/orders: a customer's orders in a date range, newest first, paginated.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_customer_orders::PATTERN,
        list_customer_orders::NEEDS,
        list_customer_orders::ACCESS,
        list_customer_orders::handle,
    )
    .await
}
