//! DynamoDB Streams for the local stack: every function with a `DynamoDB` stream event gets an
//! event source mapping that reads the table's stream from DynamoDB Local and invokes it as
//! Lambda would, with its batching, filtering, partial batch responses, retries, bisection and
//! on-failure destination.
//!
//! - [`mapping`]: one per function's stream event, each with its own position in every shard;
//!   [`follow`] follows the shards' lineage ([`shard`]) and starts a worker for each.
//! - [`worker`]: one mapping's processing of one shard; the retry rules are in [`queue`], the
//!   reading of responses in [`response`], the event in [`event`], the on-failure record (a
//!   JSON line in `.local/failures/<Destination>.jsonl`) in [`destination`], the time record
//!   ages are measured by (the system's, or moved forward by a test) in [`clock`].
//! - [`filter`]: the mappings' `FilterCriteria`, which decide the records a function sees.
//! - [`status`]: the counters behind `GET /_local/streams`, and `drained`.
//!
//! Tumbling windows in part: an event of a windowed mapping names its shard and stream, its
//! window and the window's state, and an answer without a state fails; a window's final
//! invocation is not sent, and a batch may span two windows. Not emulated:
//! `ParallelizationFactor` (one batch in flight per shard) and Lambda's own throttling.

mod clock;
mod destination;
pub mod event;
pub mod filter;
mod follow;
mod mapping;
mod queue;
mod response;
pub mod shard;
mod status;
mod worker;

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use sam_template::Template;
use serde_json::{Map, Value};
use tokio::task::JoinHandle;

use crate::{
    account::{self, FAILURES_DIR},
    lambda::Stack,
    sync::lock,
};
pub use clock::Clock;
use filter::Filters;
use mapping::Mapping;
pub use mapping::Timing;
use queue::Limits;
use shard::Start;

/// How long [`StreamsHandle::status`] waits for fresh reads before answering `drained: false`.
const STATUS_WAIT: Duration = Duration::from_secs(3);

#[derive(Debug, Clone)]
pub struct StreamsConfig {
    /// The table `!GetAtt Table.StreamArn` means; another table's stream is its
    /// [`sam_template::local_table_name`].
    pub table_name: String,
    /// DynamoDB Local's URL (streams are served on the same endpoint).
    pub endpoint: String,
    /// Where `<DestinationLogicalId>.jsonl` files are written.
    pub failures_dir: PathBuf,
    pub timing: Timing,
    /// The system's time, unless a test moves it forward to age records.
    pub clock: Clock,
}

impl StreamsConfig {
    /// The defaults: [`devkit::endpoint`], [`FAILURES_DIR`], [`Timing::default`], the system's
    /// clock.
    pub fn new(table_name: &str) -> StreamsConfig {
        StreamsConfig {
            table_name: table_name.to_owned(),
            endpoint: devkit::endpoint(),
            failures_dir: FAILURES_DIR.into(),
            timing: Timing::default(),
            clock: Clock::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StreamsError(pub String);

/// A mapping as the start-up banner describes it.
#[derive(Debug, Clone)]
pub struct MappingInfo {
    pub name: String,
    pub function: String,
    pub starting_position: String,
    pub batch_size: u32,
    pub filters: usize,
    pub destination: Option<String>,
    /// The logical id of the table whose stream it reads.
    pub table: String,
}

/// The running mappings. Cloning shares them.
#[derive(Clone)]
pub struct StreamsHandle {
    inner: Arc<Inner>,
}

struct Inner {
    mappings: Vec<Arc<Mapping>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

/// A DynamoDB client for `endpoint` configured as [`devkit::client`] is.
pub fn dynamodb_client(endpoint: &str) -> aws_sdk_dynamodb::Client {
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(account::REGION))
        .credentials_provider(Credentials::new("local", "local", None, None, "dev"))
        .endpoint_url(endpoint)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// A DynamoDB Streams client for `endpoint`, with the same settings.
pub fn streams_client(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Credentials, Region};
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(account::REGION))
        .credentials_provider(Credentials::new("local", "local", None, None, "dev"))
        .endpoint_url(endpoint)
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

/// Starts a mapping for every `DynamoDB` stream event of `template`'s functions, reading the
/// stream of `config.table_name` (which must exist). Fails, before anything starts, on settings
/// Lambda would refuse (a bad filter pattern...), or when the table has no stream. Returns once
/// every mapping has its first shard positions: a `LATEST` mapping sees what is written after.
pub async fn start(
    template: &Template,
    stack: Arc<Stack>,
    config: StreamsConfig,
) -> Result<StreamsHandle, StreamsError> {
    let mut planned = Vec::new();
    for function in &template.functions {
        for settings in &function.streams {
            let name = if function.streams.len() == 1 {
                function.name().to_owned()
            } else {
                format!("{}/{}", function.name(), settings.event_name)
            };
            let checked = check(settings).map_err(|e| StreamsError(format!("{name}: {e}")))?;
            let spec = stack.function(function.name()).ok_or_else(|| {
                StreamsError(format!(
                    "{name}: the stack does not run {}",
                    function.name()
                ))
            })?;
            planned.push((
                name,
                function.name().to_owned(),
                spec.arn(),
                settings.clone(),
                checked,
            ));
        }
    }
    let handle = StreamsHandle {
        inner: Arc::new(Inner {
            mappings: Vec::new(),
            tasks: Mutex::new(Vec::new()),
        }),
    };
    if planned.is_empty() {
        return Ok(handle);
    }

    let client = streams_client(&config.endpoint);
    let mut mappings = Vec::new();
    let mut tasks = Vec::new();
    let mut streams: BTreeMap<String, String> = BTreeMap::new();
    for (name, function, function_arn, settings, (start, filters, limits)) in planned {
        let table = sam_template::local_table_name(&config.table_name, &settings.table);
        let stream_arn = match streams.get(&table) {
            Some(arn) => arn.clone(),
            None => {
                let arn = latest_stream_arn(&config.endpoint, &table).await?;
                streams.insert(table, arn.clone());
                arn
            }
        };
        let mapping = Arc::new(Mapping {
            destination: destination::Destination {
                logical_id: settings.on_failure_destination.clone(),
                dir: config.failures_dir.clone(),
            },
            name,
            function,
            function_arn,
            settings,
            start,
            filters,
            limits,
            stack: stack.clone(),
            client: client.clone(),
            stream_arn,
            timing: config.timing,
            clock: config.clock.clone(),
            state: Mutex::default(),
            wake: Default::default(),
        });
        let task = follow::start(mapping.clone()).await;
        match task {
            Ok(task) => tasks.push(task),
            Err(e) => {
                tasks.iter().for_each(JoinHandle::abort);
                return Err(StreamsError(format!("{}: {e}", mapping.name)));
            }
        }
        mappings.push(mapping);
    }
    Ok(StreamsHandle {
        inner: Arc::new(Inner {
            mappings,
            tasks: Mutex::new(tasks),
        }),
    })
}

type Checked = (Start, Filters, Limits);

/// The settings Lambda would accept, in the form the mapping uses.
fn check(s: &sam_template::StreamMapping) -> Result<Checked, String> {
    let start = match s.starting_position.as_str() {
        "TRIM_HORIZON" => Start::TrimHorizon,
        "LATEST" => Start::Latest,
        other => {
            return Err(format!(
                "StartingPosition {other}: DynamoDB streams take TRIM_HORIZON or LATEST"
            ));
        }
    };
    if !(1..=10_000).contains(&s.batch_size) {
        return Err(format!(
            "BatchSize {} is not within 1..=10000",
            s.batch_size
        ));
    }
    if s.maximum_batching_window_seconds > 300 {
        return Err(format!(
            "MaximumBatchingWindowInSeconds {} is over 300",
            s.maximum_batching_window_seconds
        ));
    }
    // -1 (unlimited) or a value within Lambda's range for the setting.
    let unlimited_or =
        |value: Option<i64>, what: &str, range: std::ops::RangeInclusive<i64>| match value {
            None | Some(-1) => Ok(None),
            Some(n) if range.contains(&n) => Ok(Some(n as u64)),
            Some(n) => Err(format!(
                "{what} {n}: -1 (unlimited) or {} to {}",
                range.start(),
                range.end()
            )),
        };
    let limits = Limits {
        max_retries: unlimited_or(s.maximum_retry_attempts, "MaximumRetryAttempts", 0..=10_000)?
            .map(|n| n as u32),
        max_age: unlimited_or(
            s.maximum_record_age_seconds,
            "MaximumRecordAgeInSeconds",
            60..=604_800,
        )?
        .map(Duration::from_secs),
    };
    Ok((start, Filters::parse(&s.filter_patterns)?, limits))
}

/// The ARN of `table`'s stream at `endpoint`.
pub async fn latest_stream_arn(endpoint: &str, table: &str) -> Result<String, StreamsError> {
    let described = dynamodb_client(endpoint)
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|e| {
            StreamsError(format!(
                "cannot describe table {table} at {endpoint}: {}",
                aws_sdk_dynamodb::error::DisplayErrorContext(e)
            ))
        })?;
    described
        .table()
        .and_then(|t| t.latest_stream_arn())
        .map(str::to_owned)
        .ok_or_else(|| {
            StreamsError(format!(
                "table {table} has no stream: the template's functions have stream events, so \
                 the table needs a StreamSpecification"
            ))
        })
}

impl StreamsHandle {
    /// The mappings, in template order.
    pub fn mappings(&self) -> Vec<MappingInfo> {
        self.inner
            .mappings
            .iter()
            .map(|m| MappingInfo {
                name: m.name.clone(),
                function: m.function.clone(),
                starting_position: m.settings.starting_position.clone(),
                batch_size: m.settings.batch_size,
                filters: m.settings.filter_patterns.len(),
                destination: m.settings.on_failure_destination.clone(),
                table: m.settings.table.clone(),
            })
            .collect()
    }

    /// `{"<mapping>": {counters...}, ..., "drained": bool}`. `drained` means every change
    /// written before this call has been dealt with (delivered, filtered out or given up on):
    /// this waits (up to a few seconds) for every shard to be read again, so a caller can write
    /// and then poll until `drained` is true.
    pub async fn status(&self) -> Value {
        let since = Instant::now();
        for m in &self.inner.mappings {
            m.wake.notify_one();
        }
        let deadline = since + STATUS_WAIT;
        loop {
            let busy = self.inner.mappings.iter().any(|m| m.update(|s| s.busy()));
            let drained = !busy
                && self
                    .inner
                    .mappings
                    .iter()
                    .all(|m| m.update(|s| s.drained_since(since)));
            if drained || busy || Instant::now() >= deadline {
                return self.snapshot(since);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn snapshot(&self, since: Instant) -> Value {
        let mut out = Map::new();
        let mut all = true;
        for m in &self.inner.mappings {
            let (drained, json) = m.update(|s| {
                let drained = s.drained_since(since);
                (drained, s.to_json(drained))
            });
            all &= drained;
            out.insert(m.name.clone(), json);
        }
        out.insert("drained".into(), all.into());
        Value::Object(out)
    }

    /// Polls [`StreamsHandle::status`] until `drained`; the last status either way.
    pub async fn wait_drained(&self, timeout: Duration) -> Result<Value, Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let status = self.status().await;
            if status["drained"] == Value::Bool(true) {
                return Ok(status);
            }
            if Instant::now() >= deadline {
                return Err(status);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Stops reading and invoking (an invocation in flight completes on its own).
    pub fn stop(&self) {
        for task in lock(&self.inner.tasks).drain(..) {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(
        patch: impl FnOnce(&mut sam_template::StreamMapping),
    ) -> sam_template::StreamMapping {
        let mut m = sam_template::StreamMapping {
            event_name: "Stream".into(),
            batch_size: 100,
            maximum_batching_window_seconds: 1,
            starting_position: "TRIM_HORIZON".into(),
            maximum_retry_attempts: Some(5),
            maximum_record_age_seconds: Some(-1),
            bisect_batch_on_function_error: true,
            report_batch_item_failures: true,
            filter_patterns: vec![],
            tumbling_window_seconds: None,
            parallelization_factor: 1,
            on_failure_destination: None,
            table: "Table".into(),
        };
        patch(&mut m);
        m
    }

    #[test]
    fn settings_lambda_would_refuse_are_refused() {
        let (start, _, limits) = check(&mapping(|_| {})).unwrap();
        assert_eq!(start, Start::TrimHorizon);
        assert_eq!(limits.max_retries, Some(5));
        assert_eq!(limits.max_age, None);
        let (start, _, limits) = check(&mapping(|m| {
            m.starting_position = "LATEST".into();
            m.maximum_retry_attempts = None;
            m.maximum_record_age_seconds = Some(60);
        }))
        .unwrap();
        assert_eq!(start, Start::Latest);
        assert_eq!(limits.max_retries, None);
        assert_eq!(limits.max_age, Some(Duration::from_secs(60)));

        assert!(check(&mapping(|m| m.starting_position = "AT_TIMESTAMP".into())).is_err());
        assert!(check(&mapping(|m| m.batch_size = 0)).is_err());
        assert!(check(&mapping(|m| m.batch_size = 10_001)).is_err());
        assert!(check(&mapping(|m| m.maximum_batching_window_seconds = 301)).is_err());
        assert!(check(&mapping(|m| m.maximum_retry_attempts = Some(-2))).is_err());
        // Lambda's ranges: -1, or 0 to 10,000 retries; -1, or 60 s to 7 days of record age.
        assert!(check(&mapping(|m| m.maximum_retry_attempts = Some(10_001))).is_err());
        assert!(check(&mapping(|m| m.maximum_record_age_seconds = Some(59))).is_err());
        assert!(check(&mapping(|m| m.maximum_record_age_seconds = Some(604_801))).is_err());
        assert!(check(&mapping(|m| m.maximum_record_age_seconds = Some(604_800))).is_ok());
        assert!(check(&mapping(|m| m.filter_patterns = vec!["{\"a\": 1}".into()])).is_err());
    }

    #[test]
    fn the_workspace_templates_mappings_are_valid() {
        let template = Template::workspace().unwrap();
        for function in &template.functions {
            for settings in &function.streams {
                if let Err(e) = check(settings) {
                    panic!("{}: {e}", function.name());
                }
            }
        }
    }
}
