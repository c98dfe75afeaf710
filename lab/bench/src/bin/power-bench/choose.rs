//! The size each function gets, the way AWS Lambda Power Tuning chooses it, offline: every size's
//! cost per million calls (Lambda's price for the billed milliseconds at that memory, plus the
//! request) and its warm p99; the cheapest size whose p99 is within [`P99_TOLERANCE`] of the
//! fastest size's. Then `power-tuning.json` and `power-tuning.md`.

use std::{collections::BTreeMap, fmt::Write as _, path::Path, time::Duration};

use serde_json::{Value, json};

use crate::{Measured, Plan, Setting};

/// The sizes measured by default: Lambda's least, powers of two, one vCPU (1,769 MB), and a
/// size past one vCPU.
pub const SIZES: [u32; 6] = [128, 256, 512, 1024, 1769, 3008];

/// Lambda's prices, US East (N. Virginia), arm64 (the template's architecture), first tier.
pub const PRICE_PER_GB_SECOND: f64 = 0.000_013_333_4;
pub const PRICE_PER_MILLION_REQUESTS: f64 = 0.20;
/// Since when: arm64's price since Lambda's Graviton2 launch (2021-09-29); the request price
/// since 2014. Tiered pricing (2022-08) lowered only usage past 7.5 billion GB-seconds a month.
pub const PRICE_DATE: &str = "2021-09-29";

/// How much slower than the fastest size's p99 a cheaper size may be and still be chosen:
/// 10%, or 1 ms, whichever is more (a p99 of 150 calls is their second slowest: noisy).
pub const P99_TOLERANCE: (f64, f64) = (1.10, 1.0);

/// One size's figures, in ms and dollars.
#[derive(Debug, Clone)]
pub struct Point {
    pub memory_mb: u32,
    pub init_ms: f64,
    /// Exec to the first response, median: the cold start a caller waits for.
    pub cold_ms: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Lambda bills each call's duration rounded up to the millisecond: their mean.
    pub billed_ms: f64,
    pub cpu_ms: f64,
    pub cost_per_million: f64,
    pub calls: usize,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The nearest-rank percentile.
pub fn percentile(values: &[Duration], p: f64) -> Duration {
    let mut v = values.to_vec();
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Dollars per million calls of `billed_ms` each at `memory_mb`.
pub fn cost_per_million(memory_mb: u32, billed_ms: f64) -> f64 {
    let gb_seconds = memory_mb as f64 / 1024.0 * billed_ms / 1e3;
    1e6 * gb_seconds * PRICE_PER_GB_SECOND + PRICE_PER_MILLION_REQUESTS
}

impl Point {
    pub fn of(m: &Measured) -> Point {
        let billed_ms =
            m.warm.iter().map(|d| ms(*d).ceil().max(1.0)).sum::<f64>() / m.warm.len().max(1) as f64;
        let median = |f: fn(&crate::Cold) -> Duration| {
            ms(percentile(&m.cold.iter().map(f).collect::<Vec<_>>(), 50.0))
        };
        Point {
            memory_mb: m.memory_mb,
            init_ms: median(|c| c.init),
            cold_ms: median(|c| c.first_response),
            p50_ms: ms(percentile(&m.warm, 50.0)),
            p99_ms: ms(percentile(&m.warm, 99.0)),
            billed_ms,
            cpu_ms: m.cpu_per_warm_call_ns / 1e6,
            cost_per_million: cost_per_million(m.memory_mb, billed_ms),
            calls: m.warm.len(),
        }
    }
}

/// The chosen size: the cheapest whose p99 is within the tolerance of the best p99 (ties: the
/// smaller size).
pub fn choose(points: &[Point]) -> Option<&Point> {
    let best = points.iter().map(|p| p.p99_ms).reduce(f64::min)?;
    let limit = (best * P99_TOLERANCE.0).max(best + P99_TOLERANCE.1);
    points.iter().filter(|p| p.p99_ms <= limit).min_by(|a, b| {
        a.cost_per_million
            .total_cmp(&b.cost_per_million)
            .then(a.memory_mb.cmp(&b.memory_mb))
    })
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn entry(p: &Point) -> Value {
    json!({
        "memory_mb": p.memory_mb,
        "p50_ms": round(p.p50_ms, 2),
        "p99_ms": round(p.p99_ms, 2),
        "cold_ms": round(p.cold_ms, 1),
        "init_ms": round(p.init_ms, 1),
        "billed_ms": round(p.billed_ms, 2),
        "cpu_ms": round(p.cpu_ms, 3),
        "cost_per_million_usd": round(p.cost_per_million, 4),
        "warm_calls": p.calls,
    })
}

/// Writes `power-tuning.json` (merged into the one there: a run of some functions keeps the
/// others') and `power-tuning.md` from it.
pub fn write(
    out: &Path,
    setting: &Setting,
    tuned: &[(String, Vec<Point>)],
    plan: Plan,
) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    let path = out.join("power-tuning.json");
    let mut functions: BTreeMap<String, Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| serde_json::from_value(v["functions"].clone()).ok())
        .unwrap_or_default();
    let (date, commit) = (bench::today(), bench::commit(&setting.root));
    for (name, points) in tuned {
        let Some(chosen) = choose(points) else {
            continue;
        };
        let mut e = entry(chosen);
        e["measured"] = date.clone().into();
        e["commit"] = commit.clone().into();
        e["sizes"] = points.iter().map(entry).collect();
        functions.insert(name.clone(), e);
    }
    let doc = json!({
        "measured": date,
        "method": format!(
            "Each function's release binary at each size's CPU share (cgroup quota, 1,769 MB = one \
             vCPU), over TLS to DynamoDB Local, on this machine: {}. memory_mb: the cheapest size \
             whose warm p99 is within {}% (or {} ms) of the fastest size's. Figures of the chosen \
             size; every size's under sizes.",
            plan.describe(),
            round((P99_TOLERANCE.0 - 1.0) * 100.0, 0),
            P99_TOLERANCE.1
        ),
        "machine": crate::machine(),
        "prices": {
            "region": "us-east-1",
            "architecture": "arm64",
            "per_gb_second_usd": PRICE_PER_GB_SECOND,
            "per_million_requests_usd": PRICE_PER_MILLION_REQUESTS,
            "since": PRICE_DATE,
        },
        "functions": functions,
    });
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&doc).expect("JSON") + "\n",
    )?;
    std::fs::write(out.join("power-tuning.md"), markdown(&doc))
}

/// The report: per function, every size, the chosen one in bold.
pub fn markdown(doc: &Value) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Memory size per function (`make bench-memory`)\n");
    let _ = writeln!(
        md,
        "Last measured {} on {} ({} cores). {}\n",
        doc["measured"].as_str().unwrap_or("?"),
        doc["machine"]["cpu"].as_str().unwrap_or("?"),
        doc["machine"]["cores"],
        doc["method"].as_str().unwrap_or("")
    );
    let _ = writeln!(
        md,
        "Prices: Lambda, {} {}, ${} per GB-second and ${} per million requests, in effect since {}.\n",
        doc["prices"]["region"].as_str().unwrap_or("?"),
        doc["prices"]["architecture"].as_str().unwrap_or("?"),
        doc["prices"]["per_gb_second_usd"],
        doc["prices"]["per_million_requests_usd"],
        doc["prices"]["since"].as_str().unwrap_or("?"),
    );
    let _ = writeln!(
        md,
        "| function | memory | cold (exec to first response) | warm p50 | warm p99 | billed per call | CPU per call | $ per million calls |\n|---|---|---|---|---|---|---|---|"
    );
    let empty = serde_json::Map::new();
    for (name, f) in doc["functions"].as_object().unwrap_or(&empty) {
        let chosen = f["memory_mb"].as_u64();
        for s in f["sizes"].as_array().into_iter().flatten() {
            let bold = if s["memory_mb"].as_u64() == chosen {
                "**"
            } else {
                ""
            };
            let _ = writeln!(
                md,
                "| {name} | {bold}{} MB{bold} | {} ms | {} ms | {} ms | {} ms | {} ms | ${} |",
                s["memory_mb"],
                s["cold_ms"],
                s["p50_ms"],
                s["p99_ms"],
                s["billed_ms"],
                s["cpu_ms"],
                s["cost_per_million_usd"]
            );
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(memory_mb: u32, p99_ms: f64, billed_ms: f64) -> Point {
        Point {
            memory_mb,
            init_ms: 2.0,
            cold_ms: 10.0,
            p50_ms: p99_ms / 2.0,
            p99_ms,
            billed_ms,
            cpu_ms: 1.0,
            cost_per_million: cost_per_million(memory_mb, billed_ms),
            calls: 200,
        }
    }

    #[test]
    fn a_gb_second_and_a_request_cost_what_aws_charges() {
        // 1,024 MB for 1,000 ms: one GB-second.
        let one = cost_per_million(1024, 1000.0);
        assert!((one - (1e6 * PRICE_PER_GB_SECOND + 0.20)).abs() < 1e-9);
        // 128 MB for 2 ms: 0.00025 GB-s a call.
        assert!((cost_per_million(128, 2.0) - (250.0 * PRICE_PER_GB_SECOND + 0.20)).abs() < 1e-9);
    }

    #[test]
    fn the_cheapest_size_near_the_best_p99_is_chosen() {
        // O5-like: 128 MB is cheapest but 10x slower at p99; 1,024 MB is near the best.
        let points = [
            point(128, 100.0, 83.0),
            point(512, 30.0, 20.0),
            point(1024, 15.0, 8.0),
            point(1769, 14.5, 7.0),
        ];
        assert_eq!(choose(&points).unwrap().memory_mb, 1024);
        // Equal p99 everywhere: the cheapest, the smallest.
        let flat = [point(128, 5.0, 2.0), point(1024, 5.0, 2.0)];
        assert_eq!(choose(&flat).unwrap().memory_mb, 128);
        // Within 1 ms of the best counts as equal, however small the p99.
        let tiny = [point(128, 2.4, 2.0), point(1024, 1.5, 2.0)];
        assert_eq!(choose(&tiny).unwrap().memory_mb, 128);
        assert!(choose(&[]).is_none());
    }
}
