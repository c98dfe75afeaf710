//! L7: GET /courses/{course}/certificates/{date}/{student}: one certificate, in either version.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_certificate::PATTERN,
        get_certificate::NEEDS,
        get_certificate::ACCESS,
        get_certificate::handle,
    )
    .await
}
