//! The failure destination, written by the handler: where a poison record goes so that retrying
//! without bound never blocks a shard. `FAILURE_QUEUE_URL` is the stack's SQS queue
//! (`StreamFailureQueue`); locally, a `file://` path the local stack gives, where each record is
//! one JSON line (beside the lines the local event source mapping writes for its own on-failure
//! records).

use std::{io::Write, path::PathBuf};

use serde_json::json;
use store::StoreError;

use crate::{BatchResponse, Event, ItemFailure};

pub enum DeadLetters {
    Sqs {
        client: aws_sdk_sqs::Client,
        queue_url: String,
    },
    File(PathBuf),
}

impl DeadLetters {
    /// Reads `FAILURE_QUEUE_URL` once, at start-up.
    pub async fn from_env() -> Result<DeadLetters, StoreError> {
        let url = std::env::var("FAILURE_QUEUE_URL")
            .map_err(|_| StoreError::Config("FAILURE_QUEUE_URL is not set".into()))?;
        DeadLetters::at(&url).await
    }

    pub async fn at(url: &str) -> Result<DeadLetters, StoreError> {
        if let Some(path) = url.strip_prefix("file://") {
            return Ok(DeadLetters::File(PathBuf::from(path)));
        }
        if !url.starts_with("https://") && !url.starts_with("http://") {
            return Err(StoreError::Config(format!(
                "FAILURE_QUEUE_URL is neither a queue URL nor file://: {url:?}"
            )));
        }
        let config = store::sdk::config().await?;
        Ok(DeadLetters::Sqs {
            client: aws_sdk_sqs::Client::new(&config),
            queue_url: url.to_owned(),
        })
    }

    async fn send(&self, message: String) -> Result<(), String> {
        match self {
            DeadLetters::Sqs { client, queue_url } => client
                .send_message()
                .queue_url(queue_url)
                .message_body(message)
                .send()
                .await
                .map(|_| ())
                .map_err(|e| aws_sdk_sqs::error::DisplayErrorContext(e).to_string()),
            DeadLetters::File(path) => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
                }
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| e.to_string())?;
                writeln!(file, "{message}").map_err(|e| e.to_string())
            }
        }
    }

    /// Sends the response's poison records and answers Lambda: poison records that were sent are
    /// done; one that could not be sent is reported failed (retried, like a failed write).
    pub async fn settle(&self, event: &Event, mut response: BatchResponse) -> BatchResponse {
        let function = std::env::var("AWS_LAMBDA_FUNCTION_NAME").unwrap_or_default();
        let mut unsent = Vec::new();
        for poison in std::mem::take(&mut response.poison) {
            let record = event.records.get(poison.index);
            tracing::error!(index = poison.index, reason = %poison.reason, "poison record");
            let message = json!({
                "function": function,
                "reason": poison.reason,
                "record": record,
            })
            .to_string();
            if let Err(e) = self.send(message).await {
                tracing::error!(error = %e, "cannot send a poison record; it is retried");
                unsent.push(poison.index);
            }
        }
        if unsent.is_empty() {
            return response;
        }
        let mut failed: Vec<usize> = event
            .records
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                unsent.contains(i)
                    || r.change.sequence_number.as_ref().is_some_and(|seq| {
                        response.batch_item_failures.contains(&ItemFailure {
                            item_identifier: seq.clone(),
                        })
                    })
            })
            .map(|(i, _)| i)
            .collect();
        failed.sort_unstable();
        BatchResponse::failures(event, &failed)
    }
}
