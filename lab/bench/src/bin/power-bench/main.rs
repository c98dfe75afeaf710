//! `make bench-memory`: every function of `template.yaml` at several memory sizes, as Lambda runs
//! it (the `lambda-bench` harness: a fresh process per cold start at the size's CPU share, the
//! Runtime API, TLS to DynamoDB Local), and the size each one should have: the method of AWS
//! Lambda Power Tuning, offline ([`choose`]).
//!
//! - An API function gets its sample request (`events/<name>.json`, its declaration's example),
//!   a stream handler its sample batch; each function runs on a table of its own, seeded as the
//!   tests seed theirs ([`tools::seed::load`]), with its environment as `template.yaml` gives it.
//! - A write gets a fresh idempotency key, and a batch fresh event ids, per call ([`vary`]):
//!   the same write twice would be a replay, a cheaper path than the one measured.
//! - `--init-experiment` measures opening the DynamoDB connection during init
//!   (`store::Deps::from_env`), and not, with init at the size's CPU share and at a full vCPU.
//!
//! Writes `lab/bench/results/power-tuning.json` (what `make plan` and the template test read) and
//! `power-tuning.md`; a run of some functions (`--functions` or `FUNCTIONS=a,b`) keeps the
//! others' entries.
//!
//! ```text
//! power-bench [--quick] [--functions a,b] [--memory 128,256,512,1024,1769,3008]
//!             [--init-experiment] [--bin-dir target/release] [--out lab/bench/results]
//! ```

mod choose;
mod experiment;
mod subject;

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use bench::{process, process::Cgroup, runtime::RuntimeApi, tls};
use serde_json::{Value, json};

use crate::subject::Subject;

pub struct Options {
    quick: bool,
    functions: Option<Vec<String>>,
    memory: Vec<u32>,
    init_experiment: bool,
    bin_dir: PathBuf,
    out: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        quick: false,
        functions: std::env::var("FUNCTIONS")
            .ok()
            .filter(|f| !f.is_empty())
            .map(|f| f.split(',').map(str::to_owned).collect()),
        memory: choose::SIZES.to_vec(),
        init_experiment: false,
        bin_dir: "target/release".into(),
        out: "lab/bench/results".into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--quick" => o.quick = true,
            "--functions" => o.functions = Some(value()?.split(',').map(str::to_owned).collect()),
            "--memory" => o.memory = bench::memory_sizes(&value()?)?,
            "--init-experiment" => o.init_experiment = true,
            "--bin-dir" => o.bin_dir = value()?.into(),
            "--out" => o.out = value()?.into(),
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(o)
}

fn main() {
    bench::main("power-bench", options(), run);
}

/// Where things are, and the TLS terminator every process reaches DynamoDB Local through.
pub struct Setting {
    root: PathBuf,
    bin_dir: PathBuf,
    work: PathBuf,
    endpoint: String,
    tls: tls::Terminator,
    template: sam_template::Template,
}

async fn run(options: Options) -> Result<(), String> {
    let started = Instant::now();
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let work = std::env::temp_dir().join(format!("power-bench-{}", std::process::id()));
    let (tls, endpoint) = bench::terminator(&work).await?;
    let setting = Setting {
        bin_dir: root.join(&options.bin_dir),
        endpoint,
        template: sam_template::Template::load(root.join("template.yaml"))
            .map_err(|e| format!("template.yaml: {e}"))?,
        root,
        work,
        tls,
    };
    let subjects = subject::all(&setting, options.functions.as_deref())?;
    if options.init_experiment {
        experiment::run(&setting, &subjects, &options).await?;
    } else {
        let plan = if options.quick {
            Plan::QUICK
        } else {
            Plan::FULL
        };
        // Written after each function, so that a run cut short keeps what it measured; a
        // function that fails is reported at the end, the others still measured.
        let mut failed = Vec::new();
        for s in &subjects {
            match tune(&setting, s, &options.memory, plan).await {
                Ok(points) => {
                    choose::write(&options.out, &setting, &[(s.name.clone(), points)], plan)
                        .map_err(|e| format!("writing the results: {e}"))?
                }
                Err(e) => {
                    eprintln!("power-bench: {e}");
                    failed.push(s.name.clone());
                }
            }
        }
        eprintln!(
            "power-bench: wrote {} in {:.0} s",
            options.out.join("power-tuning.json").display(),
            started.elapsed().as_secs_f64()
        );
        if !failed.is_empty() {
            return Err(format!("not measured: {}", failed.join(", ")));
        }
    }
    let _ = std::fs::remove_dir_all(&setting.work);
    Ok(())
}

/// `s` at every size, on a table of its own.
async fn tune(
    setting: &Setting,
    s: &Subject,
    sizes: &[u32],
    plan: Plan,
) -> Result<Vec<choose::Point>, String> {
    let table = s.table().await?;
    let mut points = Vec::new();
    for &memory_mb in sizes {
        eprint!("power-bench: {} at {memory_mb} MB ...", s.name);
        let measured = measure(setting, s, &table, memory_mb, Init::AtShare, None, plan).await;
        let p = match measured {
            Ok(m) => choose::Point::of(&m),
            Err(e) => {
                s.drop_table(&table).await;
                return Err(format!("{} at {memory_mb} MB: {e}", s.name));
            }
        };
        eprintln!(
            " cold {:.1} ms, warm p50 {:.2} ms, p99 {:.2} ms, ${:.4} per million",
            p.cold_ms, p.p50_ms, p.p99_ms, p.cost_per_million
        );
        points.push(p);
    }
    s.drop_table(&table).await;
    Ok(points)
}

/// How many cold starts and warm calls each size gets.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub cold_runs: usize,
    pub warm_up: usize,
    pub warm_calls: usize,
}

impl Plan {
    pub const FULL: Plan = Plan {
        cold_runs: 5,
        warm_up: 10,
        warm_calls: 150,
    };
    pub const QUICK: Plan = Plan {
        cold_runs: 2,
        warm_up: 3,
        warm_calls: 30,
    };

    pub fn describe(&self) -> String {
        format!(
            "{} cold starts (medians), then {} warm calls (at least {MIN_WARM_CALLS}, at most \
             {} s) after {} unmeasured",
            self.cold_runs,
            self.warm_calls,
            WARM_BUDGET.as_secs(),
            self.warm_up
        )
    }
}

/// What CPU init runs with: the size's share (as Lambda bills and, as far as is published,
/// runs it), or a full vCPU until the first `GET /next` (what a boosted init would give).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Init {
    AtShare,
    FullVcpu,
}

/// One cold start: exec to the first `GET /next` (init), the first invocation (the event
/// handed to its response), exec to the first response, and init's CPU.
#[derive(Debug, Clone)]
pub struct Cold {
    pub init: Duration,
    pub first_invocation: Duration,
    pub first_response: Duration,
    pub init_cpu_ns: u64,
}

/// Everything measured for one function at one size.
#[derive(Debug, Clone)]
pub struct Measured {
    pub memory_mb: u32,
    pub cold: Vec<Cold>,
    pub warm: Vec<Duration>,
    pub cpu_per_warm_call_ns: f64,
}

const INIT_TIMEOUT: Duration = Duration::from_secs(60);
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
const WARM_BUDGET: Duration = Duration::from_secs(10);
const MIN_WARM_CALLS: usize = 20;

/// Measures `s` at `memory_mb`: `plan.cold_runs` fresh processes, then warm calls on the last.
/// `connect_at_init` sets `CONNECT_AT_INIT` (unset: the functions' default).
pub async fn measure(
    setting: &Setting,
    s: &Subject,
    table: &str,
    memory_mb: u32,
    init: Init,
    connect_at_init: Option<bool>,
    plan: Plan,
) -> Result<Measured, String> {
    let cgroup = Cgroup::new(
        &format!("power-bench-{}", std::process::id()),
        Some(memory_mb),
    )
    .map_err(|e| e.to_string())?;
    let mut cold = Vec::new();
    for run in 0..plan.cold_runs {
        let mut api = RuntimeApi::start(bench::runtime::NOT_SAMPLED)
            .await
            .map_err(|e| e.to_string())?;
        let mut command = s.command(setting, table, &api.address, memory_mb);
        if let Some(on) = connect_at_init {
            command.env("CONNECT_AT_INIT", if on { "1" } else { "0" });
        }
        cgroup.limit(Some(memory_mb)).map_err(|e| e.to_string())?;
        if init == Init::FullVcpu {
            cgroup
                .limit(Some(process::MB_PER_VCPU as u32))
                .map_err(|e| e.to_string())?;
        }
        cgroup.reset();
        let (mut child, started) = cgroup.spawn(&mut command).map_err(|e| e.to_string())?;
        let outcome = async {
            let init_at = match api.mark(INIT_TIMEOUT).await {
                Some(bench::runtime::Mark::Next(at)) => at,
                other => return Err(format!("no first GET /next: {other:?}")),
            };
            let init_cpu_ns = cgroup.usage_ns();
            // Init is over: the invocation runs at the size's share, whatever init had.
            cgroup.limit(Some(memory_mb)).map_err(|e| e.to_string())?;
            let (handed, at) = s.call(&mut api).await?;
            Ok(Cold {
                init: init_at - started,
                first_invocation: at - handed,
                first_response: at - started,
                init_cpu_ns,
            })
        }
        .await;
        match outcome {
            Ok(c) => cold.push(c),
            Err(e) => {
                let _ = child.kill();
                let stderr = child
                    .wait_with_output()
                    .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                    .unwrap_or_default();
                return Err(format!("{e}\n{stderr}"));
            }
        }
        if run + 1 < plan.cold_runs || plan.warm_calls == 0 {
            let _ = child.kill();
            let _ = child.wait();
            // A new sandbox starts with its whole quota (see lambda-bench).
            tokio::time::sleep(process::QUOTA_REFILL).await;
            continue;
        }
        let result = warm(&cgroup, s, &mut api, plan).await;
        let _ = child.kill();
        let _ = child.wait();
        let (warm, cpu_per_warm_call_ns) = result?;
        return Ok(Measured {
            memory_mb,
            cold,
            warm,
            cpu_per_warm_call_ns,
        });
    }
    Ok(Measured {
        memory_mb,
        cold,
        warm: Vec::new(),
        cpu_per_warm_call_ns: 0.0,
    })
}

/// Warm calls on a process that has answered its first: some unmeasured, then measured ones
/// within a time budget (at 128 MB a fan-out takes ~100 ms a call).
async fn warm(
    cgroup: &Cgroup,
    s: &Subject,
    api: &mut RuntimeApi,
    plan: Plan,
) -> Result<(Vec<Duration>, f64), String> {
    for _ in 0..plan.warm_up {
        s.call(api).await?;
    }
    let before = cgroup.usage_ns();
    let budget = Instant::now() + WARM_BUDGET;
    let mut warm = Vec::with_capacity(plan.warm_calls);
    while warm.len() < plan.warm_calls && (warm.len() < MIN_WARM_CALLS || Instant::now() < budget) {
        let (handed, at) = s.call(api).await?;
        warm.push(at - handed);
    }
    let cpu = (cgroup.usage_ns() - before) as f64 / warm.len() as f64;
    Ok((warm, cpu))
}

/// The machine the figures were measured on.
fn machine() -> Value {
    json!({
        "cpu": bench::cpu_model(),
        "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
    })
}

#[cfg(test)]
mod tests {
    /// `template.yaml` gives each function the size `make bench-memory` chose for it (one it
    /// has not measured keeps Globals' 128 MB).
    #[test]
    fn the_template_carries_each_functions_measured_size() {
        let root = sam_template::workspace_root();
        let results: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("lab/bench/results/power-tuning.json"))
                .expect("lab/bench/results/power-tuning.json (make bench-memory)"),
        )
        .expect("JSON");
        let template = sam_template::Template::workspace().unwrap();
        let mut wrong = Vec::new();
        for f in &template.functions {
            // Not measured yet: Globals' 128 MB, Lambda's least.
            let measured = results["functions"][f.name()]["memory_mb"]
                .as_u64()
                .unwrap_or(128);
            if measured != u64::from(f.memory_mb) {
                wrong.push(format!(
                    "{}: template {} MB, measured {measured} MB",
                    f.name(),
                    f.memory_mb
                ));
            }
        }
        assert!(
            wrong.is_empty(),
            "template.yaml's MemorySize differs from lab/bench/results/power-tuning.json (set the \
             measured size, or run make bench-memory FUNCTIONS=...): {wrong:#?}"
        );
    }
}
