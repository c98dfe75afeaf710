//! The commerce stream consumer: order status and order totals, from the table's stream.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    streams::serve(
        commerce_stream::PATTERN,
        commerce_stream::NEEDS,
        commerce_stream::handle,
    )
    .await
}
