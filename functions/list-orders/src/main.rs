//! O5: GET /orders?status=&from=&to=: orders in a status across customers (staff).
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_orders::PATTERN,
        list_orders::NEEDS,
        list_orders::ACCESS,
        list_orders::handle,
    )
    .await
}
