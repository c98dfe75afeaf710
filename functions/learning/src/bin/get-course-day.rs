//! L8: GET /courses/{course}/days/{date}: a course day's occurrences and certificates in one query.

use learning::get_course_day as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
