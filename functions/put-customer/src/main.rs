//! C2: PUT /customers/{customerId}: create or update a customer.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_customer::PATTERN,
        put_customer::NEEDS,
        put_customer::ACCESS,
        put_customer::handle,
    )
    .await
}
