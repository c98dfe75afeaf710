//! C7: DELETE /carts/{cartId}/items/{productId}: remove a cart line.

use commerce::delete_cart_line as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
