//! R2: GET /users/{username}: a user and their reviews, newest first, paginated, one GSI1 query per page.

use reviews::get_user as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
