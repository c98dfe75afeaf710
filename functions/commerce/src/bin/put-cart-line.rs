//! C7: PUT /carts/{cartId}/items/{productId}: set (or with quantity 0 remove) a cart line.

use commerce::put_cart_line as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
