//! Stream handler: an order's current status on its header and summary, from its newest tracking
//! event. Wiring only; the handler is in lib.rs.

use lambda_runtime::{LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    streams::init_tracing();
    let table = store::Table::from_env().await?;
    lambda_runtime::run(service_fn(|event: LambdaEvent<streams::Event>| {
        let table = &table;
        async move {
            Ok::<_, lambda_runtime::Error>(
                project_order_status::handle(table, &event.payload).await,
            )
        }
    }))
    .await
}
