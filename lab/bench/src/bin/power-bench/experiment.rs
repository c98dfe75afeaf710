//! `--init-experiment`: opening the DynamoDB connection during init or at the first request, with
//! init at the size's CPU share and at a full vCPU, cold starts only, every variant in the same
//! run on the same binaries (`CONNECT_AT_INIT=0|1`). Writes
//! `lab/bench/results/changes/15-connect-at-init.md`.

use std::{fmt::Write as _, time::Duration};

use crate::{Init, Options, Plan, Setting, choose, measure, subject::Subject};

/// Functions measured when none are named: a Query, the 15-Query fan-out, the transaction, a
/// stream batch.
const DEFAULT: [&str; 4] = [
    "get-customer",
    "list-orders",
    "place-order",
    "commerce-stream",
];
const DEFAULT_SIZES: [u32; 3] = [128, 256, 1024];
const COLD_RUNS: usize = 9;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub async fn run(setting: &Setting, all: &[Subject], options: &Options) -> Result<(), String> {
    let subjects: Vec<&Subject> = if options.functions.is_some() {
        all.iter().collect()
    } else {
        all.iter()
            .filter(|s| DEFAULT.contains(&s.name.as_str()))
            .collect()
    };
    let sizes = if options.memory == choose::SIZES {
        DEFAULT_SIZES.to_vec()
    } else {
        options.memory.clone()
    };
    let plan = Plan {
        cold_runs: if options.quick { 3 } else { COLD_RUNS },
        warm_up: 0,
        warm_calls: 0,
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Opening the DynamoDB connection during init\n\nMeasured {} at commit `{}` by \
         `power-bench --init-experiment` ({} cold starts per row, medians; every row in the same \
         run, on the same binaries, `CONNECT_AT_INIT=0` or `1`). *init*: exec to the first \
         `GET /next`; *first invocation*: the first event handed to its response (what Lambda \
         bills as the first request's duration); *first response*: exec to the first response \
         (what the caller waits for, less Lambda's own set-up). Init runs at the size's CPU share \
         (what the harness assumes) or at a full vCPU until its first `GET /next` (what a boosted \
         init would give); the invocation always runs at the size's share.\n",
        bench::today(),
        bench::commit(&setting.root),
        plan.cold_runs
    );
    let _ = writeln!(
        md,
        "| function | memory | init CPU | connection | init | first invocation | first response | × lazy (first response) | CPU to init |\n|---|---|---|---|---|---|---|---|---|"
    );
    for s in subjects {
        let table = s.table().await?;
        for &memory_mb in &sizes {
            for init in [Init::AtShare, Init::FullVcpu] {
                let mut lazy_first = None;
                for connect in [false, true] {
                    let m = measure(setting, s, &table, memory_mb, init, Some(connect), plan)
                        .await
                        .map_err(|e| format!("{} at {memory_mb} MB: {e}", s.name))?;
                    let median = |f: fn(&crate::Cold) -> Duration| {
                        ms(choose::percentile(
                            &m.cold.iter().map(f).collect::<Vec<_>>(),
                            50.0,
                        ))
                    };
                    let (init_ms, first_ms, response_ms) = (
                        median(|c| c.init),
                        median(|c| c.first_invocation),
                        median(|c| c.first_response),
                    );
                    let mut cpu: Vec<u64> = m.cold.iter().map(|c| c.init_cpu_ns).collect();
                    cpu.sort_unstable();
                    let init_cpu_ms = cpu[cpu.len().saturating_sub(1) / 2] as f64 / 1e6;
                    let ratio = match lazy_first {
                        None => {
                            lazy_first = Some(response_ms);
                            String::new()
                        }
                        Some(lazy) => format!("{:.2}×", response_ms / lazy),
                    };
                    let label = match init {
                        Init::AtShare => "size's share",
                        Init::FullVcpu => "full vCPU",
                    };
                    let connection = if connect { "at init" } else { "first request" };
                    eprintln!(
                        "power-bench: {} {memory_mb} MB, init at {label}, connection {connection}: \
                         init {init_ms:.1} ms, first invocation {first_ms:.1} ms, first response \
                         {response_ms:.1} ms",
                        s.name
                    );
                    let _ = writeln!(
                        md,
                        "| {} | {memory_mb} MB | {label} | {connection} | {init_ms:.1} ms | \
                         {first_ms:.1} ms | {response_ms:.1} ms | {ratio} | {init_cpu_ms:.2} ms |",
                        s.name
                    );
                }
            }
        }
        s.drop_table(&table).await;
    }
    let path = setting
        .root
        .join("lab/bench/results/changes/15-connect-at-init.md");
    std::fs::write(&path, md).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("power-bench: wrote {}", path.display());
    Ok(())
}
