//! The on-failure destination's local stand-in: instead of an SQS message, one JSON line per
//! discarded batch in `<dir>/<DestinationLogicalId>.jsonl`, shaped like the record Lambda sends
//! for a stream source.
//! <https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html>

use std::{io::Write, path::PathBuf, sync::Mutex, time::SystemTime};

use serde_json::{Value, json};
use time::{OffsetDateTime, macros::format_description};

use super::queue::{Condition, Entry};
use crate::{account, sync::lock};

/// Where a mapping's discarded records go.
#[derive(Debug, Clone)]
pub struct Destination {
    /// The template's `DestinationConfig.OnFailure` resource, if any.
    pub logical_id: Option<String>,
    pub dir: PathBuf,
}

/// What the record says about where the records came from.
pub struct Source<'a> {
    pub function_arn: &'a str,
    pub shard_id: &'a str,
    pub stream_arn: &'a str,
}

/// Appends from several shards and mappings must not interleave within a line.
static WRITING: Mutex<()> = Mutex::new(());

impl Destination {
    /// Appends the record for `entries`; returns the file, or `None` when the mapping has no
    /// destination (Lambda then just drops the records).
    pub fn write(&self, record: &Value) -> Result<Option<PathBuf>, String> {
        let Some(id) = &self.logical_id else {
            return Ok(None);
        };
        let path = self.dir.join(format!("{id}.jsonl"));
        let _guard = lock(&WRITING);
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        file.write_all(format!("{record}\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(Some(path))
    }
}

/// Lambda's on-failure record for `entries` (consecutive records of one shard), given up on at
/// `now`.
pub fn record(source: &Source, condition: Condition, entries: &[Entry], now: SystemTime) -> Value {
    let first = entries.first();
    let last = entries.last();
    let invoked = entries.iter().map(|e| e.invocations).max().unwrap_or(0);
    let failure = entries.iter().rev().find_map(|e| e.last_failure.clone());
    json!({
        "requestContext": {
            "requestId": account::uuid(),
            "functionArn": source.function_arn,
            "condition": condition.as_str(),
            "approximateInvokeCount": invoked,
        },
        "responseContext": {
            // Records that expired before any invocation have no response to describe.
            "statusCode": failure.as_ref().map(|f| f.status_code),
            "executedVersion": "$LATEST",
            "functionError": failure.and_then(|f| f.function_error),
        },
        "version": "1.0",
        "timestamp": timestamp(now, true),
        "DDBStreamBatchInfo": {
            "shardId": source.shard_id,
            "startSequenceNumber": first.map(|e| e.record.sequence_number.as_str()),
            "endSequenceNumber": last.map(|e| e.record.sequence_number.as_str()),
            "approximateArrivalOfFirstRecord": first.map(|e| timestamp(e.record.created, false)),
            "approximateArrivalOfLastRecord": last.map(|e| timestamp(e.record.created, false)),
            "batchSize": entries.len(),
            "streamArn": source.stream_arn,
        }
    })
}

/// `2019-11-14T00:13:49.717Z`, or without the milliseconds as Lambda writes arrival times.
fn timestamp(t: SystemTime, millis: bool) -> String {
    let t = OffsetDateTime::from(t);
    let formatted = if millis {
        t.format(format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
        ))
    } else {
        t.format(format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
        ))
    };
    formatted.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::streams::{event::Record, queue::Failure};

    fn entry(seq: &str, invocations: u32) -> Entry {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_573_690_399);
        Entry {
            record: Record::new(json!({}), seq.into(), at, at),
            failures: invocations,
            invocations,
            last_failure: Some(Failure {
                status_code: 200,
                function_error: Some("Unhandled".into()),
            }),
        }
    }

    #[test]
    fn shaped_like_lambdas_record() {
        let source = Source {
            function_arn: "arn:aws:lambda:us-east-1:123456789012:function:f",
            shard_id: "shardId-1",
            stream_arn: "arn:stream",
        };
        let r = record(
            &source,
            Condition::RetryAttemptsExhausted,
            &[entry("100", 3), entry("200", 2)],
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_573_690_460),
        );
        assert!(
            r["requestContext"]["requestId"]
                .as_str()
                .is_some_and(|s| s.len() == 36)
        );
        assert_eq!(r["requestContext"]["condition"], "RetryAttemptsExhausted");
        assert_eq!(r["requestContext"]["approximateInvokeCount"], 3);
        assert_eq!(
            r["responseContext"],
            json!({"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"})
        );
        assert_eq!(r["version"], "1.0");
        assert_eq!(r["timestamp"], "2019-11-14T00:14:20.000Z");
        assert_eq!(
            r["DDBStreamBatchInfo"],
            json!({
                "shardId": "shardId-1",
                "startSequenceNumber": "100",
                "endSequenceNumber": "200",
                "approximateArrivalOfFirstRecord": "2019-11-14T00:13:19Z",
                "approximateArrivalOfLastRecord": "2019-11-14T00:13:19Z",
                "batchSize": 2,
                "streamArn": "arn:stream"
            })
        );
    }

    #[test]
    fn appends_one_line_per_record() {
        let dir = std::env::temp_dir().join(format!("local-destination-{}", std::process::id()));
        let destination = Destination {
            logical_id: Some("Dlq".into()),
            dir: dir.join("failures"),
        };
        let path = destination.write(&json!({"a": 1})).unwrap().unwrap();
        destination.write(&json!({"a": 2})).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"a\":2}\n"
        );
        let none = Destination {
            logical_id: None,
            dir: dir.clone(),
        };
        assert_eq!(none.write(&json!({})).unwrap(), None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
