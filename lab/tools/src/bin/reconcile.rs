//! `make reconcile`: recomputes every derived value from the source items and reports the drift;
//! with `--repair` (`make reconcile REPAIR=1`), corrects what drifted and held still.
//!
//! Flags: `tools::flags::RECONCILE`.
//!
//! DynamoDB Local with `--endpoint` or `AWS_ENDPOINT_URL_DYNAMODB`, else AWS through the SDK's
//! default chain and region (`tools::target`). `--settle` (default 30): the longest a repair
//! waits between its two reads for the stream consumers to apply what the first read saw (their
//! positions say when they have; `tools::reconcile::repair`);
//! `--segments` (default 8): parallel scan segments. Progress goes to stderr. Exits 1 when
//! anything drifted (without --repair) or a correction failed; 2 on a refusal or a usage error.

use std::time::Duration;

use tools::{
    flags,
    reconcile::{self, Scan},
    target::{self, Options, Refused},
};

#[tokio::main]
async fn main() {
    target::exit_on_error(reconcile().await);
}

async fn reconcile() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = Options::parse(
        &flags::RECONCILE,
        &args,
        std::env::var("AWS_ENDPOINT_URL_DYNAMODB").ok(),
    )?;
    let segments = options
        .number("--segments", 8u32)
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(|| {
            let given = options.value("--segments").unwrap_or_default();
            Refused(format!(
                "--segments takes a whole number from 1 to 1000000, not {given:?}"
            ))
        })?;
    let settle = Duration::from_secs(options.number("--settle", 30)?);
    let repair = options.flag("--repair");
    let target = target::open(&options, "reconcile", repair).await?;
    let scan = Scan {
        segments,
        progress: true,
    };
    // Each table on its own: a context's derived values come from its own items, and its
    // consumers' positions are on its own stream (one table: all of them, once).
    let mut failed = false;
    for table in target.tables() {
        if repair {
            let watch = reconcile::lag::Watch::of_template(target.streams.clone())?;
            let (report, repaired) = reconcile::repair(table, &scan, &watch, settle).await?;
            print!("table {}: {report}", table.name());
            print!("{repaired}");
            failed |= !repaired.failed.is_empty();
        } else {
            let report = reconcile::scan_report(table, &scan).await?;
            print!("table {}: {report}", table.name());
            failed |= !report.drift.is_empty();
        }
    }
    if failed {
        std::process::exit(1);
    }
    Ok(())
}
