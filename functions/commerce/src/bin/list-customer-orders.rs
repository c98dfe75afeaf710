//! C4: GET /customers/{customerId}/orders: a customer's orders in a date range, newest first, paginated.

use commerce::list_customer_orders as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
