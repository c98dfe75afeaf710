//! C7: PUT /carts/{cartId}/items/{productId}: set (or with quantity 0 remove) a cart line.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_cart_line::PATTERN,
        put_cart_line::NEEDS,
        put_cart_line::ACCESS,
        put_cart_line::handle,
    )
    .await
}
