//! C5: GET /orders/{orderId}: an order's tracking page (header, line items, tracking events) in one query.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_order::PATTERN,
        get_order::NEEDS,
        get_order::ACCESS,
        get_order::handle,
    )
    .await
}
