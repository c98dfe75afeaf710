//! C7: DELETE /carts/{cartId}/items/{productId}: remove a cart line.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        delete_cart_line::PATTERN,
        delete_cart_line::NEEDS,
        delete_cart_line::ACCESS,
        delete_cart_line::handle,
    )
    .await
}
