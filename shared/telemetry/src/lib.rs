//! What a function tells its operators, set up once at start-up by [`init`]:
//!
//! - **Logs**: the runtime's subscriber, which writes JSON lines carrying the request id when the
//!   function's log format is JSON (`LoggingConfig.LogFormat`, seen as `AWS_LAMBDA_LOG_FORMAT`)
//!   and filters at `AWS_LAMBDA_LOG_LEVEL`. Nothing logs at INFO per request: a request's numbers
//!   are in its metrics document, which costs one line instead of many.
//! - **Metrics**: CloudWatch's Embedded Metric Format, through `metrics_cloudwatch_embedded`:
//!   after each invocation, one JSON document on stdout holds what it did (the [`names`] below),
//!   with the `FunctionName` dimension (Lambda's own metrics use the same) and the request id as
//!   a property, so a metric links back to the invocation's log lines. CloudWatch turns the
//!   documents into metrics with no API call and no extra permission.
//! - **Traces**: X-Ray subsegments of the AWS calls of a sampled invocation ([`xray`]).
//!
//! Code records metrics through the `metrics` facade (`metrics::counter!`...): with no recorder
//! installed (tests, tools), recording does nothing.

pub mod xray;

use metrics::Unit;
pub use metrics_cloudwatch_embedded::{Collector, lambda::MetricsLayer};

/// The namespace when `METRICS_NAMESPACE` is not set.
pub const DEFAULT_NAMESPACE: &str = "SingleTable";

/// The metrics every function may write, with their units.
pub mod names {
    /// 1 in the first invocation of a process.
    pub const COLD_START: &str = "ColdStart";
    /// Requests sent to DynamoDB (retries of unprocessed keys included).
    pub const DYNAMODB_REQUESTS: &str = "DynamoDBRequests";
    /// Read capacity units one request consumed, on the table and its indexes: one value per
    /// request, so a metric's Sum is the units consumed and its SampleCount the reads.
    pub const READ_UNITS: &str = "ReadCapacityUnits";
    /// Write capacity units one request consumed (index writes and transactions included).
    pub const WRITE_UNITS: &str = "WriteCapacityUnits";
    /// Items a read returned.
    pub const ITEMS_READ: &str = "ItemsRead";
    /// Items a write wrote (a transaction's parts, a batch's items).
    pub const ITEMS_WRITTEN: &str = "ItemsWritten";
    /// Requests DynamoDB throttled after the SDK's retries: the caller saw a 503 (or the stream
    /// batch is retried).
    pub const THROTTLES: &str = "DynamoDBThrottles";
    /// Stream records a stream handler was given.
    pub const RECORDS: &str = "StreamRecords";
    /// Records reported as batch item failures (retried by Lambda).
    pub const BATCH_FAILURES: &str = "BatchItemFailures";
    /// Records whose change the ledger had already applied (a retried batch): skipped.
    pub const DUPLICATES_SKIPPED: &str = "LedgerDuplicatesSkipped";
    /// Records that can never apply, sent to the failure queue.
    pub const POISON_RECORDS: &str = "PoisonRecords";
    /// Age of the batch's oldest record when the handler saw it: how far behind the table the
    /// derived items are.
    pub const ITERATOR_AGE: &str = "StreamIteratorAge";
}

/// Every metric and its unit (CloudWatch shows the unit; EMF takes it from here).
pub const UNITS: &[(&str, Unit)] = &[
    (names::COLD_START, Unit::Count),
    (names::DYNAMODB_REQUESTS, Unit::Count),
    (names::READ_UNITS, Unit::Count),
    (names::WRITE_UNITS, Unit::Count),
    (names::ITEMS_READ, Unit::Count),
    (names::ITEMS_WRITTEN, Unit::Count),
    (names::THROTTLES, Unit::Count),
    (names::RECORDS, Unit::Count),
    (names::BATCH_FAILURES, Unit::Count),
    (names::DUPLICATES_SKIPPED, Unit::Count),
    (names::POISON_RECORDS, Unit::Count),
    (names::ITERATOR_AGE, Unit::Milliseconds),
];

/// Logs and metrics, once, first thing in `main`. The collector is flushed after each invocation
/// by a [`MetricsLayer`] around the function's service.
pub fn init() -> Result<&'static Collector, lambda_runtime::Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let namespace =
        std::env::var("METRICS_NAMESPACE").unwrap_or_else(|_| DEFAULT_NAMESPACE.to_owned());
    let function = std::env::var("AWS_LAMBDA_FUNCTION_NAME").unwrap_or_else(|_| "local".into());
    let collector = metrics_cloudwatch_embedded::Builder::new()
        .cloudwatch_namespace(namespace)
        .with_dimension("FunctionName", function)
        .lambda_cold_start_metric(names::COLD_START)
        .with_lambda_request_id("RequestId")
        .init()?;
    for (name, unit) in UNITS {
        metrics::describe_counter!(*name, *unit, "");
    }
    Ok(collector)
}
