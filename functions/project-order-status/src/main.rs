//! Stream handler: an order's current status on its header and summary, from its newest tracking
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    streams::serve(project_order_status::NEEDS, project_order_status::handle).await
}
