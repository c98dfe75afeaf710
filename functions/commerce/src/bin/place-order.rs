//! C3: POST /customers/{customerId}/orders: place an order in one transaction, idempotent under retries.

use commerce::place_order as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
