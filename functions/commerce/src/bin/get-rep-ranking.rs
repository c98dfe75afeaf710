//! O14: GET /reps/ranking?period=YYYY-Qn (staff)

use commerce::get_rep_ranking as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
