//! POST /certificates: issue a certificate for a course occurrence.

use learning::issue_certificate as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
