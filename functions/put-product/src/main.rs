//! PUT /products/{sku}: create or replace a product (staff).
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_product::PATTERN,
        put_product::NEEDS,
        put_product::ACCESS,
        put_product::handle,
    )
    .await
}
