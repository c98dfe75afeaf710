//! L9-L10: GET /courses/{course}/certificates?date=&version=: a course day's certificates.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_course_certificates::PATTERN,
        list_course_certificates::NEEDS,
        list_course_certificates::ACCESS,
        list_course_certificates::handle,
    )
    .await
}
