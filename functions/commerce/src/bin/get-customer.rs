//! C1: GET /customers/{customerId}: a customer and their newest N orders, in one query.

use commerce::get_customer as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
