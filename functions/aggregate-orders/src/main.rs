//! Stream handler: per-customer order count and lifetime value, units sold per product and daily
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    streams::serve(aggregate_orders::NEEDS, aggregate_orders::handle).await
}
