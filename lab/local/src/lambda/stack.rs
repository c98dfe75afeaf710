//! The template's functions, each with its pool of instances, and `invoke`: the one way in for
//! the HTTP gateway and for any other event source (e.g. a stream poller).

use std::{collections::BTreeMap, path::PathBuf, sync::Arc, time::Duration};

use bytes::Bytes;
use sam_template::Template;
use serde_json::Value;

use super::{
    environment,
    instances::{FunctionSpec, InvokeError, Pool},
    runtime_api::MAX_EVENT_BYTES,
};

/// Lambda's default, used because `template` does not read `MemorySize` (only reported to the
/// function, nothing enforces it locally).
const MEMORY_MB: u32 = 128;

/// How to run the template's functions locally.
#[derive(Debug, Clone)]
pub struct StackConfig {
    /// Where the function binaries are (`target/debug`).
    pub bin_dir: PathBuf,
    /// The table `!Ref Table` resolves to.
    pub table_name: String,
    /// Template parameter values (`--param Name=Value`).
    pub params: BTreeMap<String, String>,
    /// The most processes one function may run at once.
    pub max_instances: usize,
    /// Where each function's output is also kept (`<function>.log`); only stderr when `None`.
    pub log_dir: Option<PathBuf>,
    /// Where a stream handler's on-failure queue is (`<Destination>.jsonl`, `FAILURE_QUEUE_URL`).
    pub failures_dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StackError(pub String);

/// The processes of every function in the template.
pub struct Stack {
    pools: BTreeMap<String, Arc<Pool>>,
}

impl Stack {
    /// What it takes to run each function of `template`: binary, resolved environment, timeout.
    /// Fails if a function needs a parameter that has no value.
    pub fn function_specs(
        template: &Template,
        config: &StackConfig,
    ) -> Result<Vec<FunctionSpec>, StackError> {
        let parameters =
            environment::parameter_values(template, &config.params).map_err(StackError)?;
        template
            .functions
            .iter()
            .map(|f| {
                let mut environment = environment::resolve(
                    f,
                    template,
                    &config.table_name,
                    &parameters,
                    &config.failures_dir,
                )
                .map_err(StackError)?;
                // What Lambda sets from the function's LoggingConfig.
                let logging = [
                    ("AWS_LAMBDA_LOG_FORMAT", &f.log_format),
                    ("AWS_LAMBDA_LOG_LEVEL", &f.log_level),
                ];
                for (name, value) in logging {
                    if let Some(value) = value {
                        environment.push((name.to_owned(), value.clone()));
                    }
                }
                Ok(FunctionSpec {
                    name: f.name().to_owned(),
                    binary: config.bin_dir.join(f.name()),
                    environment,
                    log_file: config
                        .log_dir
                        .as_ref()
                        .map(|d| d.join(format!("{}.log", f.name()))),
                    timeout: Duration::from_secs(f.timeout_seconds),
                    memory_mb: MEMORY_MB,
                })
            })
            .collect()
    }

    /// Starts one instance of every function (in the background: this does not wait for them
    /// to initialise). A function whose binary cannot start is reported on stderr; its
    /// invocations fail until the binary exists. Must be called within a Tokio runtime.
    pub fn start(specs: Vec<FunctionSpec>, max_instances: usize) -> Stack {
        let pools: BTreeMap<_, _> = specs
            .into_iter()
            .map(|spec| (spec.name.clone(), Pool::new(spec, max_instances)))
            .collect();
        for (name, pool) in &pools {
            if let Err(e) = pool.warm() {
                eprintln!("warning: {name} not started: {e}");
            }
        }
        Stack { pools }
    }

    /// The names of the functions, sorted.
    pub fn functions(&self) -> impl Iterator<Item = &str> {
        self.pools.keys().map(String::as_str)
    }

    pub fn function(&self, name: &str) -> Option<&FunctionSpec> {
        self.pools.get(name).map(|p| p.spec())
    }

    /// Invokes `function` synchronously (RequestResponse) with `event`, and returns the JSON it
    /// returned. Waits for a free instance if all `max_instances` are busy.
    pub async fn invoke(&self, function: &str, event: &Value) -> Result<Value, InvokeError> {
        let pool = self
            .pools
            .get(function)
            .ok_or_else(|| InvokeError::UnknownFunction(function.to_owned()))?
            .clone();
        let event = Bytes::from(event.to_string());
        if event.len() > MAX_EVENT_BYTES {
            return Err(InvokeError::EventTooLarge(event.len()));
        }
        // A task of its own: if the caller goes away (client disconnects), the invocation still
        // completes and hands its instance back to the pool.
        let response = tokio::spawn(async move { pool.invoke(event).await })
            .await
            .map_err(|e| InvokeError::Died(format!("invocation task failed: {e}")))??;
        serde_json::from_slice(&response).map_err(|e| InvokeError::BadResponse(e.to_string()))
    }

    /// Kills every function process.
    pub async fn shutdown(&self) {
        for pool in self.pools.values() {
            pool.shutdown().await;
        }
    }
}
