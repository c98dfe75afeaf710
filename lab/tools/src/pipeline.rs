//! The template's stream handlers deriving what a load writes, as on AWS: the local stack's
//! function processes and stream mappings (`local_stack`, without its HTTP API) on the tables of
//! one deployment. `make compare` loads with them running, then reads what each mapping was
//! handed and what each consumer's requests cost, from the consumers' own metrics documents (as
//! CloudWatch would get them).

use std::{collections::BTreeMap, path::PathBuf, sync::Arc, time::Duration};

use local_stack::{
    Stack, StackConfig,
    streams::{self, StreamsConfig, StreamsHandle},
};
use sam_template::Template;
use serde_json::Value;
use store::StoreError;

/// The stream handlers of one deployment, running.
pub struct Pipeline {
    stack: Arc<Stack>,
    streams: StreamsHandle,
    /// Each function's output (`<function>.log`) and the on-failure queues.
    dir: PathBuf,
    /// The mappings' functions.
    consumers: Vec<String>,
}

/// What one stream mapping did, as the local stack counts it (`GET /_local/streams`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mapping {
    pub function: String,
    /// The logical id of the table whose stream it reads.
    pub table: String,
    pub batch_size: u32,
    /// Records its filter let through, handed to the function.
    pub delivered: f64,
    /// Records its filter dropped: read from the stream, never invoked for.
    pub filtered_out: f64,
    pub invocations: f64,
    pub retries: f64,
}

/// What a consumer's requests cost, summed over its metrics documents.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub requests: f64,
    pub read_units: f64,
    pub write_units: f64,
}

/// What the pipeline did with a load, once drained.
#[derive(Debug, Clone, Default)]
pub struct Streamed {
    /// By mapping name (the consumer's function name).
    pub mappings: BTreeMap<String, Mapping>,
    /// By consumer.
    pub spent: BTreeMap<String, Spent>,
}

fn config(e: impl std::fmt::Display) -> StoreError {
    StoreError::Config(e.to_string())
}

impl Pipeline {
    /// Starts every function of `template` (deployed with `parameters`) on the tables named after
    /// `base`, which must exist, and a mapping for each stream event source. What is written
    /// after this returns is delivered.
    pub async fn start(
        template: &Template,
        base: &str,
        parameters: &[(&str, &str)],
    ) -> Result<Pipeline, StoreError> {
        let dir = std::env::temp_dir().join(format!("pipeline-{base}"));
        std::fs::create_dir_all(&dir).map_err(config)?;
        let settings = StackConfig {
            bin_dir: devkit::debug_dir(),
            table_name: base.to_owned(),
            // Every function's environment is resolved, the API's too, which needs a cursor key.
            params: parameters
                .iter()
                .chain(&[("CursorSigningKey", testkit::TEST_CURSOR_KEY)])
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            max_instances: 8,
            log_dir: Some(dir.clone()),
            failures_dir: dir.clone(),
        };
        // The stream handlers only: nothing here calls the API's functions.
        let specs: Vec<_> = Stack::function_specs(template, &settings)
            .map_err(config)?
            .into_iter()
            .filter(|spec| {
                template
                    .functions
                    .iter()
                    .any(|f| f.name() == spec.name && !f.streams.is_empty())
            })
            .collect();
        for spec in &specs {
            if !spec.binary.is_file() {
                return Err(config(format!(
                    "{} is missing: build the binaries first (cargo build --bins)",
                    spec.binary.display()
                )));
            }
        }
        let stack = Arc::new(Stack::start(specs, settings.max_instances));
        let streams = match streams::start(
            template,
            stack.clone(),
            StreamsConfig {
                failures_dir: dir.clone(),
                ..StreamsConfig::new(base)
            },
        )
        .await
        {
            Ok(s) => s,
            Err(e) => {
                stack.shutdown().await;
                return Err(config(e));
            }
        };
        let consumers = streams.mappings().into_iter().map(|m| m.function).collect();
        Ok(Pipeline {
            stack,
            streams,
            dir,
            consumers,
        })
    }

    /// Waits until every record written so far has been dealt with (at most `timeout`), stops
    /// the functions and reports. A record a handler gave up on (sent to its on-failure
    /// destination) is an error: the derived values would be wrong.
    pub async fn drain(self, timeout: Duration) -> Result<Streamed, StoreError> {
        let drained = self.streams.wait_drained(timeout).await;
        let mappings = self.streams.mappings();
        self.streams.stop();
        self.stack.shutdown().await;
        let status = drained.map_err(|status| {
            config(format!(
                "the streams did not drain in {timeout:?}: {status}"
            ))
        })?;
        let mut out = Streamed::default();
        for m in mappings {
            let s = &status[&m.name];
            let n = |k: &str| s[k].as_f64().unwrap_or(0.0);
            if n("failedToDestination") > 0.0 {
                return Err(config(format!(
                    "{}: {} records given up on: {}",
                    m.name,
                    n("failedToDestination"),
                    s["lastError"]
                )));
            }
            out.mappings.insert(
                m.name.clone(),
                Mapping {
                    function: m.function.clone(),
                    table: m.table.clone(),
                    batch_size: m.batch_size,
                    delivered: n("delivered"),
                    filtered_out: n("filteredOut"),
                    invocations: n("invocations"),
                    retries: n("retries"),
                },
            );
        }
        for consumer in &self.consumers {
            let log = std::fs::read_to_string(self.dir.join(format!("{consumer}.log")))
                .unwrap_or_default();
            let spent = out.spent.entry(consumer.clone()).or_default();
            for doc in log
                .lines()
                .filter(|l| l.starts_with("{\"_aws\""))
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            {
                let n = |k: &str| doc[k].as_f64().unwrap_or(0.0);
                spent.requests += n("DynamoDBRequests");
                spent.read_units += n("ReadCapacityUnits");
                spent.write_units += n("WriteCapacityUnits");
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        Ok(out)
    }
}
