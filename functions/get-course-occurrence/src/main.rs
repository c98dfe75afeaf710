//! L1: GET /courses/{course}/occurrences/{date}/{location}: one course occurrence.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_course_occurrence::PATTERN,
        get_course_occurrence::NEEDS,
        get_course_occurrence::ACCESS,
        get_course_occurrence::handle,
    )
    .await
}
