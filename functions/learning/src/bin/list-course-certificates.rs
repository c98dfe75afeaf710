//! L9-L10: GET /courses/{course}/certificates?date=&version=: a course day's certificates.

use learning::list_course_certificates as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
