//! C7: GET /carts/{cartId}: a cart and its lines, in one query.

use commerce::get_cart as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
