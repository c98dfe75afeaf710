//! L11-L13: GET /certificates?type=&version=&instructor=: every shard read as one ordered list.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_certificates::PATTERN,
        list_certificates::NEEDS,
        list_certificates::ACCESS,
        list_certificates::handle,
    )
    .await
}
