//! L11-L13: GET /certificates?type=&version=&instructor=: every shard read as one ordered list.

use learning::list_certificates as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
