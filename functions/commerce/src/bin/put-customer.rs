//! C2: PUT /customers/{customerId}: create or update a customer.

use commerce::put_customer as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
