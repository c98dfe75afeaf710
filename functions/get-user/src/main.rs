//! R2: GET /users/{username}: a user and their reviews, newest first, paginated, one GSI1 query per page.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let deps = get_user::Deps {
        table: store::Table::from_env().await?,
        cursors: store::cursor::CursorCodec::from_env()?,
    };
    api::run(|req| get_user::handle(&deps, req)).await
}
