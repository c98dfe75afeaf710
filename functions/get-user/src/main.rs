//! R2: GET /users/{username}: a user and their reviews, newest first, paginated, one GSI1 query per page.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_user::PATTERN,
        get_user::NEEDS,
        get_user::ACCESS,
        get_user::handle,
    )
    .await
}
