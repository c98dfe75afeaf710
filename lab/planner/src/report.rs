//! The plan in Markdown: per table and index the hottest partition keys against the limits, what
//! throttles and when, shard counts, Lambda concurrency, stream consumers, monthly cost.

use std::{collections::BTreeMap, fmt::Write as _, path::Path};

use crate::{
    analysis::{self, CounterShards, StatusShards},
    model::Ix,
    sim::{self, BatchTime, Heat, PARTITION_RCU, PARTITION_WCU, Streams},
    workload::Workload,
};

/// us-east-1 public prices as this project states them, and the date they are stated as.
pub mod rates {
    pub const STATED: &str = "2026-11-25";
    /// On-demand, per million request units (the November 2024 prices).
    pub const READ_REQUEST: f64 = 0.125;
    pub const WRITE_REQUEST: f64 = 0.625;
    /// Provisioned, per unit-hour.
    pub const RCU_HOUR: f64 = 0.000_13;
    pub const WCU_HOUR: f64 = 0.000_65;
    /// Lambda on arm64, per GB-second and per million requests.
    pub const LAMBDA_GB_SECOND: f64 = 0.000_013_333_4;
    pub const LAMBDA_REQUEST: f64 = 0.20;
    /// Provisioned capacity is planned at this utilisation (auto scaling's usual target).
    pub const TARGET_UTILISATION: f64 = 0.7;
    pub const DAYS_PER_MONTH: f64 = 30.4;
}

/// Durations per function: measured (lab/bench/results/power-tuning.json) or assumed.
#[derive(Debug, Clone)]
pub struct Durations {
    pub measured: Option<String>,
    functions: BTreeMap<String, (Option<u32>, f64)>,
    pub source: String,
}

/// Warm duration assumed for an API function without a measurement, in ms.
pub const ASSUMED_MS: f64 = 20.0;
/// A stream batch's duration assumed without a measurement, in ms.
pub const ASSUMED_BATCH_MS: f64 = 100.0;

impl Durations {
    pub fn load(root: &Path) -> Durations {
        let path = root.join("lab/bench/results/power-tuning.json");
        let parsed = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let Some(v) = parsed else {
            return Durations {
                measured: None,
                functions: BTreeMap::new(),
                source: format!(
                    "assumed ({ASSUMED_MS} ms a call, {ASSUMED_BATCH_MS} ms a stream batch): \
                     lab/bench/results/power-tuning.json is not there yet"
                ),
            };
        };
        let functions = v["functions"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(name, f)| {
                let p50 = f["p50_ms"].as_f64()?;
                let mb = f["memory_mb"].as_u64().map(|m| m as u32);
                Some((name.clone(), (mb, p50)))
            })
            .collect();
        let measured = v["measured"].as_str().map(str::to_owned);
        Durations {
            source: format!(
                "measured: lab/bench/results/power-tuning.json (p50, {})",
                measured.as_deref().unwrap_or("undated")
            ),
            measured,
            functions,
        }
    }

    /// The warm duration of `function` in ms, and whether it was measured.
    pub fn ms(&self, function: &str, assumed: f64) -> (f64, bool) {
        self.functions
            .get(function)
            .map_or((assumed, false), |(_, ms)| (*ms, true))
    }

    /// The memory size `function` was measured at, if it was.
    pub fn memory(&self, function: &str) -> Option<u32> {
        self.functions.get(function).and_then(|(mb, _)| *mb)
    }

    pub fn batch(&self, consumer: &str) -> BatchTime {
        match self.functions.get(consumer) {
            Some((_, ms)) => BatchTime {
                ms: *ms,
                source: format!(
                    "measured p50 of {consumer}'s sample batch ({}); a full batch may take longer",
                    self.source
                ),
            },
            None => BatchTime {
                ms: ASSUMED_BATCH_MS,
                source: format!(
                    "assumed {ASSUMED_BATCH_MS} ms a batch: no measurement of {consumer}"
                ),
            },
        }
    }
}

/// The function serving a pattern (by catalogue ID or function name).
pub fn function_of(pattern: &str) -> &'static str {
    catalogue::PATTERNS
        .iter()
        .find(|p| p.id == pattern || p.function == pattern)
        .map(|p| p.function)
        .or_else(|| crate::generic::resolve(pattern).map(|r| r.function))
        .unwrap_or("?")
}

/// The monthly cost of the heat.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cost {
    pub on_demand: f64,
    pub provisioned: f64,
    pub lambda: f64,
}

/// What DynamoDB's units cost a month (Lambda's: [`crate::lambda::Plan::monthly`]).
pub fn cost(heat: &Heat) -> Cost {
    use rates::*;
    let mut c = Cost::default();
    for (units, read) in [(&heat.rcu, true), (&heat.wcu, false)] {
        for per_hour in units.values() {
            let (price, hourly) = if read {
                (READ_REQUEST, RCU_HOUR)
            } else {
                (WRITE_REQUEST, WCU_HOUR)
            };
            for u in per_hour {
                c.on_demand += u * 3600.0 * DAYS_PER_MONTH * price / 1e6;
                c.provisioned += u / TARGET_UTILISATION * hourly * DAYS_PER_MONTH;
            }
        }
    }
    c
}

/// What a report is made of.
pub struct Plan<'a> {
    pub workload: &'a Workload,
    /// The workload file, as the report links it.
    pub file: &'a str,
    pub heat: &'a Heat,
    pub status: Option<&'a StatusShards>,
    pub counters: Option<&'a CounterShards>,
    pub durations: &'a Durations,
    pub streams: &'a Streams,
    /// The heat chart, as the report links it.
    pub svg: Option<&'a str>,
}

/// The whole report.
pub fn markdown(plan: &Plan<'_>) -> String {
    let &Plan {
        workload: w,
        file,
        heat,
        status,
        counters,
        durations,
        streams,
        svg,
    } = plan;
    let template = sam_template::Template::workspace().ok();
    let memory = |f: &str| {
        template
            .as_ref()
            .and_then(|t| t.function(f))
            .map_or(128, |f| f.memory_mb)
    };
    let mut s = String::new();
    let _ = writeln!(s, "# Capacity plan: {}\n", w.name);
    let _ = writeln!(
        s,
        "Generated by `make plan` from [`{file}`]({file}). {} A model of DynamoDB's documented \
         behaviour (3,000 RCU and 1,000 WCU a second per partition, for the table and each \
         GSI), not a measurement of AWS: see [docs/capacity.md](../../../docs/capacity.md).\n",
        w.description.trim()
    );
    if w.horizon_months > 0 {
        let _ = writeln!(
            s,
            "Populations as they will be in {} months, each grown by its monthly growth.\n",
            w.horizon_months
        );
    }
    let d = heat.design;
    let _ = writeln!(
        s,
        "Key design: `OrderStatusShards` = {}, `AggregateShards` = {}; certificate shards = {}. \
         Item sizes (bytes, as DynamoDB counts them) {}: order {:.0}, order line {:.0}, \
         customer {:.0}, product {:.0}, review {:.0}, certificate {:.0}.\n",
        d.order_status_shards,
        d.aggregate_shards,
        keys::learning::CERTIFICATE_SHARDS,
        if heat.sizes.stated.is_empty() {
            "measured on real items of the model".to_owned()
        } else {
            format!(
                "measured on real items of the model, except {} (stated by the workload)",
                heat.sizes.stated.join(", ")
            )
        },
        heat.sizes.order_header,
        heat.sizes.order_line,
        heat.sizes.customer,
        heat.sizes.product,
        heat.sizes.review,
        heat.sizes.certificate,
    );
    if let Some(svg) = svg {
        let _ = writeln!(s, "![heat of the hottest partition keys]({svg})\n");
    }
    // Findings first.
    let findings = analysis::findings(heat);
    let _ = writeln!(s, "## What throttles\n");
    if findings.is_empty() {
        let _ = writeln!(s, "No partition key runs past a limit, at any hour.\n");
    } else {
        let _ = writeln!(
            s,
            "| index | partition key | problem | fix |\n|---|---|---|---|"
        );
        for f in &findings {
            let _ = writeln!(
                s,
                "| {} | `{}` ({}) | {} | {} |",
                f.index.name(),
                f.pk,
                f.label,
                f.problem,
                f.fix
            );
        }
        s.push('\n');
    }
    // Writes that fail.
    let failing = analysis::failing_writes(heat);
    if !failing.is_empty() {
        let _ = writeln!(
            s,
            "## Writes that fail\n\nA throttled key fails the request that writes it, and a throttled index key fails the table write that feeds it (GSI back-pressure): the whole transaction of the call, not a lag in the index. Failing calls are the share of the key's writes past its limit, at its peak hour; the SDK retries them, which adds load, and a call out of retries answers 503.\n\n| index | partition key | pattern | its calls/s writing the key | failing calls/s |\n|---|---|---|---|---|"
        );
        for f in failing.iter().take(20) {
            let _ = writeln!(
                s,
                "| {} | `{}` | {} | {:.0} at {:02}:00 | {:.0} |",
                f.index.name(),
                f.pk,
                f.pattern,
                f.calls,
                f.hour,
                f.failing
            );
        }
        s.push('\n');
    }
    // Near a limit.
    let near = analysis::near_limit(heat);
    if !near.is_empty() {
        let _ = writeln!(
            s,
            "## Near a limit\n\nKeys at {:.0}% or more of a partition's limit at their peak, not past it. Until DynamoDB splits a partition for heat (minutes), several of them may share one and throttle together; a little more traffic puts each past. Treat them as at the limit: shard them, or warm the table (below) so it has split before the peak.\n\n| index | partition key | shape | share of the limit |\n|---|---|---|---|",
            crate::limits::NEAR * 100.0
        );
        for n in &near {
            let _ = writeln!(
                s,
                "| {} | `{}` | {} | {:.0}% at {:02}:00 |",
                n.index.name(),
                n.pk,
                n.label,
                n.share * 100.0,
                n.hour
            );
        }
        s.push('\n');
    }
    // The table's own limits.
    let throughput = crate::limits::throughput(heat);
    if let Some(table) = throughput.first().filter(|t| t.index == Ix::TABLE) {
        use crate::limits::{DOUBLING_MINUTES, NEW_TABLE_RCU, NEW_TABLE_WCU, QUOTA};
        let n = |v: f64| crate::workload::thousands(v.round() as u64);
        let _ = writeln!(
            s,
            "## The table's limits\n\nUnits a second at the peak, everything included. A new on-demand table, and each new index, serves {} reads and {} writes a second at once and grows to double its previous peak within about {DOUBLING_MINUTES:.0} minutes; each has a default quota of {} of each a second.\n\n| | peak RCU/s | peak WCU/s | unwarmed, reaches the peak after | default quota |\n|---|---|---|---|---|",
            n(NEW_TABLE_RCU),
            n(NEW_TABLE_WCU),
            n(QUOTA)
        );
        for t in &throughput {
            let minutes = t.warm_up_minutes();
            let _ = writeln!(
                s,
                "| {} | {} at {:02}:00 | {} at {:02}:00 | {} | {} |",
                t.index.name(),
                n(t.rcu.0),
                t.rcu.1,
                n(t.wcu.0),
                t.wcu.1,
                if minutes == 0.0 {
                    "at once".to_owned()
                } else {
                    format!("about {minutes:.0} minutes of doubling")
                },
                if t.over_quota() {
                    "**past it: ask AWS for an increase**"
                } else {
                    "within"
                }
            );
        }
        let set = crate::limits::settings(table);
        let _ = writeln!(
            s,
            "\nSet in `template.yaml` (`sam deploy --parameter-overrides`): {}`MaxReadRequestUnits={}` and `MaxWriteRequestUnits={}` (the peak and half again: a cost guard that throttles a runaway client, not the launch).{}{}\n",
            if set.warm_read > 0 {
                format!(
                    "`WarmReadUnitsPerSecond={}` and `WarmWriteUnitsPerSecond={}` (pre-warmed to the peak: a launch does not wait for doublings; warming bills once for the units), ",
                    set.warm_read, set.warm_write
                )
            } else {
                "no warming (a new table serves the peak at once), ".to_owned()
            },
            set.max_read,
            set.max_write,
            if throughput.iter().skip(1).any(|t| t.warm_up_minutes() > 0.0) {
                " An index past a new index's throughput needs its own warm throughput (`GlobalSecondaryIndexes[].WarmThroughput`), which the template does not take as a parameter yet."
            } else {
                ""
            },
            if throughput.iter().any(crate::limits::Throughput::over_quota) {
                " **The peak is past the default quota: request an increase (Service Quotas, DynamoDB, per table) before the launch; an account's regional quotas may need raising too.**"
            } else {
                ""
            }
        );
    }
    // The hottest keys per index.
    let indexes =
        std::iter::once(Ix::TABLE).chain(crate::model::template_indexes().iter().map(|i| i.index));
    for ix in indexes {
        let keys: Vec<_> = heat.keys.iter().filter(|k| k.index == ix).take(8).collect();
        if keys.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "## {}: the hottest partition keys\n\n| partition key | shape | peak RCU/s (limit {PARTITION_RCU:.0}) | peak WCU/s (limit {PARTITION_WCU:.0}) | throttles | patterns |\n|---|---|---|---|---|---|",
            ix.name()
        );
        for k in keys {
            let (r, rh) = k.peak_rcu();
            let (wv, wh) = k.peak_wcu();
            let _ = writeln!(
                s,
                "| `{}` | {} | {r:.1} at {rh:02}:00 | {wv:.1} at {wh:02}:00 | {} | {} |",
                k.pk,
                k.label,
                analysis::describe_hours(&k.throttled_hours()),
                k.patterns.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
        let tails: Vec<_> = heat.tails.iter().filter(|t| t.index == ix).collect();
        for t in tails {
            let _ = writeln!(
                s,
                "| each of {} more `{}` ({}) | | at most {} | at most {} | | |",
                t.keys,
                t.label,
                t.pattern,
                significant(t.peak_rcu),
                significant(t.peak_wcu)
            );
        }
        s.push('\n');
    }
    if let Some(o) = status {
        let _ = writeln!(
            s,
            "## `OrderStatusShards`: O5's reads and the headers' writes\n\nReads, by seed 003's formula:\n\n```text\nItemsPerRCU          = 4 KB / {:.0} B = {}\nPartitionMaxReadRate = 3,000 × {} = {} items/s\nN                    = {:.0} / {} = {}\n```\n\nWrites: every order header is written to its GSI2 shard when placed, and moved there when its status changes: {:.0} WCU/s at the peak over all shards, and the fullest shard by the real hash of real order ids stays under {PARTITION_WCU:.0} WCU/s with {} shards.\n\n**N = {} (reads {}, writes {}); set `OrderStatusShards` to {} (padded about 15%).** The plan has {}.\n",
            o.item_bytes,
            o.items_per_rcu,
            o.items_per_rcu,
            o.partition_max_read_rate,
            o.max_required_io,
            o.partition_max_read_rate,
            o.n_reads,
            o.peak_wcu,
            o.n_writes,
            o.n,
            o.n_reads,
            o.n_writes,
            o.padded,
            heat.design.order_status_shards,
        );
        if o.n > keys::Shard::MAX_COUNT {
            let _ = writeln!(
                s,
                "**N is past the {} shards the key design takes**: O5 at this rate needs a cache, or pages of OPEN orders instead of every one.\n",
                keys::Shard::MAX_COUNT
            );
        }
        if o.max_required_io > 0.0 {
            let _ = writeln!(
                s,
                "Checked against the plan: the hottest `ORDERS#<shard>` reads {:.0} RCU/s at N = {}, {:.0} at {}, and {:.0} with one partition (limit {PARTITION_RCU:.0}). GSI reads are eventually consistent (half a unit per 4 KB); the seed's arithmetic counts whole units, a margin of two.\n",
                o.hottest_rcu_at_n, o.n, o.hottest_rcu_padded, o.padded, o.hottest_rcu_at_1
            );
        }
    }
    if let Some(c) = counters {
        let _ = writeln!(
            s,
            "## Sharded counters\n\nThe hottest counter shard, `{}`, is written {:.0} WCU/s with {} shards. {}\n",
            c.hottest_key_now,
            c.hottest_wcu_now,
            c.current,
            match c.needed {
                Some(n) if n == c.current => "That is under the limit.".to_owned(),
                Some(n) => format!(
                    "`AggregateShards` = {n} keeps every shard under {PARTITION_WCU:.0} (the \
                     hottest then {:.0} WCU/s at {n}); **set it to {}** (padded \
                     about 15% for skew the plan cannot see). A reader of a product's sales or \
                     a day's stats then reads that many items, {:.1} RCU a read.",
                    c.hottest_wcu_at_needed,
                    c.padded.unwrap_or(n),
                    c.reader_rcu
                ),
                None => format!(
                    "No shard count up to {} keeps them under the limit.",
                    keys::Shard::MAX_COUNT
                ),
            }
        );
    }
    // Lambda.
    let l = crate::lambda::plan(w, heat, streams, durations, &memory);
    let (peak_concurrency, peak_hour) = sim::peak(&l.concurrency);
    let _ = writeln!(
        s,
        "## Lambda at the peak\n\nConcurrency = invocations a second × duration. Each duration says where it comes from: the workload's (`lambda.durations_ms`), else the median measured on DynamoDB Local ({}) plus {} ms for each DynamoDB request a call makes one after another (on AWS a request takes a few ms, on DynamoDB Local on the same machine well under one), else assumed. Lambda bills each invocation's duration rounded up to the millisecond. Memory sizes: `template.yaml`.\n\n| pattern | function | memory (MB) | peak rps | duration (ms) | billed (ms) | concurrency |\n|---|---|---|---|---|---|---|",
        durations.source,
        crate::lambda::ASSUMED_REQUEST_MS
    );
    for a in &l.api {
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {:.0} at {:02}:00 | {:.1} ({}) | {:.0} | {:.0} |",
            a.pattern,
            a.function,
            a.memory_mb,
            a.peak_rps,
            a.hour,
            a.duration.ms,
            a.duration.source,
            a.duration.billed_ms(),
            (a.peak_rps * a.duration.ms / 1000.0).ceil()
        );
    }
    for c in &l.consumers {
        let (inv, h) = sim::peak(&c.invocations);
        let _ = writeln!(
            s,
            "| stream | `{}` | {} | {inv:.0} batches at {h:02}:00 | {:.1} ({}) | {:.0} | {:.0} (one batch at a time per stream shard) |",
            c.name,
            c.memory_mb,
            c.duration.ms,
            c.duration.source,
            c.duration.billed_ms(),
            sim::peak(&c.concurrency).0.ceil()
        );
    }
    let _ = writeln!(
        s,
        "\nAll together, {:.0} at {peak_hour:02}:00 against the account's concurrency quota of {} in the Region{}. {}\n",
        peak_concurrency.ceil(),
        l.quota,
        if w.lambda.concurrency_quota.is_some() {
            " (the workload's)"
        } else {
            " (Lambda's default; give yours in `lambda.concurrency_quota`)"
        },
        {
            let mut notes = Vec::new();
            if peak_concurrency > f64::from(l.quota) {
                notes.push(format!(
                    "**Past the quota: ask AWS for at least {:.0} (Service Quotas, Lambda, concurrent executions) before the launch; past it, Lambda throttles invocations (429 to API clients).**",
                    (peak_concurrency * 1.2 / 100.0).ceil() * 100.0
                ));
            }
            if !l.consumers.is_empty() && l.stream_reserved < l.stream_shards {
                notes.push(format!(
                    "Each consumer runs a batch per stream shard at a time: set `StreamConcurrency` to at least {} (it reserves {} today).",
                    l.stream_shards, l.stream_reserved
                ));
            }
            notes.join(" ")
        }
    );
    // Streams.
    if !heat.records.is_empty() {
        let _ = writeln!(
            s,
            "## Stream consumers\n\n{} stream shards. Each consumer's batches as its event source mapping forms them (`BatchSize`, `MaximumBatchingWindowInSeconds`: `template.yaml`, or the workload's), one batch at a time per shard; the plan coalesces each handler's writes of one item per batch.\n\n| consumer | batch size | batching window | peak records/s | per shard | batch time | one shard's capacity (records/s) | keeps up |\n|---|---|---|---|---|---|---|---|",
            w.stream.shards
        );
        for (consumer, r) in &heat.records {
            let (peak, h) = sim::peak(r);
            let per_shard = peak / f64::from(w.stream.shards.max(1));
            let c = streams.get(consumer);
            let capacity = c.capacity();
            let _ = writeln!(
                s,
                "| `{consumer}` | {} | {} s | {peak:.0} at {h:02}:00 | {per_shard:.0} | {} ms: {} | {capacity:.0} | {} |",
                c.batch_size,
                c.window_s,
                c.batch.ms,
                c.batch.source,
                if per_shard <= capacity {
                    "yes".to_owned()
                } else {
                    format!(
                        "no: falls behind by {:.0} records/s a shard",
                        per_shard - capacity
                    )
                }
            );
        }
        s.push('\n');
    }
    // Cost.
    let c = Cost {
        lambda: l.monthly,
        ..cost(heat)
    };
    let _ = writeln!(
        s,
        "## Monthly cost\n\nus-east-1 public prices as stated on {}: on-demand ${} per million read request units and ${} per million write request units; provisioned ${} per RCU-hour and ${} per WCU-hour, each hour provisioned at {:.0}% utilisation; Lambda (arm64) ${} per GB-second and ${} per million requests. {} days a month. Storage, streams (free to Lambda triggers), API Gateway and data transfer are not included.\n\n| | per month |\n|---|---|\n| DynamoDB on-demand | ${:.0} |\n| DynamoDB provisioned | ${:.0} |\n| Lambda | ${:.0} |\n",
        rates::STATED,
        rates::READ_REQUEST,
        rates::WRITE_REQUEST,
        rates::RCU_HOUR,
        rates::WCU_HOUR,
        rates::TARGET_UTILISATION * 100.0,
        rates::LAMBDA_GB_SECOND,
        rates::LAMBDA_REQUEST,
        rates::DAYS_PER_MONTH,
        c.on_demand,
        c.provisioned,
        c.lambda
    );
    s
}

/// A rate with two significant figures (0.00031, 12, 4500).
pub fn significant(v: f64) -> String {
    if v == 0.0 {
        return "0".to_owned();
    }
    let digits = (1 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_measured_when_power_tuning_has_them_and_assumed_otherwise() {
        let root = std::env::temp_dir().join(format!("planner-durations-{}", std::process::id()));
        let none = Durations::load(&root);
        assert_eq!(none.ms("get-customer", ASSUMED_MS), (ASSUMED_MS, false));
        assert!(none.source.starts_with("assumed"), "{}", none.source);
        assert!(none.batch("commerce-stream").source.starts_with("assumed"));
        std::fs::create_dir_all(root.join("lab/bench/results")).unwrap();
        std::fs::write(
            root.join("lab/bench/results/power-tuning.json"),
            r#"{"measured": "2026-11-25", "functions": {
                "get-customer": {"memory_mb": 512, "p50_ms": 4.5, "p99_ms": 9.0, "cold_ms": 80.0},
                "commerce-stream": {"memory_mb": 256, "p50_ms": 35.0, "p99_ms": 60.0, "cold_ms": 90.0}}}"#,
        )
        .unwrap();
        let measured = Durations::load(&root);
        assert_eq!(measured.ms("get-customer", ASSUMED_MS), (4.5, true));
        assert_eq!(measured.memory("get-customer"), Some(512));
        assert_eq!(measured.ms("place-order", ASSUMED_MS), (ASSUMED_MS, false));
        assert_eq!(measured.batch("commerce-stream").ms, 35.0);
        assert!(
            measured.source.contains("2026-11-25"),
            "{}",
            measured.source
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
