//! `make migrate`: moves every v01 certificate to v02, then writes `OccurrencesByDate`'s
//! attributes on course occurrences written before that index existed (see `tools::migrate`).
//!
//! Flags: `tools::flags::MIGRATE` (`--dry-run`: only count).
//!
//! DynamoDB Local with `--endpoint` or `AWS_ENDPOINT_URL_DYNAMODB`, else AWS through the SDK's
//! default chain and region; on AWS it moves nothing without `--confirm <account>`
//! (`tools::target`). Exits 2 on a refusal or a usage error (an unknown flag among them).

use std::io::Write;

use tools::{
    flags,
    target::{self, Options},
};

#[tokio::main]
async fn main() {
    target::exit_on_error(migrate().await);
}

async fn migrate() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = Options::parse(
        &flags::MIGRATE,
        &args,
        std::env::var("AWS_ENDPOINT_URL_DYNAMODB").ok(),
    )?;
    let dry = options.flag("--dry-run");
    let target = target::open(&options, "migrate", !dry).await?;
    // Certificates and occurrences are learning's; text keys are learning's and HR's.
    let learning = &target.contexts.learning;
    let done = tools::migrate::run(learning, dry, |m| {
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
    let indexed = tools::migrate::index_occurrences(learning, dry, |m| {
        eprint!(
            "\roccurrences without OccurrencesByDate's attributes {}, written {}, gone {}",
            m.found, m.indexed, m.gone
        );
        let _ = std::io::stderr().flush();
    })
    .await?;
    eprintln!();
    if dry {
        println!(
            "dry run: {} course occurrences would get OccurrencesByDate's attributes",
            indexed.found
        );
    } else {
        println!(
            "wrote OccurrencesByDate's attributes on {} course occurrences ({} gone meanwhile)",
            indexed.indexed, indexed.gone
        );
    }
    let mut rekeyed = tools::migrate::Rekeyed::default();
    let text_keyed: Vec<&store::Table> = target
        .tables()
        .into_iter()
        .filter(|t| [learning.name(), target.contexts.hr.name()].contains(&t.name()))
        .collect();
    for table in text_keyed {
        let done = tools::migrate::rekey(table, dry, |m| {
        eprint!(
            "\rtext-keyed items read {}, keyed before today's text rule {}, rewritten {}, conflicts {}, changed meanwhile {}",
            m.read,
            m.found,
            m.rewritten,
            m.conflicts.len(),
            m.gone
        );
        let _ = std::io::stderr().flush();
        })
        .await?;
        eprintln!();
        rekeyed.add(done);
    }
    for conflict in &rekeyed.conflicts {
        println!("conflict, both kept: {conflict}");
    }
    if dry {
        println!(
            "dry run: {} of {} items with text in their keys would be written as today's text rule keys them",
            rekeyed.found, rekeyed.read
        );
    } else {
        println!(
            "wrote {} of {} items with text in their keys as today's text rule keys them ({} conflicts kept, {} changed meanwhile)",
            rekeyed.rewritten,
            rekeyed.read,
            rekeyed.conflicts.len(),
            rekeyed.gone
        );
    }
    Ok(())
}
