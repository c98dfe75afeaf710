//! `make migrate`: moves every v01 certificate to v02 (see `tools::migrate`).
//! Usage: migrate [--table NAME] [--dry-run]   (DynamoDB Local at AWS_ENDPOINT_URL_DYNAMODB)

use std::io::Write;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dry = args.iter().any(|a| a == "--dry-run");
    let table = tools::table_from_args(&args);
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
