//! O9: GET /reps/{repId}/customers (staff)

use commerce::list_rep_customers as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
