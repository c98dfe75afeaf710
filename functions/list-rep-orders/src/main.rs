//! O10: GET /reps/{repId}/orders?status=&from=&to= (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_rep_orders::PATTERN,
        list_rep_orders::NEEDS,
        list_rep_orders::ACCESS,
        list_rep_orders::handle,
    )
    .await
}
