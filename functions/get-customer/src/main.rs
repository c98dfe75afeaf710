//! C1: GET /customers/{customerId}: a customer and their newest N orders, in one query.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_customer::PATTERN,
        get_customer::NEEDS,
        get_customer::ACCESS,
        get_customer::handle,
    )
    .await
}
