//! `make seed`: loads the write-ups' example rows, then the realistic org after AWS's relational
//! example, into the local table; with `--size large` (`make seed SIZE=large`), then a realistic
//! volume of every context (`tools::volume`), with a progress line.
//!
//! Flags: `tools::flags::SEED` (`--table`, default `local-table`; `--size`, default small;
//! `--layout`, the stack's `TableLayout`, default one-table: with table-per-context each item
//! goes to its context's table, `<table>-reviews` and so on), in the DynamoDB Local at
//! `--endpoint URL` or `AWS_ENDPOINT_URL_DYNAMODB`, which must name one: there is no default
//! port (a second stack's seed went into the first's). Exits 2 on a usage error.

use std::io::Write;

use tools::{flags, target};

#[tokio::main]
async fn main() {
    target::exit_on_error(seed().await);
}

async fn seed() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given = flags::SEED.parse(&args)?;
    let large = match given.value("--size").unwrap_or("small") {
        "small" | "" => false,
        "large" => true,
        other => {
            return Err(Box::new(target::Refused(format!(
                "--size: small or large, not {other}\n{}",
                flags::SEED.usage()
            ))));
        }
    };
    let endpoint = target::local_endpoint(
        given.value("--endpoint"),
        &flags::SEED,
        "it writes into a DynamoDB Local: name it with --endpoint URL (make seed gives the stack's, DDB_PORT=)",
    )?;
    let name = given.value("--table").unwrap_or("local-table");
    let table = store::Table::new(devkit::client_at(&endpoint), name);
    let layout = given.value("--layout").unwrap_or(tools::layout::ONE_TABLE);
    let tables = tools::layout::Tables::of_layout(&table, layout)
        .map_err(|e| target::Refused(format!("{}\n{}", e.0, flags::SEED.usage())))?;
    let written = tools::seed::load_into(&tables).await?;
    let org = tools::org::load_into(&tables, tools::org::ORDERS).await?;
    println!(
        "seeded table {} at {}: customer {} with {} orders, cart {}, {} books, {} users and {} reviews ({written} new items)",
        table.name(),
        endpoint,
        tools::seed::CUSTOMER,
        tools::seed::ORDER_DATES.len(),
        tools::seed::CART,
        tools::seed::BOOKS.len(),
        tools::seed::USERS.len(),
        tools::seed::REVIEWS.len(),
    );
    println!(
        "and seed 003's org: {} regions, {} warehouses, {} employees ({} account reps with {} customers each), {} products, {} orders over 2026-Q3 and 2026-Q4 (new: {org:?})",
        tools::org::REGIONS.len(),
        tools::org::WAREHOUSES.len(),
        tools::org::EMPLOYEES,
        tools::org::REPS.len(),
        tools::org::CUSTOMERS_PER_REP,
        tools::org::PRODUCTS,
        tools::org::ORDERS,
    );
    if large {
        let v = tools::volume::LARGE;
        let started = std::time::Instant::now();
        let shown = std::sync::atomic::AtomicUsize::new(0);
        let written = tools::volume::load_into(&tables, &v, |done, total| {
            // One update per percent: a progress bar, not a log.
            let percent = done * 100 / total.max(1);
            if shown.swap(percent, std::sync::atomic::Ordering::Relaxed) != percent || done == total
            {
                let bar = "#".repeat(percent / 2) + &".".repeat(50 - percent / 2);
                let rate = done as f64 / started.elapsed().as_secs_f64().max(0.001);
                eprint!("\r[{bar}] {done}/{total} items, {rate:.0}/s ");
                let _ = std::io::stderr().flush();
            }
        })
        .await?;
        eprintln!();
        println!(
            "and the large set: {} customers, {} orders, {} carts, {} products, {} books, {} users, {} reviews, {} course occurrences, {} certificates, {} employees ({written} items written in {:.1} s)",
            v.customers,
            v.orders,
            v.carts,
            v.products,
            v.books,
            v.users,
            v.reviews,
            v.courses * v.occurrences_per_course,
            v.certificates,
            v.employees,
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(())
}
