//! C5: GET /orders/{orderId}: an order's tracking page (header, line items, tracking events) in one query.

use commerce::get_order as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
