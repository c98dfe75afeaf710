//! O9: GET /reps/{repId}/customers (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_rep_customers::PATTERN,
        list_rep_customers::NEEDS,
        list_rep_customers::ACCESS,
        list_rep_customers::handle,
    )
    .await
}
