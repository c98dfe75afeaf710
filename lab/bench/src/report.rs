//! The report: a markdown table with ratios against our functions, measured in the same run, and
//! two charts (SVG, log scale: the implementations differ by orders of magnitude).

use std::{fmt::Write as _, path::Path, time::Duration};

use serde_json::Value;

use crate::{Implementation, Measurement, Options, Pattern};

pub fn median(values: impl Iterator<Item = Duration>) -> Duration {
    percentile(values.collect(), 50.0)
}

/// The nearest-rank percentile.
pub fn percentile(mut values: Vec<Duration>, p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values.sort();
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

fn median_u64(values: impl Iterator<Item = u64>) -> u64 {
    let mut v: Vec<u64> = values.collect();
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied().unwrap_or(0)
}

/// Where a peer's answer differs from ours (same event, same data). A write's answer differs in
/// its generated id and time: only its status and field names are compared. A page's cursor is
/// compared by its presence: ours is sealed with a random nonce, never the same bytes twice.
pub fn compare_answers(results: &[Measurement]) -> Vec<String> {
    let mut differences = Vec::new();
    for m in results {
        if matches!(
            m.implementation,
            Implementation::Rust | Implementation::Hello
        ) {
            continue;
        }
        let Some(ours) = results.iter().find(|r| {
            r.implementation == Implementation::Rust
                && r.pattern == m.pattern
                && r.memory_mb == m.memory_mb
        }) else {
            continue;
        };
        let same = if m.pattern == Pattern::C3 {
            m.status == ours.status && shape(&m.body) == shape(&ours.body)
        } else {
            m.status == ours.status && without_cursor(&m.body) == without_cursor(&ours.body)
        };
        if !same {
            differences.push(format!(
                "{} {} answered {} {}; we answered {} {}",
                m.pattern.id(),
                m.implementation.name(),
                m.status,
                m.body,
                ours.status,
                ours.body
            ));
        }
    }
    differences
}

/// A page with its `nextCursor` reduced to whether there is one.
fn without_cursor(body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(cursor) = body.get_mut("nextCursor") {
        *cursor = (!cursor.is_null()).into();
    }
    body
}

/// The field names of a JSON value, recursively, without the values.
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().take(1).map(shape).collect()),
        _ => Value::Null,
    }
}

/// What the figures were measured on.
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub kernel: String,
    pub date: String,
    pub commit: String,
    pub runs: String,
    pub binary_sizes: Vec<(String, u64)>,
}

impl Machine {
    pub fn here(root: &Path, options: &Options, bin_dir: &Path) -> Machine {
        let cpu = bench::cpu_model();
        let run = |cmd: &str, args: &[&str]| {
            std::process::Command::new(cmd)
                .args(args)
                .current_dir(root)
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
                .unwrap_or_default()
        };
        let binary_sizes = ["bench-hello", "get-customer", "list-orders", "place-order"]
            .iter()
            .filter_map(|b| {
                let len = std::fs::metadata(bin_dir.join(b)).ok()?.len();
                Some((b.to_string(), len))
            })
            .collect();
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            kernel: run("uname", &["-r"]),
            date: run("date", &["-u", "+%Y-%m-%d"]),
            commit: run("git", &["rev-parse", "--short", "HEAD"]),
            runs: format!(
                "{}{}",
                if options.quick {
                    "quick: 2 cold starts, 20 warm calls after 5"
                } else {
                    "7 cold starts (medians); then up to 300 warm calls (at least 20, at most 30 s) after up to 30 unmeasured (at most 10 s)"
                },
                if options.o5_next_page {
                    "; O5's warm calls read its second page, with the cursor of the first"
                } else {
                    ""
                }
            ),
            binary_sizes,
        }
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn ratio(ours: f64, theirs: f64) -> String {
    if ours <= 0.0 {
        return "-".into();
    }
    format!("{:.1}×", theirs / ours)
}

pub fn write(
    out: &Path,
    results: &[Measurement],
    differences: &[String],
    machine: &Machine,
) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    let mut md = String::new();
    let _ = writeln!(md, "# Lambda benchmark\n");
    let _ = writeln!(
        md,
        "Measured {} at commit `{}` on this machine: {} ({} cores), Linux {}. {}. Each process \
         runs at Lambda's CPU share for its memory size (a cgroup CPU quota: 1,769 MB = one vCPU) \
         and reaches DynamoDB Local through TLS. Absolute times are this machine's; the ratios, \
         measured in the same run on the same data, are the claim.\n",
        machine.date, machine.commit, machine.cpu, machine.cores, machine.kernel, machine.runs
    );
    let _ = writeln!(
        md,
        "| pattern | implementation | memory | init | first response | × ours (first) | warm p50 | warm p99 | warm calls | CPU per warm call | × ours (CPU) | peak RSS |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for m in results {
        let ours = results.iter().find(|r| {
            r.implementation == Implementation::Rust
                && r.pattern == m.pattern
                && r.memory_mb == m.memory_mb
        });
        let first = |m: &Measurement| median(m.cold.iter().map(|c| c.first_response));
        let (first_ratio, cpu_ratio) = match ours {
            Some(o) if m.implementation != Implementation::Rust => (
                ratio(first(o).as_secs_f64(), first(m).as_secs_f64()),
                ratio(o.cpu_per_warm_call_ns, m.cpu_per_warm_call_ns),
            ),
            _ => ("".into(), "".into()),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} MB | {} | {} | {} | {} | {} | {} | {:.2} ms | {} | {:.1} MB |",
            m.pattern.id(),
            m.implementation.name(),
            m.memory_mb,
            ms(median(m.cold.iter().map(|c| c.init))),
            ms(first(m)),
            first_ratio,
            ms(percentile(m.warm.clone(), 50.0)),
            ms(percentile(m.warm.clone(), 99.0)),
            m.warm.len(),
            m.cpu_per_warm_call_ns / 1e6,
            cpu_ratio,
            m.peak_rss as f64 / 1e6,
        );
    }
    let _ = writeln!(md, "\nPatterns:\n");
    for p in [Pattern::Hello, Pattern::C1, Pattern::O5, Pattern::C3] {
        let _ = writeln!(md, "- **{}**: {}", p.id(), p.what());
    }
    let _ = writeln!(
        md,
        "\n*init*: from the process's exec to its first `GET /next` (Lambda's Init Duration). \
         *first response*: from the exec to the first response, the cold start a caller waits \
         for (without Lambda's own sandbox set-up). *CPU per warm call*: all the process's \
         threads, counted by the kernel (cpuacct), over the warm calls. CPU to init and to the \
         first response, medians (CPU, unlike wall-clock time, leaves out what else the machine \
         was doing): {}.\n",
        results
            .iter()
            .map(|m| format!(
                "{} {} MB {:.1} / {:.1} ms",
                // The hello pattern has one implementation, named the same.
                if m.implementation == Implementation::Hello {
                    m.pattern.id().to_owned()
                } else {
                    format!("{} {}", m.pattern.id(), m.implementation.key())
                },
                m.memory_mb,
                median_u64(m.cold.iter().map(|c| c.init_cpu_ns)) as f64 / 1e6,
                median_u64(m.cold.iter().map(|c| c.cpu_ns)) as f64 / 1e6
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !machine.binary_sizes.is_empty() {
        let _ = writeln!(
            md,
            "Release binaries (x86_64, this machine's build): {}.\n",
            machine
                .binary_sizes
                .iter()
                .map(|(b, n)| format!("`{b}` {:.1} MB", *n as f64 / 1e6))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if differences.is_empty() {
        let _ = writeln!(
            md,
            "Every peer answered every event as we did (reads: the same JSON; the write: the \
             same status and fields).\n"
        );
    } else {
        let _ = writeln!(md, "Answers that differ from ours:\n");
        for d in differences {
            let _ = writeln!(md, "- {d}");
        }
    }
    let _ = writeln!(
        md,
        "![first response, cold](lambda-cold.svg)\n\n![CPU per warm call](lambda-cpu.svg)"
    );
    std::fs::write(out.join("lambda.md"), md)?;

    let chart_memory = results.iter().map(|m| m.memory_mb).min().unwrap_or(128);
    let bars = |value: &dyn Fn(&Measurement) -> f64| -> Vec<(String, f64, Implementation)> {
        results
            .iter()
            .filter(|m| m.memory_mb == chart_memory)
            .map(|m| {
                (
                    format!("{} {}", m.pattern.id(), m.implementation.name()),
                    value(m),
                    m.implementation,
                )
            })
            .collect()
    };
    std::fs::write(
        out.join("lambda-cold.svg"),
        svg_bars(
            &format!("Cold start, first response (ms, log scale), {chart_memory} MB CPU share"),
            &bars(&|m| median(m.cold.iter().map(|c| c.first_response)).as_secs_f64() * 1e3),
        ),
    )?;
    std::fs::write(
        out.join("lambda-cpu.svg"),
        svg_bars(
            &format!("CPU per warm call (ms, log scale), {chart_memory} MB CPU share"),
            &bars(&|m| m.cpu_per_warm_call_ns / 1e6),
        ),
    )?;
    Ok(())
}

fn colour(i: Implementation) -> &'static str {
    match i {
        Implementation::Rust => "#b7410e",
        Implementation::Traced => "#d4733f",
        Implementation::Before => "#e8a27c",
        Implementation::Hello => "#888888",
        Implementation::Node => "#3c873a",
        Implementation::Python => "#3776ab",
    }
}

/// A horizontal bar chart on a log scale, one bar per row, coloured by implementation.
fn svg_bars(title: &str, rows: &[(String, f64, Implementation)]) -> String {
    let rows: Vec<_> = rows
        .iter()
        .map(|(label, value, i)| (label.clone(), *value, colour(*i)))
        .collect();
    devkit::svg::bars(title, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<_> = (1..=100).map(d).collect();
        assert_eq!(percentile(v.clone(), 50.0), d(50));
        assert_eq!(percentile(v.clone(), 99.0), d(99));
        assert_eq!(percentile(vec![d(3), d(1), d(2)], 50.0), d(2));
        assert_eq!(percentile(vec![], 50.0), Duration::ZERO);
    }

    fn answered(implementation: Implementation, body: Value) -> Measurement {
        Measurement {
            pattern: Pattern::O5,
            implementation,
            memory_mb: 1024,
            cold: vec![],
            warm: vec![],
            cpu_per_warm_call_ns: 0.0,
            peak_rss: 0,
            body,
            status: 200,
        }
    }

    /// Our cursors are sealed with a random nonce (`store::cursor`): the same page twice gives
    /// two cursors, and a peer's can never be ours byte for byte. A page is the same when its
    /// items are and both have a next page, or neither does.
    #[test]
    fn a_cursor_is_compared_by_its_presence_not_its_bytes() {
        let page = |cursor: Value| serde_json::json!({"orders": [{"orderId": "01A"}], "nextCursor": cursor});
        let ours = answered(Implementation::Rust, page("aHDGSVg.ZvHiq9Wb".into()));
        let same = answered(Implementation::Node, page("7s0dR9_N.eyJiIjoi.c2ln".into()));
        assert_eq!(compare_answers(&[ours, same]), Vec::<String>::new());
        for other in [
            page(Value::Null),
            serde_json::json!({"orders": [{"orderId": "01B"}], "nextCursor": "x"}),
        ] {
            let ours = answered(Implementation::Rust, page("aHDGSVg.ZvHiq9Wb".into()));
            let other = answered(Implementation::Python, other);
            assert_eq!(compare_answers(&[ours, other]).len(), 1);
        }
    }

    #[test]
    fn a_write_is_compared_by_its_fields_not_its_values() {
        let a = serde_json::json!({"orderId": "01A", "lines": [{"sku": 1}]});
        let b = serde_json::json!({"orderId": "01B", "lines": [{"sku": 2}, {"sku": 3}]});
        assert_eq!(shape(&a), shape(&b));
        assert_ne!(shape(&a), shape(&serde_json::json!({"id": "01A"})));
    }

    #[test]
    fn a_chart_has_a_bar_per_row_within_its_width() {
        let rows = vec![
            ("C1 rust".to_owned(), 1.5, Implementation::Rust),
            ("C1 node".to_owned(), 400.0, Implementation::Node),
        ];
        let svg = svg_bars("t", &rows);
        assert_eq!(svg.matches("<rect x=").count(), 2);
        assert!(svg.contains("400.00") && svg.contains("1.50"));
    }
}
