//! `make migrate`: moves every v01 certificate to v02 (see `tools::migrate`).
//! Usage: migrate [--table NAME] [--dry-run]   (DynamoDB Local at AWS_ENDPOINT_URL_DYNAMODB)

use std::io::Write;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .iter()
        .position(|a| a == "--table")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "local-table".into());
    let dry = args.iter().any(|a| a == "--dry-run");
    let table = store::Table::new(dev::client(), name);
    let done = tools::migrate::run(&table, dry, |m| {
        eprint!(
            "\rv01 certificates found {}, moved {}, duplicates removed {}, moved by another run {}",
            m.found, m.moved, m.duplicates, m.gone
        );
        let _ = std::io::stderr().flush();
    })
    .await?;
    eprintln!();
    if dry {
        println!("dry run: {} v01 certificates would move to v02", done.found);
    } else {
        println!(
            "moved {} v01 certificates to v02 ({} duplicates removed, {} moved by another run)",
            done.moved, done.duplicates, done.gone
        );
    }
    Ok(())
}
