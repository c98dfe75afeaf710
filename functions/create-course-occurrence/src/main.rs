//! POST /courses: create a course occurrence.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        create_course_occurrence::PATTERN,
        create_course_occurrence::NEEDS,
        create_course_occurrence::ACCESS,
        create_course_occurrence::handle,
    )
    .await
}
