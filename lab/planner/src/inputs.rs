//! What a plan takes besides the workload: prices as this project states them, and each
//! function's measured duration (`lab/bench/results/power-tuning.json`), by the function each
//! pattern runs on.

use std::{collections::BTreeMap, path::Path};

/// How long a stream consumer's batch takes, and where the figure comes from.
#[derive(Debug, Clone)]
pub struct BatchTime {
    pub ms: f64,
    pub source: String,
}

/// `template.yaml`, read once a run (`None` when it cannot be read: the plan then says which
/// defaults it assumed).
pub fn template() -> Option<&'static sam_template::Template> {
    static TEMPLATE: std::sync::OnceLock<Option<sam_template::Template>> =
        std::sync::OnceLock::new();
    TEMPLATE
        .get_or_init(|| sam_template::Template::workspace().ok())
        .as_ref()
}

/// A numeric parameter's default in `template.yaml`.
pub fn parameter_default(name: &str) -> Option<u32> {
    template()?
        .parameters
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.default.as_deref().and_then(|d| d.parse().ok()))
}

/// `IndexDesign`'s default in `template.yaml` (the code's default when the template cannot be
/// read).
pub fn index_design_default() -> keys::indexes::IndexDesign {
    use keys::indexes::IndexDesign;
    template()
        .and_then(|t| {
            t.parameters
                .iter()
                .find(|p| p.name == IndexDesign::PARAMETER)
        })
        .and_then(|p| p.default.as_deref())
        .and_then(|d| IndexDesign::parse(d).ok())
        .unwrap_or_default()
}

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
    /// HTTP API, per million requests: the first 300 million a month, and every one after.
    pub const HTTP_API_REQUEST: f64 = 1.00;
    pub const HTTP_API_REQUEST_AFTER: f64 = 0.90;
    pub const HTTP_API_FIRST_TIER: f64 = 300e6;
    /// Provisioned capacity is planned at this utilisation (auto scaling's usual target).
    pub const TARGET_UTILISATION: f64 = 0.7;
    pub const DAYS_PER_MONTH: f64 = 30.4;
}

/// Durations per function: measured (lab/bench/results/power-tuning.json) or assumed.
#[derive(Debug, Clone)]
pub struct Durations {
    pub measured: Option<String>,
    functions: BTreeMap<String, (Option<u32>, f64)>,
    /// Records in each stream consumer's sample batch (`events/<consumer>.json`): what its
    /// measured duration is the duration of.
    sample_records: BTreeMap<String, f64>,
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
        let sample_records = crate::fanout::CONSUMERS
            .iter()
            .filter_map(|name| {
                let text =
                    std::fs::read_to_string(root.join(format!("events/{name}.json"))).ok()?;
                let event: serde_json::Value = serde_json::from_str(&text).ok()?;
                let n = event["Records"].as_array()?.len();
                Some(((*name).to_owned(), n as f64))
            })
            .collect();
        let Some(v) = parsed else {
            return Durations {
                measured: None,
                functions: BTreeMap::new(),
                sample_records,
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
            sample_records,
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

    /// How long a full batch of `batch_size` records takes `consumer`: its sample batch's
    /// measured time per record, times `batch_size` (as if no two requests overlapped: the most a
    /// full batch takes); assumed without a measurement.
    pub fn full_batch(&self, consumer: &str, batch_size: u32) -> BatchTime {
        match (
            self.functions.get(consumer),
            self.sample_records.get(consumer),
        ) {
            (Some((_, ms)), Some(&n)) if n > 0.0 => BatchTime {
                ms: ms / n * f64::from(batch_size),
                source: format!(
                    "{:.2} ms a record: the measured p50 of {consumer}'s sample batch of {n} \
                     records ({ms} ms, {}), times {batch_size}",
                    ms / n,
                    self.source
                ),
            },
            _ => self.batch(consumer),
        }
    }

    /// The measured (or assumed) time of `consumer`'s sample batch.
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
