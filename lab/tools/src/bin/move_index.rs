//! `make move-index`: moves C4 by status and O10 to the multi-attribute indexes, online (see
//! `tools::move_index`).
//!
//! Flags: `tools::flags::MOVE_INDEX`.
//!
//! Without `--cleanup`: declares each index the table lacks, as `template.yaml` declares it for
//! `OrderStatusKeys=multi-attribute`, and waits until it is ACTIVE (steps 1 and 2), then says
//! what to deploy next. On a stack (`--stack`) CloudFormation declares them (one per update:
//! `OrderStatusKeys=moving-1`, then `moving-2`), so the command only waits for those the table
//! has, and says which update comes next. With
//! `--cleanup` (step 4, once the readers are switched and the writers stopped writing the orders'
//! GSI1 keys): removes those keys; `--dry-run` only counts them. DynamoDB Local with `--endpoint`
//! or `AWS_ENDPOINT_URL_DYNAMODB`, else AWS through the SDK's default chain and region; on AWS it
//! changes nothing without `--confirm <account>` (`tools::target`). Exits 2 on a refusal or a
//! usage error.

use std::{io::Write, time::Instant};

use tools::{
    flags, move_index,
    target::{self, Options},
};

#[tokio::main]
async fn main() {
    target::exit_on_error(run().await);
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = Options::parse(
        &flags::MOVE_INDEX,
        &args,
        std::env::var("AWS_ENDPOINT_URL_DYNAMODB").ok(),
    )?;
    let (cleanup, dry) = (options.flag("--cleanup"), options.flag("--dry-run"));
    let target = target::open(&options, "move-index", !dry).await?;
    let (client, table) = (target.table.client(), target.table.name());
    let started = Instant::now();
    if options.flag("--rehearse") {
        return rehearse(&options, &target).await;
    }
    if cleanup {
        let done = move_index::cleanup(client, table, dry, |c| {
            eprint!(
                "\rorders with GSI1 keys found {}, cleaned: {} headers, {} summaries, {} skipped",
                c.found, c.headers, c.summaries, c.skipped
            );
            let _ = std::io::stderr().flush();
        })
        .await?;
        eprintln!();
        if dry {
            println!(
                "dry run: {} order headers and summaries carry the GSI1 keys C4 by status and O10 no longer read",
                done.found
            );
        } else {
            println!(
                "removed the GSI1 keys of {} order headers and {} summaries ({} skipped) in {:.1} s: {:.1} write units on the table, {}; {:.1} read units for the index scan",
                done.headers,
                done.summaries,
                done.skipped,
                started.elapsed().as_secs_f64(),
                done.table_write_units,
                move_index::units(&done.index_write_units),
                done.read_units
            );
        }
        return Ok(());
    }
    if dry {
        for name in move_index::INDEXES {
            let (_, state) = move_index::describe(client, table, name).await?;
            println!("{state}");
        }
        return Ok(());
    }
    let progress = |state: &move_index::IndexState| {
        eprint!("\r{state}          ");
        let _ = std::io::stderr().flush();
    };
    if options.stack.is_some() {
        return wait_for_the_stack(client, table, progress).await;
    }
    let template = move_index::template()?;
    let declared =
        move_index::declare_all(client, table, &template.table, |_| {}, progress).await?;
    eprintln!();
    for d in &declared {
        println!(
            "{}: {} in {:.1} s, {} items",
            d.name,
            if d.created {
                "declared and backfilled"
            } else {
                "already there, active"
            },
            d.backfill.as_secs_f64(),
            d.item_count.map_or("?".into(), |n| n.to_string())
        );
    }
    println!(
        "next: deploy OrderStatusKeys=multi-attribute (docs/key-designs.md#moving-an-index-online), then make move-index CLEANUP=1"
    );
    Ok(())
}

/// On a stack: waits for each orders index the table has until it is `ACTIVE`, and says which
/// stack update comes next (CloudFormation declares the indexes, one per update, and does not
/// wait for their backfill; the next update of the table fails until it is over).
async fn wait_for_the_stack(
    client: &aws_sdk_dynamodb::Client,
    table: &str,
    mut progress: impl FnMut(&move_index::IndexState),
) -> Result<(), Box<dyn std::error::Error>> {
    let steps = ["moving-1", "moving-2"];
    for (name, step) in move_index::INDEXES.into_iter().zip(steps) {
        let (_, state) = move_index::describe(client, table, name).await?;
        if state.status.is_none() {
            eprintln!();
            println!(
                "{name}: not declared yet; next: deploy OrderStatusKeys={step}, then make move-index STACK=... again"
            );
            return Ok(());
        }
        let state = move_index::wait_active(client, table, name, &mut progress).await?;
        eprintln!();
        println!("{state}");
    }
    println!(
        "both indexes ACTIVE; next: deploy OrderStatusKeys=multi-attribute (docs/key-designs.md#moving-an-index-online), then make move-index CLEANUP=1"
    );
    Ok(())
}

/// `--rehearse [--readers N] [--writers N] [--customers N] [--switch-early]` (DynamoDB Local
/// only): the orders indexes removed if the table has them, then the whole move under traffic,
/// timed and counted (`tools::move_rehearsal`). On a freshly seeded table: the cleanup takes
/// the GSI1 keys the rehearsal's reads are checked against.
async fn rehearse(
    options: &Options,
    target: &target::Target,
) -> Result<(), Box<dyn std::error::Error>> {
    if target.endpoint.is_none() {
        return Err(Box::new(target::Refused(
            "--rehearse runs traffic against the table: DynamoDB Local only".into(),
        )));
    }
    let (readers, writers) = (
        options.number("--readers", 4)?,
        options.number("--writers", 2)?,
    );
    let customers = options.number("--customers", 20)?;
    // A table as it was before the orders indexes (`make seed` creates them from the template).
    for index in tools::move_index::INDEXES {
        tools::move_index::remove(target.table.client(), target.table.name(), index).await?;
    }
    let template = tools::move_index::template()?;
    let load = tools::move_rehearsal::Load {
        readers,
        writers,
        customers,
        early: options.flag("--switch-early"),
        write_while_declaring: true,
    };
    let r = tools::move_rehearsal::rehearse(&target.table, &template.table, load, |state| {
        eprint!("\r{state}          ");
        let _ = std::io::stderr().flush();
    })
    .await?;
    eprintln!();
    print!("{}", tools::move_rehearsal::report(&r, load));
    Ok(())
}
