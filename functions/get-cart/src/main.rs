//! C7: GET /carts/{cartId}: a cart and its lines, in one query.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_cart::PATTERN,
        get_cart::NEEDS,
        get_cart::ACCESS,
        get_cart::handle,
    )
    .await
}
