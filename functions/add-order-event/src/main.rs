//! C6: POST /orders/{orderId}/events: append a tracking event.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        add_order_event::PATTERN,
        add_order_event::NEEDS,
        add_order_event::ACCESS,
        add_order_event::handle,
    )
    .await
}
