//! L2-L6: GET /courses/{course}/occurrences: a course's occurrences by year, month, date and partial location.

use learning::list_course_occurrences as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
