//! POST /certificates: issue a certificate for a course occurrence.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        issue_certificate::PATTERN,
        issue_certificate::NEEDS,
        issue_certificate::ACCESS,
        issue_certificate::handle,
    )
    .await
}
