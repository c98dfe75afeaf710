//! L1: GET /courses/{course}/occurrences/{date}/{location}: one course occurrence.

use learning::get_course_occurrence as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
