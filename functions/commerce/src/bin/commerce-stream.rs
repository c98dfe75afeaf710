//! The commerce stream consumer: order status and order totals, from the table's stream.

use commerce::commerce_stream as consumer;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    stream_handler::serve(&consumer::CONSUMER, consumer::handle).await
}
