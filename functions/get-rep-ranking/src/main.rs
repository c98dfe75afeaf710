//! O14: GET /reps/ranking?period=YYYY-Qn (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_rep_ranking::PATTERN,
        get_rep_ranking::NEEDS,
        get_rep_ranking::ACCESS,
        get_rep_ranking::handle,
    )
    .await
}
