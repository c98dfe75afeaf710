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
    if repair {
        let watch = reconcile::lag::Watch::of_template(target.streams.clone())?;
        let (report, repaired) = reconcile::repair(&target.table, &scan, &watch, settle).await?;
        print!("table {}: {report}", target.table.name());
        print!("{repaired}");
        if !repaired.failed.is_empty() {
            std::process::exit(1);
        }
        return Ok(());
    }
    let report = reconcile::scan_report(&target.table, &scan).await?;
    print!("table {}: {report}", target.table.name());
    if !report.drift.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
