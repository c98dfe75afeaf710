//! `make reconcile`: recomputes every derived value from the source items and reports the drift.
//! Usage: reconcile [--table NAME]   (DynamoDB Local at AWS_ENDPOINT_URL_DYNAMODB, default :8000)
//! Exits 1 when anything drifted.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .iter()
        .position(|a| a == "--table")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "local-table".into());
    let table = store::Table::new(dev::client(), name);
    let report = tools::reconcile::run(&table).await?;
    print!("table {}: {report}", table.name());
    if !report.drift.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
