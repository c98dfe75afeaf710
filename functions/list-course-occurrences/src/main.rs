//! L2-L6: GET /courses/{course}/occurrences: a course's occurrences by year, month, date and partial location.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_course_occurrences::PATTERN,
        list_course_occurrences::NEEDS,
        list_course_occurrences::ACCESS,
        list_course_occurrences::handle,
    )
    .await
}
