//! `make reconcile`: recomputes every derived value from the source items and reports the drift;
//! with `--repair` (`make reconcile REPAIR=1`), writes a conditional correction for each.
//! Usage: reconcile [--table NAME] [--repair]   (DynamoDB Local at AWS_ENDPOINT_URL_DYNAMODB)
//! Exits 1 when anything drifted (without --repair) or could not be repaired.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let table = tools::table_from_args(&args);
    if args.iter().any(|a| a == "--repair") {
        let (report, repaired) = tools::reconcile::repair(&table).await?;
        print!("table {}: {report}", table.name());
        println!(
            "repaired {}, skipped {}",
            repaired.written,
            repaired.skipped.len()
        );
        for why in &repaired.skipped {
            println!("  {why}");
        }
        if repaired.statuses > 0 {
            println!(
                "{} order statuses corrected: the sums they move follow when the stream applies \
                 them; with no stream running, run the repair again",
                repaired.statuses
            );
        }
        if !repaired.skipped.is_empty() {
            std::process::exit(1);
        }
        return Ok(());
    }
    let report = tools::reconcile::run(&table).await?;
    print!("table {}: {report}", table.name());
    if !report.drift.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
