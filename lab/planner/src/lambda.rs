//! Lambda at the peak: each function's duration and where it comes from, the concurrency the
//! API functions and the stream consumers need against the account's quota, and what they cost,
//! billed as Lambda bills (each invocation's duration rounded up to the millisecond).

use crate::{
    inputs::{self as report, Durations},
    profile,
    sim::{self, Heat, Streams},
    workload::Workload,
};

/// What one DynamoDB request adds to a call on AWS, in ms, where the measurement ran against
/// DynamoDB Local on the same machine (a round trip well under a millisecond): an assumption,
/// AWS's "single-digit milliseconds" for a request in the Region; a workload gives measured
/// durations in `lambda.durations_ms`.
pub const ASSUMED_REQUEST_MS: f64 = 4.0;
/// Lambda's default concurrency quota of an account in a Region.
pub const DEFAULT_CONCURRENCY_QUOTA: u32 = 1_000;
/// What Lambda keeps unreserved of the quota (reserved concurrency cannot take it).
pub const UNRESERVED_MINIMUM: u32 = 100;

/// A function's warm duration and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Duration {
    pub ms: f64,
    pub source: String,
}

impl Duration {
    /// What Lambda bills an invocation: its duration rounded up to the millisecond.
    pub fn billed_ms(&self) -> f64 {
        self.ms.ceil().max(1.0)
    }
}

/// Requests one after another in a call of `function`'s sample: parallel ones (the same
/// request to several shards) count once.
pub fn round_trips(function: &str) -> usize {
    round_trips_in(function, crate::inputs::index_design_default())
}

/// [`round_trips`] in `design`: get-user's page is one Query on GSI1 when it is overloaded, a
/// Query and then a BatchGetItem on a keys-only index of its own, a Query and a GetItem sent at
/// once on one that projects the reviews.
pub fn round_trips_in(function: &str, design: keys::indexes::IndexDesign) -> usize {
    profile::of_in(function, design).map_or(0, round_trips_of)
}

/// Requests one after another in the call `p` profiles (its [`profile::Profile::round_trips`]).
pub fn round_trips_of(p: &profile::Profile) -> usize {
    p.round_trips
}

/// `function`'s warm duration in the template's default design ([`duration_in`]).
pub fn duration(w: &Workload, durations: &Durations, function: &str) -> Duration {
    duration_in(
        w,
        durations,
        function,
        crate::inputs::index_design_default(),
    )
}

/// `function`'s warm duration in `design`: the workload's, else the measured median on
/// DynamoDB Local (measured in the default design) plus [`ASSUMED_REQUEST_MS`] for each request
/// the call makes one after another in `design`, else an assumption.
pub fn duration_in(
    w: &Workload,
    durations: &Durations,
    function: &str,
    design: keys::indexes::IndexDesign,
) -> Duration {
    duration_of(w, durations, function, profile::of_in(function, design))
}

/// `function`'s warm duration for the call `call` profiles (its pattern's example, or the shape
/// a workload names): the measured median plus [`ASSUMED_REQUEST_MS`] for each of its requests
/// one after another, as [`duration_in`].
pub fn duration_of(
    w: &Workload,
    durations: &Durations,
    function: &str,
    call: Option<&profile::Profile>,
) -> Duration {
    if let Some(ms) = w.lambda.durations_ms.get(function) {
        return Duration {
            ms: *ms,
            source: "the workload's".to_owned(),
        };
    }
    match durations.ms(function, report::ASSUMED_MS) {
        (ms, true) => {
            let n = call.map_or(0, round_trips_of);
            Duration {
                ms: ms + n as f64 * ASSUMED_REQUEST_MS,
                source: format!(
                    "median on DynamoDB Local {ms:.1} + {n} request{} × {ASSUMED_REQUEST_MS} ms",
                    if n == 1 { "" } else { "s" }
                ),
            }
        }
        (ms, false) => Duration {
            ms,
            source: "assumed".to_owned(),
        },
    }
}

/// One API pattern at its peak.
#[derive(Debug, Clone)]
pub struct Api {
    pub pattern: String,
    pub function: &'static str,
    pub memory_mb: u32,
    pub peak_rps: f64,
    pub hour: usize,
    pub duration: Duration,
}

/// One stream consumer at the peak: invocations (one batch each, one at a time per shard).
#[derive(Debug, Clone)]
pub struct Consumer {
    pub name: &'static str,
    pub memory_mb: u32,
    pub invocations: [f64; 24],
    pub duration: Duration,
    /// Batches in flight: per shard, one at most.
    pub concurrency: [f64; 24],
}

/// Lambda's side of the plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub api: Vec<Api>,
    pub consumers: Vec<Consumer>,
    /// Concurrency of everything each hour, and its peak.
    pub concurrency: [f64; 24],
    pub quota: u32,
    /// The template's `StreamConcurrency`: what each consumer has reserved.
    pub stream_reserved: u32,
    pub stream_shards: u32,
    pub monthly: f64,
}

pub fn plan(
    w: &Workload,
    heat: &Heat,
    streams: &Streams,
    durations: &Durations,
    memory: &dyn Fn(&str) -> u32,
) -> Plan {
    use report::rates::*;
    let mut concurrency = [0.0; 24];
    let mut monthly = 0.0;
    let seconds_per_hour = 3600.0 * DAYS_PER_MONTH;
    let mut api = Vec::new();
    for (pattern, rps) in &heat.rps {
        let function = crate::generic::function_of(pattern);
        // The call as the workload plans it: its pattern's example, or the shape it names.
        let design = heat.design.index_design;
        let shape = w
            .patterns
            .iter()
            .find(|p| &p.id == pattern)
            .and_then(|p| p.shape)
            .unwrap_or_default();
        let call = crate::generic::resolve_shaped(pattern, design, shape)
            .map(|r| r.profile)
            .or_else(|| profile::of_in(function, design));
        let d = duration_of(w, durations, function, call);
        let gb = f64::from(memory(function)) / 1024.0;
        for h in 0..24 {
            concurrency[h] += rps[h] * d.ms / 1000.0;
            monthly += rps[h]
                * seconds_per_hour
                * (d.billed_ms() / 1000.0 * gb * LAMBDA_GB_SECOND + LAMBDA_REQUEST / 1e6);
        }
        let (peak_rps, hour) = sim::peak(rps);
        api.push(Api {
            pattern: pattern.clone(),
            function,
            memory_mb: memory(function),
            peak_rps,
            hour,
            duration: d,
        });
    }
    let shards = f64::from(w.stream.shards.max(1));
    let mut consumers = Vec::new();
    for (name, records) in &heat.records {
        let c = streams.get(name);
        // A full batch's (the workload's, or measured: `sim::Streams::of`).
        let d = Duration {
            ms: c.batch.ms,
            source: c.batch.source.clone(),
        };
        let gb = f64::from(memory(name)) / 1024.0;
        let invocations: [f64; 24] =
            std::array::from_fn(|h| shards * c.batches(records[h] / shards));
        // A batch takes its records' share of a full batch's time: batches the window closes
        // before they fill take less.
        let per_record = d.ms / f64::from(c.batch_size.max(1));
        let batch_ms: [f64; 24] = std::array::from_fn(|h| {
            let n = invocations[h];
            if n > 0.0 {
                (records[h] / n * per_record).min(d.ms)
            } else {
                0.0
            }
        });
        let busy: [f64; 24] =
            std::array::from_fn(|h| (invocations[h] * batch_ms[h] / 1000.0).min(shards));
        for h in 0..24 {
            concurrency[h] += busy[h];
            let billed = batch_ms[h].ceil().max(1.0);
            monthly += invocations[h]
                * seconds_per_hour
                * (billed / 1000.0 * gb * LAMBDA_GB_SECOND + LAMBDA_REQUEST / 1e6);
        }
        consumers.push(Consumer {
            name,
            memory_mb: memory(name),
            invocations,
            duration: d,
            concurrency: busy,
        });
    }
    Plan {
        api,
        consumers,
        concurrency,
        quota: w
            .lambda
            .concurrency_quota
            .unwrap_or(DEFAULT_CONCURRENCY_QUOTA),
        stream_reserved: report::parameter_default("StreamConcurrency").unwrap_or(10),
        stream_shards: w.stream.shards,
        monthly,
    }
}
