//! The failure destination, written by the handler: where a poison record goes so that retrying
//! without bound never blocks a shard. `FAILURE_QUEUE_URL` is the stack's SQS queue
//! (`StreamFailureQueue`); locally, a `file://` path the local stack gives, where each record is
//! one JSON line (beside the lines the local event source mapping writes for its own on-failure
//! records). A message is always one the queue accepts (`message`), so no record is retried
//! for want of a message that fits.

use std::{io::Write, path::PathBuf};

use serde_json::json;
use store::StoreError;

use crate::{BatchResponse, Event, EventRecord, ItemFailure};

/// The largest message the failure queue takes: its `MaximumMessageSize` in `template.yaml`
/// (a test holds the two together).
pub const MAX_MESSAGE_BYTES: usize = 262_144;

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
        // Each message goes with its invocation's trace header, which SQS keeps for X-Ray; each
        // attempt is bounded as the table's are, and each send by the batch's deadline.
        let traced = aws_sdk_sqs::config::Builder::from(&config)
            .interceptor(store::sdk::PropagateTrace)
            .timeout_config(store::deadline::attempt_timeouts())
            .build();
        Ok(DeadLetters::Sqs {
            client: aws_sdk_sqs::Client::from_conf(traced),
            queue_url: url.to_owned(),
        })
    }

    async fn send(&self, message: String) -> Result<(), String> {
        match self {
            DeadLetters::Sqs { client, queue_url } => store::deadline::bounded(
                client
                    .send_message()
                    .queue_url(queue_url)
                    .message_body(message)
                    .send(),
            )
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
            let message = message(&function, &poison.reason, record);
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

/// Reasons are short; one that is not is cut to this, in a message too large for the queue.
const MAX_REASON_CHARS: usize = 4096;

/// The failure queue's message for a poison record: the function, why, and the record. One the
/// queue would refuse, however often it is sent, must not be: a record whose images make it too
/// large goes without them (its keys and sequence number still name the item, and reconcile
/// recomputes what it fed), with their size in `imagesOmitted`; and the two characters JSON does
/// not escape but SQS refuses (U+FFFE, U+FFFF) are escaped.
fn message(function: &str, reason: &str, record: Option<&EventRecord>) -> String {
    let whole = json!({ "function": function, "reason": reason, "record": record }).to_string();
    let message = if whole.len() <= MAX_MESSAGE_BYTES {
        whole
    } else {
        let mut slim = serde_json::to_value(record).unwrap_or_default();
        if let Some(dynamodb) = slim.get_mut("dynamodb").and_then(|d| d.as_object_mut()) {
            dynamodb.remove("NewImage");
            dynamodb.remove("OldImage");
        }
        let reason: String = reason.chars().take(MAX_REASON_CHARS).collect();
        json!({
            "function": function,
            "reason": reason,
            "record": slim,
            "imagesOmitted": whole.len(),
        })
        .to_string()
    };
    // Only inside JSON strings (the rest of the text is ASCII), where the escape reads the same.
    message
        .replace('\u{FFFE}', "\\ufffe")
        .replace('\u{FFFF}', "\\uffff")
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::Poison;

    /// A batch of one INSERT whose new image holds `text` in one attribute.
    fn batch(text: &str) -> Event {
        serde_json::from_value(json!({"Records": [{
            "eventID": "e1",
            "eventName": "INSERT",
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/x",
            "dynamodb": {
                "ApproximateCreationDateTime": 1_795_860_000,
                "Keys": {"PK": {"S": "C#ann"}, "SK": {"S": "A"}},
                "NewImage": {"PK": {"S": "C#ann"}, "SK": {"S": "A"}, "Note": {"S": text}},
                "SequenceNumber": "000000000000000000042",
                "SizeBytes": text.len() + 20,
                "StreamViewType": "NEW_AND_OLD_IMAGES"
            }
        }]}))
        .unwrap()
    }

    /// The messages `settle` sends for the batch's one record, declared poison.
    async fn sent(event: &Event) -> Vec<String> {
        let file = std::env::temp_dir().join(format!(
            "dead-letters-{}-{}.jsonl",
            std::process::id(),
            keys::now_ms()
        ));
        let sink = DeadLetters::File(file.clone());
        let response = BatchResponse::default().with_poison(vec![Poison {
            index: 0,
            reason: "does not decode".into(),
        }]);
        let answer = sink.settle(event, response).await;
        assert!(answer.batch_item_failures.is_empty(), "{answer:?}");
        let text = std::fs::read_to_string(&file).unwrap();
        let _ = std::fs::remove_file(&file);
        text.lines().map(str::to_owned).collect()
    }

    /// What SQS accepts in a message body: its size, and its characters (#x9 | #xA | #xD |
    /// #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF).
    fn sqs_accepts(message: &str) -> bool {
        message.len() <= MAX_MESSAGE_BYTES
            && message.chars().all(|c| {
                matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
                    || c >= '\u{10000}'
            })
    }

    #[tokio::test]
    async fn a_record_too_large_for_the_queue_goes_without_its_images() {
        // A 300 KB item: with its image the message would be refused by the queue, and the
        // record retried without end.
        let sent = sent(&batch(&"x".repeat(300 * 1024))).await;
        assert_eq!(sent.len(), 1);
        assert!(sqs_accepts(&sent[0]), "{} bytes", sent[0].len());
        let message: Value = serde_json::from_str(&sent[0]).unwrap();
        let dynamodb = &message["record"]["dynamodb"];
        assert_eq!(dynamodb["SequenceNumber"], "000000000000000000042");
        assert_eq!(dynamodb["Keys"]["PK"]["S"], "C#ann");
        assert!(dynamodb.get("NewImage").is_none(), "{dynamodb}");
        assert!(
            message["imagesOmitted"]
                .as_u64()
                .is_some_and(|n| n > 300 * 1024)
        );
        assert_eq!(message["reason"], "does not decode");

        // A small one goes whole.
        let sent = self::sent(&batch("short")).await;
        let message: Value = serde_json::from_str(&sent[0]).unwrap();
        assert_eq!(
            message["record"]["dynamodb"]["NewImage"]["Note"]["S"],
            "short"
        );
    }

    #[test]
    fn the_limit_is_the_queues() {
        let template =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml"))
                .unwrap();
        let sizes: Vec<usize> = template
            .lines()
            .filter_map(|l| l.trim().strip_prefix("MaximumMessageSize:"))
            .map(|n| n.trim().parse().unwrap())
            .collect();
        assert_eq!(
            sizes,
            [MAX_MESSAGE_BYTES],
            "StreamFailureQueue's MaximumMessageSize"
        );
    }

    #[tokio::test]
    async fn characters_the_queue_refuses_are_escaped() {
        let text = "not a character: \u{FFFE}\u{FFFF}";
        let sent = sent(&batch(text)).await;
        assert!(sqs_accepts(&sent[0]), "{:?}", sent[0]);
        let message: Value = serde_json::from_str(&sent[0]).unwrap();
        assert_eq!(message["record"]["dynamodb"]["NewImage"]["Note"]["S"], text);
    }
}
