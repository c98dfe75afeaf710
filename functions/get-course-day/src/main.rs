//! L8: GET /courses/{course}/days/{date}: a course day's occurrences and certificates in one query.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_course_day::PATTERN,
        get_course_day::NEEDS,
        get_course_day::ACCESS,
        get_course_day::handle,
    )
    .await
}
