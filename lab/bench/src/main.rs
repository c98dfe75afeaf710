//! `make bench`'s Lambda benchmark: each implementation of a pattern run as Lambda runs it, and
//! measured as Lambda would bill and feel it.
//!
//! - A process per cold start, started fresh, speaking the Runtime API ([`runtime`]): init (to its
//!   first `GET /next`), first response, the CPU both took; then on the last process warm calls:
//!   p50/p99 latency, CPU per call, peak RSS.
//! - At Lambda's CPU share of 128 MB and of 1,024 MB ([`process`]: a cgroup CPU quota).
//! - Over TLS to DynamoDB Local ([`tls`]), as every call to DynamoDB on AWS is.
//! - The same table, data and events for every implementation: our release binaries, a bare
//!   `lambda_http` hello (the floor), ElectroDB on Node and boto3 on Python (`lab/bench/node`,
//!   `lab/bench/python`); their answers are compared with ours.
//! - Our functions once more with X-Ray tracing on (`traced`): every invocation sampled, each
//!   DynamoDB call sent to a UDP daemon the harness runs, so its cost shows as a same-run ratio.
//!
//! Writes `lab/bench/results/lambda.md` and its charts ([`report`]).
//!
//! ```text
//! lambda-bench [--quick] [--only rust,traced,hello,node,python] [--memory 128,1024]
//!              [--bin-dir target/release] [--baseline DIR [--baseline-trust system|amazon]]
//!              [--o5-next-page] [--out lab/bench/results]
//! ```
//!
//! `--o5-next-page`: O5's warm calls ask for the second page, with the cursor each
//! implementation's last cold start answered (opened, and the next one sealed, on every call).
//!
//! ```text
//! ```

mod report;

use bench::{process, runtime, tls};

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use bytes::Bytes;
use serde_json::Value;

use crate::{process::Cgroup, runtime::Mark, runtime::RuntimeApi};

/// The patterns measured: a read of one item collection, a transaction, a sharded fan-out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Hello,
    C1,
    O5,
    C3,
}

impl Pattern {
    pub fn id(self) -> &'static str {
        match self {
            Pattern::Hello => "hello",
            Pattern::C1 => "C1",
            Pattern::O5 => "O5",
            Pattern::C3 => "C3",
        }
    }

    pub fn what(self) -> &'static str {
        match self {
            Pattern::Hello => "the floor: answers hello, no DynamoDB",
            Pattern::C1 => "a customer and their newest 10 orders: one Query",
            Pattern::O5 => "open orders in a date range: 15 Queries in parallel, merged",
            Pattern::C3 => {
                "place an order: one BatchGetItem of its products, one TransactWriteItems of 7 items"
            }
        }
    }

    /// Our function for the pattern (a binary name), and the peers' handler module.
    fn function(self) -> (&'static str, &'static str) {
        match self {
            Pattern::Hello => ("bench-hello", ""),
            Pattern::C1 => ("get-customer", "c1"),
            Pattern::O5 => ("list-orders", "o5"),
            Pattern::C3 => ("place-order", "c3"),
        }
    }

    /// The sample event, made to read the benchmark's data.
    fn event(self, root: &Path) -> Value {
        let file = match self {
            Pattern::Hello | Pattern::C1 => "get-customer",
            Pattern::O5 => "list-orders",
            Pattern::C3 => "place-order",
        };
        let text = std::fs::read_to_string(root.join("events").join(format!("{file}.json")))
            .unwrap_or_else(|e| panic!("events/{file}.json: {e}"));
        let mut event: Value = serde_json::from_str(&text).expect("a sample event is JSON");
        if self == Pattern::C1 {
            event["rawQueryString"] = "orders=10".into();
            event["queryStringParameters"]["orders"] = "10".into();
        }
        event
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    Rust,
    /// Our binaries with every invocation sampled for X-Ray (Lambda's `Tracing: Active` when the
    /// sampling rule picks it), their subsegments sent to a daemon socket of the harness.
    Traced,
    /// Our binaries from `--baseline DIR`: a change's before, measured in the same run.
    Before,
    Hello,
    Node,
    Python,
}

impl Implementation {
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Rust => "Rust (this project)",
            Implementation::Traced => "Rust, X-Ray sampled",
            Implementation::Before => "Rust, before (--baseline)",
            Implementation::Hello => "bare lambda_http",
            Implementation::Node => "Node 20 + ElectroDB",
            Implementation::Python => "Python + boto3",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Implementation::Rust => "rust",
            Implementation::Traced => "traced",
            Implementation::Before => "before",
            Implementation::Hello => "hello",
            Implementation::Node => "node",
            Implementation::Python => "python",
        }
    }
}

pub struct Options {
    quick: bool,
    only: Vec<Implementation>,
    memory: Vec<u32>,
    bin_dir: PathBuf,
    baseline: Option<PathBuf>,
    /// The baseline build reads the system's roots (`SSL_CERT_FILE`), as builds before
    /// `store::sdk` did on Lambda.
    baseline_system_roots: bool,
    /// O5's warm calls read its second page (`--o5-next-page`).
    o5_next_page: bool,
    out: PathBuf,
}

/// What `--only` can name (all of them by default); `--baseline` adds the "before" build.
const SELECTABLE: [Implementation; 5] = [
    Implementation::Hello,
    Implementation::Rust,
    Implementation::Traced,
    Implementation::Node,
    Implementation::Python,
];

fn options() -> Result<Options, String> {
    let mut o = Options {
        quick: false,
        only: SELECTABLE.to_vec(),
        memory: vec![128, 1024],
        bin_dir: "target/release".into(),
        baseline: None,
        baseline_system_roots: false,
        o5_next_page: false,
        out: "lab/bench/results".into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--quick" => o.quick = true,
            "--only" => {
                o.only = value()?
                    .split(',')
                    .map(|k| {
                        SELECTABLE.into_iter().find(|i| i.key() == k).ok_or(format!(
                            "--only: no implementation {k} (rust, traced, hello, node, python)"
                        ))
                    })
                    .collect::<Result<_, _>>()?
            }
            "--memory" => o.memory = bench::memory_sizes(&value()?)?,
            "--bin-dir" => o.bin_dir = value()?.into(),
            "--baseline" => o.baseline = Some(value()?.into()),
            "--baseline-trust" => match value()?.as_str() {
                "system" => o.baseline_system_roots = true,
                "amazon" => o.baseline_system_roots = false,
                other => return Err(format!("--baseline-trust: system or amazon, not {other}")),
            },
            "--o5-next-page" => o.o5_next_page = true,
            "--out" => o.out = value()?.into(),
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    if o.baseline.is_some() {
        let at = o
            .only
            .iter()
            .position(|i| *i == Implementation::Rust)
            .unwrap_or(0);
        o.only.insert(at, Implementation::Before);
    }
    Ok(o)
}

/// What one cold start took.
#[derive(Debug, Clone)]
pub struct Cold {
    pub init: Duration,
    /// CPU from the process's start to its first `GET /next`: init's work without the waits
    /// (a wall-clock init also holds whatever else the machine did meanwhile).
    pub init_cpu_ns: u64,
    pub first_response: Duration,
    /// CPU from the process's start to its first response.
    pub cpu_ns: u64,
}

/// Everything measured for one implementation of one pattern at one memory size.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub pattern: Pattern,
    pub implementation: Implementation,
    pub memory_mb: u32,
    pub cold: Vec<Cold>,
    pub warm: Vec<Duration>,
    pub cpu_per_warm_call_ns: f64,
    pub peak_rss: u64,
    /// The first response's body, to compare implementations.
    pub body: Value,
    pub status: u64,
}

/// The shared setting of a run: where things are and what every process gets.
struct Setting {
    root: PathBuf,
    bin_dir: PathBuf,
    baseline: PathBuf,
    baseline_system_roots: bool,
    o5_next_page: bool,
    table: String,
    endpoint: String,
    tls: tls::Terminator,
    python: PathBuf,
}

impl Setting {
    fn command(&self, implementation: Implementation, pattern: Pattern) -> Command {
        let (function, module) = pattern.function();
        let (program, script, folder): (PathBuf, Option<&str>, Option<&str>) = match implementation
        {
            Implementation::Rust | Implementation::Traced | Implementation::Hello => {
                (self.bin_dir.join(function), None, None)
            }
            Implementation::Before => (self.baseline.join(function), None, None),
            Implementation::Node => ("node".into(), Some("runtime.mjs"), Some("lab/bench/node")),
            Implementation::Python => (
                self.python.clone(),
                Some("runtime.py"),
                Some("lab/bench/python"),
            ),
        };
        // LAMBDA_BENCH_WRAP runs the process under a profiler, e.g. "perf record -g -o p.data --".
        let wrap = std::env::var("LAMBDA_BENCH_WRAP").unwrap_or_default();
        let mut wrap = wrap.split_whitespace();
        let mut command = match wrap.next() {
            Some(profiler) => {
                let mut c = Command::new(profiler);
                c.args(wrap).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        // What Lambda gives every function (and nothing from this shell), then the function's own.
        bench::lambda_environment(&mut command, function, &self.endpoint);
        if let (Some(script), Some(folder)) = (script, folder) {
            let folder = self.root.join(folder);
            command
                .arg(folder.join(script))
                .current_dir(folder)
                .env("_HANDLER", format!("{module}.handler"));
        }
        // Trust in this run's CA, added the way each runtime adds a root on Lambda, where no
        // trust store variable is set: Node and our functions trust it beside their own roots
        // (ours: Amazon's five, `store::sdk`); boto3's AWS_CA_BUNDLE replaces its bundle, so it
        // gets the system's roots too.
        match implementation {
            Implementation::Node => command.env("NODE_EXTRA_CA_CERTS", &self.tls.ca),
            Implementation::Python => command.env("AWS_CA_BUNDLE", &self.tls.bundle),
            Implementation::Before if self.baseline_system_roots => {
                command.env("SSL_CERT_FILE", &self.tls.bundle)
            }
            Implementation::Rust
            | Implementation::Traced
            | Implementation::Before
            | Implementation::Hello => command.env("AWS_CA_BUNDLE", &self.tls.ca),
        };
        command
            .env("TABLE_NAME", &self.table)
            .env("ORDER_STATUS_SHARDS", "15")
            // place-order's key design (the template's default OrderStatusKeys).
            .env("ORDER_STATUS_KEYS", "concatenated")
            .env(
                "CURSOR_SIGNING_KEY",
                "bench-cursor-signing-key-0123456789abcdef",
            );
        command
    }

    fn available(&self, implementation: Implementation, pattern: Pattern) -> Result<(), String> {
        let needed = match implementation {
            Implementation::Rust | Implementation::Traced | Implementation::Hello => {
                self.bin_dir.join(pattern.function().0)
            }
            Implementation::Before => self.baseline.join(pattern.function().0),
            Implementation::Node => self.root.join("lab/bench/node/node_modules"),
            Implementation::Python => self.python.clone(),
        };
        if needed.exists() {
            Ok(())
        } else {
            Err(format!(
                "{} is missing (make bench installs and builds it)",
                needed.display()
            ))
        }
    }
}

fn main() {
    bench::main("lambda-bench", options(), run);
}

async fn run(options: Options) -> Result<(), String> {
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let work = std::env::temp_dir().join(format!("lambda-bench-{}", std::process::id()));
    let (tls, endpoint) = bench::terminator(&work).await?;
    let table = format!("bench-{}", std::process::id());
    let setting = Setting {
        bin_dir: root.join(&options.bin_dir),
        baseline: root.join(options.baseline.as_deref().unwrap_or(Path::new("-"))),
        baseline_system_roots: options.baseline_system_roots,
        o5_next_page: options.o5_next_page,
        python: root.join(".local/bench-python/bin/python"),
        endpoint,
        root,
        table,
        tls,
    };
    eprintln!("lambda-bench: loading the data into {}", setting.table);
    data::load(&setting.table).await?;

    let (cold_runs, warm_calls, warm_up) = if options.quick {
        (2, 20, 5)
    } else {
        (7, 300, 30)
    };
    let mut results = Vec::new();
    for pattern in [Pattern::Hello, Pattern::C1, Pattern::O5, Pattern::C3] {
        for &implementation in &options.only {
            let applies = (pattern == Pattern::Hello) == (implementation == Implementation::Hello);
            if !applies {
                continue;
            }
            setting.available(implementation, pattern)?;
            for &memory_mb in &options.memory {
                eprint!(
                    "lambda-bench: {} {} at {memory_mb} MB ...",
                    pattern.id(),
                    implementation.name()
                );
                let m = measure(
                    &setting,
                    implementation,
                    pattern,
                    memory_mb,
                    (cold_runs, warm_calls, warm_up),
                )
                .await
                .map_err(|e| {
                    format!(
                        "{} {} at {memory_mb} MB: {e}",
                        pattern.id(),
                        implementation.name()
                    )
                })?;
                eprintln!(
                    " init {:.1} ms, first response {:.1} ms, {:.2} ms CPU per warm call",
                    report::median(m.cold.iter().map(|c| c.init)).as_secs_f64() * 1e3,
                    report::median(m.cold.iter().map(|c| c.first_response)).as_secs_f64() * 1e3,
                    m.cpu_per_warm_call_ns / 1e6
                );
                results.push(m);
            }
        }
    }
    let differences = report::compare_answers(&results);
    for d in &differences {
        eprintln!("lambda-bench: {d}");
    }
    let machine = report::Machine::here(&setting.root, &options, &setting.bin_dir);
    report::write(&options.out, &results, &differences, &machine)
        .map_err(|e| format!("writing the report: {e}"))?;
    eprintln!(
        "lambda-bench: wrote {}",
        options.out.join("lambda.md").display()
    );
    let _ = std::fs::remove_dir_all(&work);
    if differences.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} answers differ from ours (above)",
            differences.len()
        ))
    }
}

/// The event of call `n`: a write gets its own idempotency key, or it would be a replay.
fn event_for(pattern: Pattern, base: &Value, tag: &str, n: usize) -> Bytes {
    let mut event = base.clone();
    if pattern == Pattern::C3 {
        event["headers"]["idempotency-key"] = format!("bench-{tag}-{n}").into();
    }
    Bytes::from(serde_json::to_vec(&event).expect("an event serialises"))
}

/// `event` asking for the page after `cursor`.
fn with_cursor(event: &Value, cursor: &str) -> Value {
    let mut event = event.clone();
    let query = event["rawQueryString"].as_str().unwrap_or_default();
    // A cursor is URL-safe base64 and dots: nothing to escape.
    event["rawQueryString"] = format!("{query}&cursor={cursor}").into();
    event["queryStringParameters"]["cursor"] = cursor.into();
    event
}

const INIT_TIMEOUT: Duration = Duration::from_secs(60);
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
const WARM_BUDGET: Duration = Duration::from_secs(30);
const MIN_WARM_CALLS: usize = 20;
const WARM_UP_BUDGET: Duration = Duration::from_secs(10);

async fn measure(
    setting: &Setting,
    implementation: Implementation,
    pattern: Pattern,
    memory_mb: u32,
    (cold_runs, warm_calls, warm_up): (usize, usize, usize),
) -> Result<Measurement, String> {
    let base = pattern.event(&setting.root);
    let tag = format!(
        "{}-{memory_mb}-{}",
        implementation.key(),
        std::process::id()
    );
    let cgroup = Cgroup::new(
        &format!("lambda-bench-{}", std::process::id()),
        Some(memory_mb),
    )
    .map_err(|e| e.to_string())?;
    let mut cold = Vec::new();
    let mut calls = 0;
    let mut first = None;
    let daemon = match implementation {
        Implementation::Traced => Some(XrayDaemon::start().await?),
        _ => None,
    };
    let trace = match daemon {
        Some(_) => runtime::SAMPLED,
        None => runtime::NOT_SAMPLED,
    };
    for run in 0..cold_runs {
        let mut api = RuntimeApi::start(trace).await.map_err(|e| e.to_string())?;
        let mut command = setting.command(implementation, pattern);
        command
            .env("AWS_LAMBDA_RUNTIME_API", &api.address)
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory_mb.to_string());
        if let Some(d) = &daemon {
            command.env("AWS_XRAY_DAEMON_ADDRESS", &d.address);
        }
        cgroup.reset();
        // The clock starts at the exec (see `Cgroup::spawn`), not at the fork before it.
        let (mut child, started) = cgroup.spawn(&mut command).map_err(|e| e.to_string())?;
        let outcome = async {
            let init = match api.mark(INIT_TIMEOUT).await {
                Some(Mark::Next(at)) => at - started,
                other => return Err(format!("no first GET /next: {other:?}")),
            };
            // The process now waits on `/next`: what it used so far is its init's CPU.
            let init_cpu_ns = cgroup.usage_ns();
            let (_, at, body) = call(&mut api, event_for(pattern, &base, &tag, calls)).await?;
            Ok((init, init_cpu_ns, at - started, body))
        }
        .await;
        calls += 1;
        let (init, init_cpu_ns, first_response, body) = match outcome {
            Ok(o) => o,
            Err(e) => {
                let _ = child.kill();
                let stderr = child
                    .wait_with_output()
                    .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                    .unwrap_or_default();
                return Err(format!("{e}\n{stderr}"));
            }
        };
        cold.push(Cold {
            init,
            init_cpu_ns,
            first_response,
            cpu_ns: cgroup.usage_ns(),
        });
        let next_page = match (&body.1["nextCursor"], pattern) {
            (Value::String(cursor), Pattern::O5) if setting.o5_next_page => {
                Some(with_cursor(&base, cursor))
            }
            (_, Pattern::O5) if setting.o5_next_page => {
                return Err("--o5-next-page: the first page has no nextCursor".into());
            }
            _ => None,
        };
        first.get_or_insert(body);
        if run + 1 < cold_runs {
            stop(&mut child);
            // Each cold start is a new sandbox with its whole quota: without this pause the next
            // process starts in the period its predecessor used up (at 128 MB, C3's 6 ms to its
            // first response and its exit leave nothing) and waits ~60 ms for the next one.
            tokio::time::sleep(process::QUOTA_REFILL).await;
            continue;
        }

        // Warm: the last process serves the rest, first unmeasured (JITs warm up), then measured.
        let base = next_page.unwrap_or(base);
        let warming = Instant::now() + WARM_UP_BUDGET;
        for _ in 0..warm_up {
            call(&mut api, event_for(pattern, &base, &tag, calls)).await?;
            calls += 1;
            if Instant::now() > warming {
                break;
            }
        }
        // Up to `warm_calls`, within a time budget: a slow peer at 128 MB takes a second a call.
        let before = cgroup.usage_ns();
        let budget = Instant::now() + WARM_BUDGET;
        let mut warm = Vec::with_capacity(warm_calls);
        while warm.len() < warm_calls && (warm.len() < MIN_WARM_CALLS || Instant::now() < budget) {
            let (handed, at, _) = call(&mut api, event_for(pattern, &base, &tag, calls)).await?;
            warm.push(at - handed);
            calls += 1;
        }
        let cpu = cgroup.usage_ns() - before;
        let peak_rss = process::peak_rss(child.id()).unwrap_or(0);
        stop(&mut child);
        if let Some(d) = daemon {
            // Every call makes at least one DynamoDB request: each must have reached the daemon.
            let received = d.subsegments().await;
            if received < calls {
                return Err(format!(
                    "traced, but the daemon got {received} DynamoDB subsegments for {calls} calls"
                ));
            }
        }
        let (status, body) = first.take().unwrap_or_default();
        return Ok(Measurement {
            pattern,
            implementation,
            memory_mb,
            cold,
            cpu_per_warm_call_ns: cpu as f64 / warm.len() as f64,
            warm,
            peak_rss,
            body,
            status,
        });
    }
    Err("no runs".into())
}

/// The X-Ray daemon's side of a traced run: a UDP socket counting the DynamoDB subsegments of
/// the harness's trace that arrive.
struct XrayDaemon {
    address: String,
    counted: tokio::task::JoinHandle<usize>,
    stop: tokio::sync::oneshot::Sender<()>,
}

impl XrayDaemon {
    async fn start() -> Result<XrayDaemon, String> {
        let socket = tokio::net::UdpSocket::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("the X-Ray daemon socket: {e}"))?;
        let address = socket.local_addr().map_err(|e| e.to_string())?.to_string();
        let (stop, mut stopped) = tokio::sync::oneshot::channel();
        let counted = tokio::spawn(async move {
            let (mut n, mut buf) = (0, vec![0u8; 65_536]);
            loop {
                tokio::select! {
                    _ = &mut stopped => return n,
                    got = socket.recv(&mut buf) => {
                        let Ok(len) = got else { return n };
                        let doc = std::str::from_utf8(&buf[..len])
                            .ok()
                            .and_then(|t| t.split_once('\n'))
                            .and_then(|(_, d)| serde_json::from_str::<Value>(d).ok());
                        if doc.is_some_and(|d| {
                            d["name"] == "DynamoDB" && runtime::SAMPLED.contains(d["trace_id"].as_str().unwrap_or("-"))
                        }) {
                            n += 1;
                        }
                    }
                }
            }
        });
        Ok(XrayDaemon {
            address,
            counted,
            stop,
        })
    }

    /// How many subsegments arrived (the datagrams of the last call given a moment to land).
    async fn subsegments(self) -> usize {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _ = self.stop.send(());
        self.counted.await.unwrap_or(0)
    }
}

/// Ends a process as Lambda ends an instance (SIGKILL); under LAMBDA_BENCH_WRAP, with SIGINT, so
/// that the profiler writes its data.
fn stop(child: &mut std::process::Child) {
    if std::env::var_os("LAMBDA_BENCH_WRAP").is_some() {
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    } else {
        let _ = child.kill();
    }
    let _ = child.wait();
}

/// One invocation: when the process took the event, when its response came, and the response's
/// (status, body).
async fn call(
    api: &mut RuntimeApi,
    event: Bytes,
) -> Result<(Instant, Instant, (u64, Value)), String> {
    let (handed, at, bytes) = api.invoke(event, CALL_TIMEOUT).await?;
    let response: Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("the response is not JSON: {e}"))?;
    let status = response["statusCode"].as_u64().unwrap_or(0);
    let body = response["body"]
        .as_str()
        .and_then(|b| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    if !(200..300).contains(&status) {
        return Err(format!("answered {status}: {body}"));
    }
    Ok((handed, at, (status, body)))
}

mod data {
    //! The benchmark's data, written through the model layer: customer 123 with 50 orders (C1
    //! reads the newest 10), and 200 open orders of 20 customers in November 2020, the range of
    //! the O5 sample event, spread over the 15 status shards.

    /// 2020-11-01T00:00:00Z.
    const NOVEMBER_2020_MS: u64 = 1_604_188_800_000;
    const HOUR_MS: u64 = 3_600_000;

    pub async fn load(table: &str) -> Result<(), String> {
        let client = devkit::client();
        devkit::create_workspace_table(&client, table)
            .await
            .map_err(|e| format!("cannot create the table {table} in DynamoDB Local: {e}"))?;
        let table = store::Table::new(client, table);
        commerce::fixtures::customer(&table, "123").await;
        // The products of the C3 sample, priced: place-order takes the catalogue's prices.
        commerce::fixtures::priced_product(&table, 1001, 1250).await;
        commerce::fixtures::priced_product(&table, 42, 499).await;
        for n in 0..50 {
            let at = NOVEMBER_2020_MS - (n + 1) * 24 * HOUR_MS;
            commerce::fixtures::order(&table, "123", at, &[(1001, 2, 1250), (42, 1, 499)]).await;
        }
        for c in 0..20 {
            let customer = format!("bench-{c:02}");
            commerce::fixtures::customer(&table, &customer).await;
            for n in 0..10 {
                let at = NOVEMBER_2020_MS + (c * 10 + n) * 7 * HOUR_MS;
                commerce::fixtures::order(&table, &customer, at, &[(7, 1, 300)]).await;
            }
        }
        Ok(())
    }
}
