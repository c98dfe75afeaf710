//! C6: POST /orders/{orderId}/events: append a tracking event.

use commerce::add_order_event as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
