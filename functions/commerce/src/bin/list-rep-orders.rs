//! O10: GET /reps/{repId}/orders?status=&from=&to= (staff)

use commerce::list_rep_orders as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
