//! `make compare`: the same data in each deployment of docs/one-table-or-many.md's questions (one
//! table or a table per context, GSI1 overloaded or R2 on its own index), loaded into fresh tables
//! and measured (`tools::compare`); prints the report in Markdown.
//!
//! Flags: `tools::flags::COMPARE` (`--table`, the tables' base name, default `compare-<time>`;
//! `--size small|medium|large`: the seeds and the org alone, with a fifth of `make seed
//! SIZE=large`'s volume, or with all of it), in the DynamoDB Local of `AWS_ENDPOINT_URL_DYNAMODB`.
//! Exits 2 on a usage error.

use tools::{compare, flags, target};

#[tokio::main]
async fn main() {
    target::exit_on_error(run().await);
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given = flags::COMPARE.parse(&args)?;
    let size = given.value("--size").unwrap_or("small");
    let volume = match size {
        "small" | "" => None,
        "medium" => Some(tools::volume::MEDIUM),
        "large" => Some(tools::volume::LARGE),
        other => {
            return Err(Box::new(target::Refused(format!(
                "--size: small, medium or large, not {other}\n{}",
                flags::COMPARE.usage()
            ))));
        }
    };
    let base = given
        .value("--table")
        .map(str::to_owned)
        .unwrap_or_else(|| format!("compare-{}", keys::now_ms()));
    // Named, never a default port: the tables and the stream handlers it starts go to the
    // DynamoDB Local the variable names (its processes read the same variable).
    let endpoint = target::local_endpoint(
        None,
        &flags::COMPARE,
        "it runs on a DynamoDB Local: name it with AWS_ENDPOINT_URL_DYNAMODB (make compare starts one on TEST_DDB_PORT)",
    )?;
    let client = devkit::client_at(&endpoint);
    let mut measured = Vec::new();
    for (n, deployment) in compare::DEPLOYMENTS.into_iter().enumerate() {
        let started = std::time::Instant::now();
        let m = compare::measure(
            &client,
            &format!("{base}-{n}"),
            deployment,
            tools::org::ORDERS,
            volume.as_ref(),
        )
        .await?;
        eprintln!(
            "{}: loaded and measured in {:.1} s",
            deployment.name(),
            started.elapsed().as_secs_f64()
        );
        measured.push(m);
    }
    println!(
        "# `make compare SIZE={}`\n\nThe same data in each deployment (tools::compare; \
         docs/one-table-or-many.md explains the figures), on DynamoDB Local, {}.\n",
        if size.is_empty() { "small" } else { size },
        keys::Timestamp::now().date().iso(),
    );
    println!("{}", compare::report(&measured));
    Ok(())
}
