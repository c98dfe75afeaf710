//! R1: GET /books/{isbn}: a book and its reviews, newest first, paginated, one query per page.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    api::init_tracing();
    let deps = get_book::Deps {
        table: store::Table::from_env().await?,
        cursors: store::cursor::CursorCodec::from_env()?,
    };
    api::run(|req| get_book::handle(&deps, req)).await
}
