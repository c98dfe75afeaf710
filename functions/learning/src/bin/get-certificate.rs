//! L7: GET /courses/{course}/certificates/{date}/{student}: one certificate, in either version.

use learning::get_certificate as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
