//! C3: POST /customers/{customerId}/orders: place an order in one transaction, idempotent under retries.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        place_order::PATTERN,
        place_order::NEEDS,
        place_order::ACCESS,
        place_order::handle,
    )
    .await
}
