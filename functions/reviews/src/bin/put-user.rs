//! R4: PUT /users/{username}: create or update a user, keeping their derived review count.

use reviews::put_user as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
