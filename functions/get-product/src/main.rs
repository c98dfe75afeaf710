//! O13: GET /products/{sku}: a product with its total inventory.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_product::PATTERN,
        get_product::NEEDS,
        get_product::ACCESS,
        get_product::handle,
    )
    .await
}
