//! What a function tells its operators, set up once at start-up by [`init`]:
//!
//! - **Logs**: the runtime's subscriber, which writes JSON lines carrying the request id when the
//!   function's log format is JSON (`LoggingConfig.LogFormat`, seen as `AWS_LAMBDA_LOG_FORMAT`)
//!   and filters at `AWS_LAMBDA_LOG_LEVEL`. Nothing logs at INFO per request: a request's numbers
//!   are in its metrics document, which costs one line instead of many.
//! - **Metrics**: CloudWatch's Embedded Metric Format. Code adds to the current invocation's
//!   [`Metric`]s; when the invocation ends, [`Documents::write`] prints them as ONE JSON document on
//!   stdout, under one dimension set: `FunctionName` (Lambda's own metrics use the same) and
//!   `Pattern`, the access pattern the invocation served (its catalogue ID, `C1` or `L3`, which a
//!   handler serving several names with [`count_as_pattern`]). The request id is a property, so a
//!   metric links back to the invocation's log lines. An invocation DynamoDB throttled adds one
//!   document per throttling reason and table or index ([`count_throttling_reason`]), with those
//!   two as dimensions too. CloudWatch turns the documents into metrics with no API call and no
//!   extra permission.
//! - **Traces**: X-Ray subsegments of the AWS calls of a sampled invocation, and the
//!   invocation's trace header on every AWS call ([`xray`]).
//! - **The invocation loop** every function runs, which never writes the trace header into the
//!   environment (that leaked memory: [`runtime`]).
//! - **A failed start-up**: logged and reported to Lambda, so the invocation fails with its cause
//!   ([`startup`]).
//!
//! The metrics are a fixed set of sums, so the document is written here, without a metrics
//! registry: recording is an addition under an uncontended lock, and a value per invocation
//! (not per request) keeps a document small however many requests a stream batch makes.

pub mod runtime;
pub mod startup;
pub mod xray;

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::Mutex;

/// The namespace when `METRICS_NAMESPACE` is not set.
pub const DEFAULT_NAMESPACE: &str = "SingleTable";

/// The metrics every function may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// 1 in the first invocation of a process.
    ColdStart,
    /// Requests sent to DynamoDB (retries of unprocessed keys included).
    DynamoDbRequests,
    /// Read capacity units the invocation's requests consumed, on the table and its indexes.
    ReadCapacityUnits,
    /// Write capacity units the invocation's requests consumed (index writes and transactions
    /// included).
    WriteCapacityUnits,
    /// Items the invocation's reads returned.
    ItemsRead,
    /// Items its writes wrote (a transaction's parts, a batch's items).
    ItemsWritten,
    /// Requests DynamoDB throttled after the SDK's retries: the caller saw a 503 (or the stream
    /// batch is retried). Why, and where: [`count_throttling_reason`].
    Throttles,
    /// Stream records a stream handler was given.
    StreamRecords,
    /// Records reported as batch item failures (retried by Lambda).
    BatchItemFailures,
    /// Records whose change the targets' marks show applied already (a retried batch): skipped.
    RecordsAlreadyApplied,
    /// Records that can never apply, sent to the failure queue.
    PoisonRecords,
    /// Age of the batch's oldest record when the handler saw it: how far behind the table the
    /// derived items are.
    StreamIteratorAge,
    /// The handler's time per record of the batch: what a shard's consumer spends on each.
    StreamRecordTime,
    /// Records a second the handler got through in the batch: what one shard drains while the
    /// stream keeps its consumer busy (docs/streams.md, how fast a shard drains).
    StreamRecordRate,
}

impl Metric {
    pub const ALL: [Metric; 14] = [
        Metric::ColdStart,
        Metric::DynamoDbRequests,
        Metric::ReadCapacityUnits,
        Metric::WriteCapacityUnits,
        Metric::ItemsRead,
        Metric::ItemsWritten,
        Metric::Throttles,
        Metric::StreamRecords,
        Metric::BatchItemFailures,
        Metric::RecordsAlreadyApplied,
        Metric::PoisonRecords,
        Metric::StreamIteratorAge,
        Metric::StreamRecordTime,
        Metric::StreamRecordRate,
    ];

    /// Its name in CloudWatch.
    pub fn name(self) -> &'static str {
        match self {
            Metric::ColdStart => "ColdStart",
            Metric::DynamoDbRequests => "DynamoDBRequests",
            Metric::ReadCapacityUnits => "ReadCapacityUnits",
            Metric::WriteCapacityUnits => "WriteCapacityUnits",
            Metric::ItemsRead => "ItemsRead",
            Metric::ItemsWritten => "ItemsWritten",
            Metric::Throttles => "DynamoDBThrottles",
            Metric::StreamRecords => "StreamRecords",
            Metric::BatchItemFailures => "BatchItemFailures",
            Metric::RecordsAlreadyApplied => "RecordsAlreadyApplied",
            Metric::PoisonRecords => "PoisonRecords",
            Metric::StreamIteratorAge => "StreamIteratorAge",
            Metric::StreamRecordTime => "StreamRecordTime",
            Metric::StreamRecordRate => "StreamRecordRate",
        }
    }

    /// Its CloudWatch unit.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::StreamIteratorAge | Metric::StreamRecordTime => "Milliseconds",
            Metric::StreamRecordRate => "Count/Second",
            _ => "Count",
        }
    }

    /// Whether it is written once recorded, even as 0: the units of requests DynamoDB reported
    /// as free, an age of 0 ms. A count of nothing is left out of the document instead.
    fn kept_at_zero(self) -> bool {
        matches!(
            self,
            Metric::ReadCapacityUnits | Metric::WriteCapacityUnits | Metric::StreamIteratorAge
        )
    }

    /// Adds `value` to the current invocation's.
    pub fn add(self, value: f64) {
        let mut current = lock();
        let slot = &mut current.values[self as usize];
        *slot = Some(slot.unwrap_or(0.0) + value);
    }

    /// Raises the current invocation's value to `value` if it is lower (an age: the oldest).
    pub fn at_least(self, value: f64) {
        let mut current = lock();
        let slot = &mut current.values[self as usize];
        *slot = Some(slot.map_or(value, |v| v.max(value)));
    }
}

/// Names the access pattern the current invocation serves, for a function that serves several
/// (`L2`-`L6` by their query parameters); the others are counted under the pattern given to
/// [`init`].
pub fn count_as_pattern(pattern: &'static str) {
    lock().pattern = Some(pattern);
}

/// Counts one of the reasons DynamoDB gave for throttling a request (`ThrottlingReasons`:
/// `TableReadKeyRangeThroughputExceeded`, `IndexWriteAccountLimitExceeded`...) and the ARN of the
/// table or index it throttled. Each reason and resource gets a document of its own when the
/// invocation ends ([`THROTTLING_REASONS`]), so an operator sees which side of which index
/// throttles, and why.
pub fn count_throttling_reason(reason: &str, resource: &str) {
    lock().count_throttling_reason(reason, resource);
}

/// The metric of [`count_throttling_reason`], under the dimensions `FunctionName`, `Pattern`,
/// `Reason` and `Resource` (the ARN's `<table>` or `<table>/index/<index>`).
pub const THROTTLING_REASONS: &str = "DynamoDBThrottlingReasons";

/// What the current invocation recorded (one invocation at a time per process, as Lambda runs a
/// function).
#[derive(Debug, Clone)]
struct Invocation {
    /// By [`Metric`].
    values: [Option<f64>; Metric::ALL.len()],
    /// Set by [`count_as_pattern`].
    pattern: Option<&'static str>,
    /// Throttling reasons by (reason, resource), in the order first seen: empty but for an
    /// invocation DynamoDB throttled.
    throttling: Vec<(String, String, u32)>,
}

impl Invocation {
    const NONE: Invocation = Invocation {
        values: [None; Metric::ALL.len()],
        pattern: None,
        throttling: Vec::new(),
    };

    fn count_throttling_reason(&mut self, reason: &str, resource: &str) {
        // `arn:aws:dynamodb:<region>:<account>:table/<name>[/index/<index>]`: the part after
        // `table/` names it within the stack's account and region.
        let resource = resource
            .split_once(":table/")
            .map_or(resource, |(_, name)| name);
        match self
            .throttling
            .iter_mut()
            .find(|(r, at, _)| r == reason && at == resource)
        {
            Some((_, _, n)) => *n += 1,
            None => self
                .throttling
                .push((reason.to_owned(), resource.to_owned(), 1)),
        }
    }
}

static CURRENT: Mutex<Invocation> = Mutex::new(Invocation::NONE);

fn lock() -> std::sync::MutexGuard<'static, Invocation> {
    CURRENT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What every document of this process carries, fixed at start-up.
#[derive(Debug)]
pub struct Documents {
    /// `{"Namespace":...,"Dimensions":[["FunctionName","Pattern"]],"Metrics":[` up to the metric
    /// list.
    head: String,
    namespace: String,
    function_name: String,
    /// `,"FunctionName":"<name>"`.
    function: String,
    /// The pattern of an invocation that named none.
    pattern: &'static str,
}

impl Documents {
    pub fn new(namespace: &str, function: &str, pattern: &'static str) -> Documents {
        Documents {
            head: format!(
                r#"{{"Namespace":{},"Dimensions":[["FunctionName","Pattern"]],"Metrics":["#,
                json_string(namespace)
            ),
            function: format!(r#","FunctionName":{}"#, json_string(function)),
            namespace: namespace.to_owned(),
            function_name: function.to_owned(),
            pattern,
        }
    }

    /// Writes the invocation's document to stdout, what it recorded taken (the next invocation
    /// starts from nothing); nothing when it recorded nothing.
    pub fn write(&self, request_id: &str) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        if let Some(doc) = self.take(request_id, now) {
            // A lost document loses metrics, never the invocation's answer.
            let _ = std::io::stdout().lock().write_all(doc.as_bytes());
        }
    }

    /// The invocation's document, and one per throttling reason and resource it counted (one
    /// JSON line each), what it recorded taken (the next invocation starts from nothing); `None`
    /// when it recorded nothing.
    pub fn take(&self, request_id: &str, timestamp_ms: u128) -> Option<String> {
        let invocation = std::mem::replace(&mut *lock(), Invocation::NONE);
        self.render(&invocation, request_id, timestamp_ms)
    }

    fn render(
        &self,
        invocation: &Invocation,
        request_id: &str,
        timestamp_ms: u128,
    ) -> Option<String> {
        let values = &invocation.values;
        let written: Vec<(Metric, f64)> = Metric::ALL
            .iter()
            .filter_map(|m| {
                let v = values[*m as usize]?;
                (v.is_finite() && (v != 0.0 || m.kept_at_zero())).then_some((*m, v))
            })
            .collect();
        let pattern = invocation.pattern.unwrap_or(self.pattern);
        let mut doc = String::new();
        if !written.is_empty() {
            self.write_metrics(&mut doc, &written, pattern, request_id, timestamp_ms);
        }
        // Rare (DynamoDB throttled this invocation), so written with serde_json.
        for (reason, resource, count) in &invocation.throttling {
            let line = serde_json::json!({
                "_aws": {"Timestamp": timestamp_ms as u64, "CloudWatchMetrics": [{
                    "Namespace": self.namespace,
                    "Dimensions": [["FunctionName", "Pattern", "Reason", "Resource"]],
                    "Metrics": [{"Name": THROTTLING_REASONS, "Unit": "Count"}],
                }]},
                "FunctionName": self.function_name,
                "Pattern": pattern,
                "Reason": reason,
                "Resource": resource,
                "RequestId": request_id,
                THROTTLING_REASONS: count,
            });
            doc.push_str(&line.to_string());
            doc.push('\n');
        }
        (!doc.is_empty()).then_some(doc)
    }

    /// The document of the invocation's [`Metric`]s (those `written`), onto `doc`.
    fn write_metrics(
        &self,
        doc: &mut String,
        written: &[(Metric, f64)],
        pattern: &str,
        request_id: &str,
        timestamp_ms: u128,
    ) {
        doc.reserve(256 + 64 * written.len());
        let _ = write!(
            doc,
            r#"{{"_aws":{{"Timestamp":{timestamp_ms},"CloudWatchMetrics":["#
        );
        doc.push_str(&self.head);
        for (n, (m, _)) in written.iter().enumerate() {
            if n > 0 {
                doc.push(',');
            }
            doc.push_str(r#"{"Name":""#);
            doc.push_str(m.name());
            doc.push_str(r#"","Unit":""#);
            doc.push_str(m.unit());
            doc.push_str(r#""}"#);
        }
        doc.push_str("]}]}");
        doc.push_str(&self.function);
        doc.push_str(r#","Pattern":"#);
        doc.push_str(&json_string(pattern));
        doc.push_str(r#","RequestId":"#);
        doc.push_str(&json_string(request_id));
        for (m, v) in written {
            // Rust prints a whole f64 without a fraction ("2"), which JSON reads as a number.
            let _ = write!(doc, r#","{}":{v}"#, m.name());
        }
        doc.push_str("}\n");
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Logs, once, first thing in `main`, and the process's metrics documents (kept for the life of the
/// process), written after each invocation by [`runtime::run`].
/// `pattern` is the access pattern an invocation is counted under unless it names another
/// ([`count_as_pattern`]): the function's catalogue ID, the range of IDs of a function serving
/// several (`L2-L6`, for a request refused before its pattern is known), or its own name when the
/// catalogue numbers none of its operations.
pub fn init(pattern: &'static str) -> Result<&'static Documents, lambda_runtime::Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let namespace =
        std::env::var("METRICS_NAMESPACE").unwrap_or_else(|_| DEFAULT_NAMESPACE.to_owned());
    let function = std::env::var("AWS_LAMBDA_FUNCTION_NAME").unwrap_or_else(|_| "local".into());
    Ok(Box::leak(Box::new(Documents::new(
        &namespace, &function, pattern,
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(Metric, f64)]) -> Invocation {
        let mut v = Invocation::NONE;
        for (m, x) in pairs {
            v.values[*m as usize] = Some(*x);
        }
        v
    }

    #[test]
    fn names_and_positions_agree() {
        for (n, m) in Metric::ALL.iter().enumerate() {
            assert_eq!(*m as usize, n, "{m:?}");
        }
    }

    #[test]
    fn a_document_holds_the_sums_and_leaves_out_counts_of_nothing() {
        let docs = Documents::new("app\"stack", "get-customer", "C1");
        let text = docs
            .render(
                &values(&[
                    (Metric::DynamoDbRequests, 150.0),
                    (Metric::ReadCapacityUnits, 0.0),
                    (Metric::WriteCapacityUnits, 301.5),
                    (Metric::ItemsRead, 0.0),
                ]),
                "req-1",
                1_795_000_000_123,
            )
            .unwrap();
        assert!(text.ends_with('\n') && text.lines().count() == 1);
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({
                "_aws": {"Timestamp": 1_795_000_000_123u64, "CloudWatchMetrics": [{
                    "Namespace": "app\"stack",
                    "Dimensions": [["FunctionName", "Pattern"]],
                    "Metrics": [
                        {"Name": "DynamoDBRequests", "Unit": "Count"},
                        {"Name": "ReadCapacityUnits", "Unit": "Count"},
                        {"Name": "WriteCapacityUnits", "Unit": "Count"},
                    ],
                }]},
                "FunctionName": "get-customer",
                "Pattern": "C1",
                "RequestId": "req-1",
                "DynamoDBRequests": 150,
                "ReadCapacityUnits": 0,
                "WriteCapacityUnits": 301.5,
            })
        );
        assert_eq!(
            docs.render(&values(&[(Metric::ItemsRead, 0.0)]), "r", 1),
            None
        );
    }

    #[test]
    fn each_throttling_reason_and_resource_gets_a_document_of_its_own() {
        let docs = Documents::new("ns", "list-orders", "C4");
        let mut invocation = values(&[(Metric::Throttles, 2.0)]);
        let index = "arn:aws:dynamodb:eu-west-1:123456789012:table/shop-Table-1/index/GSI1";
        for (reason, resource) in [
            ("IndexReadKeyRangeThroughputExceeded", index),
            (
                "TableReadKeyRangeThroughputExceeded",
                "arn:aws:dynamodb:eu-west-1:1:table/t",
            ),
            ("IndexReadKeyRangeThroughputExceeded", index),
        ] {
            invocation.count_throttling_reason(reason, resource);
        }
        let text = docs
            .render(&invocation, "req-9", 1_795_000_000_000)
            .unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0]["DynamoDBThrottles"], 2);
        assert_eq!(
            lines[1],
            serde_json::json!({
                "_aws": {"Timestamp": 1_795_000_000_000u64, "CloudWatchMetrics": [{
                    "Namespace": "ns",
                    "Dimensions": [["FunctionName", "Pattern", "Reason", "Resource"]],
                    "Metrics": [{"Name": "DynamoDBThrottlingReasons", "Unit": "Count"}],
                }]},
                "FunctionName": "list-orders",
                "Pattern": "C4",
                "Reason": "IndexReadKeyRangeThroughputExceeded",
                "Resource": "shop-Table-1/index/GSI1",
                "RequestId": "req-9",
                "DynamoDBThrottlingReasons": 2,
            })
        );
        assert_eq!(lines[2]["Reason"], "TableReadKeyRangeThroughputExceeded");
        assert_eq!(lines[2]["Resource"], "t");
        assert_eq!(lines[2]["DynamoDBThrottlingReasons"], 1);
    }

    #[test]
    fn an_invocation_takes_what_was_recorded_and_leaves_nothing_for_the_next() {
        let docs = Documents::new("ns", "f", "L2-L6");
        let _ = docs.take("before", 1);
        count_as_pattern("L3");
        for _ in 0..1_000 {
            Metric::WriteCapacityUnits.add(2.0);
        }
        Metric::StreamIteratorAge.at_least(40.0);
        Metric::StreamIteratorAge.at_least(10.0);
        let doc: serde_json::Value =
            serde_json::from_str(&docs.take("one", 1_795_000_000_000).unwrap()).unwrap();
        assert_eq!(doc["WriteCapacityUnits"], 2000.0);
        assert_eq!(doc["StreamIteratorAge"], 40.0);
        assert_eq!(doc["Pattern"], "L3");
        assert_eq!(docs.take("two", 1_795_000_000_001), None);
        // The next invocation names no pattern: the function's.
        Metric::ItemsRead.add(1.0);
        let doc: serde_json::Value =
            serde_json::from_str(&docs.take("three", 1_795_000_000_002).unwrap()).unwrap();
        assert_eq!(doc["Pattern"], "L2-L6");
    }
}
