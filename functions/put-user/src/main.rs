//! R4: PUT /users/{username}: create or update a user, keeping their derived review count.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_user::PATTERN,
        put_user::NEEDS,
        put_user::ACCESS,
        put_user::handle,
    )
    .await
}
