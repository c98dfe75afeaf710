//! `make bench-streams`: how many records a second one stream shard's consumer drains, when
//! DynamoDB answers as DynamoDB does.
//!
//! Each consumer (`commerce-stream`, `aggregate-reviews`) is run as Lambda runs it, its release
//! binary behind a Runtime API (the local stack's), on a realistic workload written to a fresh
//! table of DynamoDB Local by the functions' own writers: orders of 1 to 5 lines over hundreds of
//! customers and products, a third of them shipped and a sixth cancelled, inventory changes; or
//! reviews over hundreds of books and users, some replaced. The table's stream is read as the
//! event source mapping reads it (its `FilterCriteria`, batches of its `BatchSize`, one batch
//! after another as on one shard), and what the consumer writes to the stream in turn (a status
//! moved onto an order's summary) is read and handed to it again, until nothing is left. Every
//! request the consumer sends goes through [`bench::delay`], which holds it for DynamoDB's
//! latency. Then `make reconcile`'s check runs on the table: a fast consumer must still be exact.
//!
//! Two builds of each consumer run on the same workload in the same run: the baseline (the
//! binaries of `--baseline`, built from an earlier commit) and the current ones (`--current`).
//! Reported per consumer and build: records, batches, time in the handler, records a second
//! (the shard's drain rate: Lambda invokes the next batch of a shard when the last one returns),
//! time, requests and DynamoDB Local's capacity units per record, and the drift found.

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use bench::delay::{Counts, Delay, Latency};
use local_stack::{
    Stack, StackConfig,
    streams::{
        Clock,
        event::{self, Record},
        filter::Filters,
        shard::{ShardReader, Start, list_shards},
    },
};
use sam_template::Template;
use serde_json::Value;
use store::Table;

const USAGE: &str = "stream-bench --baseline DIR --current DIR [--latency-ms 5] \
                     [--transaction-ms 10] [--scale 1.0]";

#[derive(Debug, Clone)]
struct Options {
    /// Where the baseline's consumer binaries are.
    baseline: PathBuf,
    /// Where this commit's are.
    current: PathBuf,
    latency: Latency,
    /// A multiple of the workload's size.
    scale: f64,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        baseline: PathBuf::new(),
        current: PathBuf::new(),
        latency: Latency {
            request: Duration::from_millis(5),
            transaction: Duration::from_millis(10),
        },
        scale: 1.0,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value; {USAGE}"));
        let ms = |v: String| {
            v.parse::<u64>()
                .map(Duration::from_millis)
                .map_err(|e| format!("{v}: {e}"))
        };
        match arg.as_str() {
            "--baseline" => options.baseline = value()?.into(),
            "--current" => options.current = value()?.into(),
            "--latency-ms" => options.latency.request = ms(value()?)?,
            "--transaction-ms" => options.latency.transaction = ms(value()?)?,
            "--scale" => options.scale = value()?.parse().map_err(|e| format!("--scale: {e}"))?,
            other => return Err(format!("unknown argument {other}; {USAGE}")),
        }
    }
    if options.baseline.as_os_str().is_empty() || options.current.as_os_str().is_empty() {
        return Err(USAGE.into());
    }
    Ok(options)
}

/// The two consumers and the workload each is measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Consumer {
    Commerce,
    Reviews,
}

impl Consumer {
    const ALL: [Consumer; 2] = [Consumer::Commerce, Consumer::Reviews];

    fn name(self) -> &'static str {
        match self {
            Consumer::Commerce => "commerce-stream",
            Consumer::Reviews => "aggregate-reviews",
        }
    }
}

/// A small deterministic generator (xorshift64*): the same workload for both builds.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// The moment the workload starts: 2026-11-30, so its orders fall on a few days.
const START_MS: u64 = 1_796_000_000_000;

/// Orders over customers and products, then their status changes and inventory changes,
/// written by the functions' own writers.
async fn load_commerce(table: &Table, scale: f64) {
    use commerce::fixtures;
    use keys::commerce::OrderStatus;
    let (customers, products, orders) = (
        (400.0 * scale) as u64,
        (200.0 * scale) as u64,
        (600.0 * scale) as u64,
    );
    let mut rng = Rng(0x5eed_0001);
    hr::fixtures::org(table).await;
    for rep in 1..=5 {
        hr::fixtures::employee(table, &format!("E{rep}"), &format!("Rep Number {rep}")).await;
    }
    for c in 0..customers {
        let name = format!("c{c}");
        // A fifth of the customers buy through an account rep: their orders feed O14.
        match c % 5 {
            0 => fixtures::customer_of_rep(table, &name, &format!("E{}", 1 + c % 25 / 5)).await,
            _ => fixtures::customer(table, &name).await,
        };
    }
    let mut placed = Vec::new();
    for o in 0..orders {
        let lines: Vec<(u64, u32, i64)> = {
            let mut skus: Vec<u64> = Vec::new();
            while skus.len() < 1 + rng.below(5) as usize {
                let sku = 1 + rng.below(products);
                if !skus.contains(&sku) {
                    skus.push(sku);
                }
            }
            skus.into_iter()
                .map(|sku| (sku, 1 + rng.below(3) as u32, 100 + rng.below(4900) as i64))
                .collect()
        };
        let customer = format!("c{}", rng.below(customers));
        placed.push(fixtures::order(table, &customer, START_MS + o * 600_000, &lines).await);
    }
    for (o, order) in placed.iter().enumerate() {
        let status = match o % 6 {
            0 | 3 => OrderStatus::Shipped,
            1 => OrderStatus::Cancelled,
            _ => continue,
        };
        fixtures::tracking_events(table, order, &[status]).await;
    }
    for i in 0..(100.0 * scale) as u64 {
        let sku = 1 + rng.below(products);
        fixtures::product(table, sku).await;
        fixtures::inventory(table, sku, "W1", 1 + (i % 50) as u32).await;
    }
}

/// Reviews over books and users, a tenth of them replacing the same user's earlier review.
async fn load_reviews(table: &Table, scale: f64) {
    use reviews::fixtures;
    let (books, users, reviews) = (
        (300.0 * scale) as u64,
        (500.0 * scale) as u64,
        (2_000.0 * scale) as u64,
    );
    let mut rng = Rng(0x5eed_0002);
    for b in 0..books {
        fixtures::book(table, planner::model::isbn(b).as_str()).await;
    }
    for u in 0..users {
        fixtures::user(table, &format!("u{u}")).await;
    }
    let mut written: Vec<(u64, u64)> = Vec::new();
    for r in 0..reviews {
        let (book, user) = match (r % 10, written.len()) {
            (9, n) if n > 0 => written[rng.below(n as u64) as usize],
            _ => (rng.below(books), rng.below(users)),
        };
        written.push((book, user));
        let grade = 1 + rng.below(5) as u8;
        let isbn = planner::model::isbn(book);
        let at = START_MS + r * 60_000;
        fixtures::review(
            table,
            isbn.as_str(),
            &format!("u{user}"),
            at,
            grade,
            "A review.",
        )
        .await;
    }
}

/// The table's stream, read as the consumer's mapping reads it: every shard from its trim
/// horizon, parents before children, through the mapping's filter.
struct Feed {
    client: aws_sdk_dynamodbstreams::Client,
    stream_arn: String,
    readers: Vec<ShardReader>,
    filters: Filters,
}

impl Feed {
    async fn new(table: &Table, filters: Filters) -> Result<Feed, String> {
        let endpoint = devkit::endpoint();
        let stream_arn = local_stack::streams::latest_stream_arn(&endpoint, table.name())
            .await
            .map_err(|e| e.to_string())?;
        Ok(Feed {
            client: local_stack::streams::streams_client(&endpoint),
            stream_arn,
            readers: Vec::new(),
            filters,
        })
    }

    /// Every record written since the last call that the mapping would deliver, in order, with
    /// the shard it comes from.
    async fn read(&mut self) -> Result<Vec<(String, Record)>, String> {
        let mut shards = list_shards(&self.client, &self.stream_arn).await?;
        // A shard's id starts with its creation time: parents sort before their children.
        shards.sort_by(|a, b| a.id.cmp(&b.id));
        for shard in shards {
            if !self.readers.iter().any(|r| r.shard_id() == shard.id) {
                let reader = ShardReader::new(
                    self.client.clone(),
                    &self.stream_arn,
                    &shard.id,
                    Start::TrimHorizon,
                );
                self.readers.push(reader);
            }
        }
        let clock = Clock::default();
        let mut records = Vec::new();
        for reader in &mut self.readers {
            while !reader.ended() {
                let read = reader.read().await?;
                if read.is_empty() {
                    break;
                }
                for r in &read {
                    let record = Record::from_stream(r, &self.stream_arn, &clock)?;
                    if self.filters.matches(&record.json) {
                        records.push((reader.shard_id().to_owned(), record));
                    }
                }
            }
        }
        Ok(records)
    }
}

/// What one build of a consumer did with the workload.
#[derive(Debug, Default)]
struct Run {
    records: usize,
    batches: usize,
    /// Time from handing a batch to the function to its answer, summed.
    handling: Duration,
    /// The time DynamoDB's latency adds to the batches, summed ([`Counts::critical_path`]).
    critical: Duration,
    counts: Counts,
    failed_records: usize,
    checked: usize,
    drifted: usize,
}

impl Run {
    fn per_second(&self) -> f64 {
        self.records as f64 / self.handling.as_secs_f64()
    }

    fn per_record(&self, x: f64) -> f64 {
        x / self.records as f64
    }
}

async fn run(
    consumer: Consumer,
    bin_dir: &std::path::Path,
    options: &Options,
) -> Result<Run, String> {
    let template = Template::workspace().map_err(|e| e.to_string())?;
    let function = template
        .functions
        .iter()
        .find(|f| f.name() == consumer.name())
        .ok_or(format!("{} is not in template.yaml", consumer.name()))?;
    let mapping = function
        .streams
        .first()
        .ok_or(format!("{} has no stream event", consumer.name()))?;
    let filters = Filters::parse(&mapping.filter_patterns)?;

    let table = devkit::table().await;
    match consumer {
        Consumer::Commerce => load_commerce(&table, options.scale).await,
        Consumer::Reviews => load_reviews(&table, options.scale).await,
    }
    let mut feed = Feed::new(&table, filters).await?;

    let upstream = devkit::endpoint()
        .trim_start_matches("http://")
        .parse()
        .map_err(|e| format!("AWS_ENDPOINT_URL_DYNAMODB: {e}"))?;
    let delay = Delay::start(upstream, options.latency)
        .await
        .map_err(|e| format!("the delay proxy: {e}"))?;
    let config = StackConfig {
        bin_dir: bin_dir.to_owned(),
        table_name: table.name().to_owned(),
        // Every function's environment is resolved, the API's too: its one parameter without
        // a default.
        params: [(
            "CursorSigningKey".to_owned(),
            devkit::TEST_CURSOR_KEY.to_owned(),
        )]
        .into(),
        max_instances: 1,
        log_dir: None,
        failures_dir: devkit::debug_dir().join("stream-bench-failures"),
    };
    let mut spec = Stack::function_specs(&template, &config)
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|s| s.name == consumer.name())
        .ok_or("no spec")?;
    spec.environment
        .push(("AWS_ENDPOINT_URL_DYNAMODB".into(), delay.endpoint.clone()));
    let stack = Stack::start(vec![spec], 1);
    // A first, empty batch: the cold start is not the shard's drain rate.
    stack
        .invoke(consumer.name(), &serde_json::json!({"Records": []}))
        .await
        .map_err(|e| format!("{}: {e}", consumer.name()))?;
    delay.take();

    let mut out = Run::default();
    loop {
        let records = feed.read().await?;
        if records.is_empty() {
            break;
        }
        // Batches of one shard each, named in the event as Lambda names them with a tumbling
        // window (the consumers' marks need the shard).
        let mut by_shard: Vec<(String, Vec<Record>)> = Vec::new();
        for (shard, record) in records {
            match by_shard.last_mut() {
                Some((s, batch)) if *s == shard => batch.push(record),
                _ => by_shard.push((shard, vec![record])),
            }
        }
        let batches = by_shard.iter().flat_map(|(shard, records)| {
            records
                .chunks(mapping.batch_size as usize)
                .map(move |batch| (shard, batch))
        });
        for (shard, batch) in batches {
            let window = event::Window::of(
                batch[0].created,
                u64::from(mapping.tumbling_window_seconds.unwrap_or(900)),
            );
            let event = event::windowed_event(
                batch,
                shard,
                &feed.stream_arn,
                &window,
                &serde_json::json!({}),
            );
            let started = Instant::now();
            let answer = stack
                .invoke(consumer.name(), &event)
                .await
                .map_err(|e| format!("{}: {e}", consumer.name()))?;
            out.handling += started.elapsed();
            let batch_counts = delay.take();
            out.critical += batch_counts.critical_path();
            out.counts.add(batch_counts);
            out.records += batch.len();
            out.batches += 1;
            out.failed_records += failed(&answer);
        }
    }
    stack.shutdown().await;
    let report = tools::reconcile::run(&table)
        .await
        .map_err(|e| format!("reconcile: {e}"))?;
    out.checked = report.checked;
    out.drifted = report.drift.len();
    Ok(out)
}

/// The records a batch response reports failed.
fn failed(answer: &Value) -> usize {
    answer["batchItemFailures"]
        .as_array()
        .map_or(0, |failures| failures.len())
}

/// One build of a consumer, on DynamoDB's latency and on DynamoDB Local alone.
struct Measured {
    at_latency: Run,
    alone: Run,
}

impl Measured {
    /// Records a second when only DynamoDB's latency counts, on the longest chain of requests
    /// one after another in each batch: the design's own rate on an engine that answers every
    /// request within its latency however many are in flight (DynamoDB does; DynamoDB Local on
    /// two cores does not). The consumer's own CPU is left out.
    fn design_per_second(&self) -> f64 {
        let r = &self.at_latency;
        r.records as f64 / r.critical.as_secs_f64().max(1e-9)
    }

    /// Requests one after another in a batch, on average, in request latencies.
    fn round_trips(&self, latency: Duration) -> f64 {
        let r = &self.at_latency;
        r.critical.as_secs_f64() / latency.as_secs_f64().max(1e-9) / r.batches as f64
    }
}

fn print(consumer: Consumer, build: &str, m: &Measured, latency: Duration) {
    let r = &m.at_latency;
    let ms = r.handling.as_secs_f64() * 1000.0;
    println!(
        "| `{}` | {build} | {} | {} | {:.0} | {:.0} | {:.0} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} of {} |",
        consumer.name(),
        r.records,
        r.batches,
        r.per_second(),
        m.alone.per_second(),
        m.design_per_second(),
        m.round_trips(latency),
        r.per_record(ms),
        r.per_record(r.counts.total_requests() as f64),
        r.per_record(r.counts.write_units),
        r.per_record(r.counts.read_units),
        r.failed_records + m.alone.failed_records,
        r.drifted + m.alone.drifted,
        r.checked,
    );
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let latency = options.latency;
    let alone = Options {
        latency: Latency {
            request: Duration::ZERO,
            transaction: Duration::ZERO,
        },
        ..options.clone()
    };
    println!(
        "<!-- written by `make bench-streams` (lab/bench/src/bin/stream-bench): do not edit -->"
    );
    println!();
    println!(
        "DynamoDB's latency: {} ms a request, {} ms a transaction, added by a proxy in front of \
         DynamoDB Local; workload scale {}. Each build runs the workload twice: with that latency \
         (the rate as measured here), and with none (DynamoDB Local's own rate on this machine). \
         The design's rate counts, in each batch, the longest chain of requests sent one after \
         another, each at DynamoDB's latency: what one shard drains on an engine that answers \
         every request within its latency however many are in flight, as DynamoDB does and \
         DynamoDB Local on two cores does not.",
        latency.request.as_millis(),
        latency.transaction.as_millis(),
        options.scale
    );
    println!();
    println!(
        "| consumer | build | records | batches | records/s per shard | DynamoDB Local alone: \
         records/s | the design's records/s per shard | requests one after another per batch | \
         ms per record | requests per record | write units per record (DynamoDB Local) | read \
         units per record | records reported failed | drift |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut ok = true;
    for consumer in Consumer::ALL {
        let mut rates = Vec::new();
        for (build, dir) in [
            ("baseline", &options.baseline),
            ("current", &options.current),
        ] {
            let measured = async {
                Ok::<_, String>(Measured {
                    at_latency: run(consumer, dir, &options).await?,
                    alone: run(consumer, dir, &alone).await?,
                })
            };
            match measured.await {
                Ok(m) => {
                    print(consumer, build, &m, latency.request);
                    ok &= m.at_latency.drifted + m.alone.drifted == 0;
                    rates.push((m.at_latency.per_second(), m.design_per_second()));
                }
                Err(e) => {
                    eprintln!("{} ({build}): {e}", consumer.name());
                    return std::process::ExitCode::FAILURE;
                }
            }
        }
        println!(
            "| `{}` | current / baseline | | | {:.2}x | | {:.2}x | | | | | | | |",
            consumer.name(),
            rates[1].0 / rates[0].0,
            rates[1].1 / rates[0].1,
        );
    }
    if ok {
        std::process::ExitCode::SUCCESS
    } else {
        eprintln!("a consumer left drift: see the table");
        std::process::ExitCode::FAILURE
    }
}
