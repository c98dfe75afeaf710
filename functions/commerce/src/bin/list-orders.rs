//! O5: GET /orders?status=&from=&to=: orders in a status across customers (staff).

use commerce::list_orders as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
