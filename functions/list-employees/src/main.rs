//! H2, H6, H11: GET /employees?name= | hiredSince= | jobTitle= (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_employees::PATTERN,
        list_employees::NEEDS,
        list_employees::ACCESS,
        list_employees::handle,
    )
    .await
}
