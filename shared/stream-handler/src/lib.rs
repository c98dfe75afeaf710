//! DynamoDB Streams plumbing shared by the stream handlers.
//!
//! A handler receives Lambda's DynamoDB Streams event and reads, through [`changes`], only the
//! records whose item is of a type it owns, each a [`Change`] whose old and new images decode on
//! demand into `model`'s entities. It writes what it derives (a counter handler gives
//! [`aggregate_batch`] its mapping from a change to contributions, applied coalesced and exactly
//! once) and answers with a partial batch response: the sequence numbers of the records whose
//! writes failed ([`BatchResponse`]). Lambda then retries from the first failed record, within
//! the mapping's bounds (`template.yaml`); everything before it is done. A record is never
//! reported done if its write failed.
//!
//! A record that can never succeed is *poison*: retried, it would hold its shard until the
//! mapping's bounds give its whole batch up. It does not decode, or an item it needs does not
//! (a header, an order line), or DynamoDB refuses its write as it is (an item past 400 KB, a
//! value of the wrong type: [`store::StoreError::is_permanent`]); only throttles, conflicts, 5xx
//! and the like are retried ([`Failures`] sorts them). Handlers name poison in
//! [`BatchResponse::poison`], and [`serve`] sends it to the failure destination
//! (`FAILURE_QUEUE_URL`: the stack's SQS queue; locally a `file://` JSON-lines file) and only then
//! acknowledges it. If the send fails, the record is reported failed and retried like any other.

use std::collections::BTreeMap;

use keys::Shard;
use model::Entity;
use serde::{Deserialize, Serialize};
use store::{
    Deps, Needs, StoreError,
    aggregate::{self, Applied, Contribution, Lane, Sequence},
};
use telemetry::Metric;

pub use aws_lambda_events::event::dynamodb::EventRecord;

/// Lambda's DynamoDB Streams event as the consumers' mappings send it: a batch of one shard's
/// records, in order, and, because the mappings have a tumbling window
/// (`TumblingWindowInSeconds`), which shard and stream they come from. The window's state is
/// not used: every batch is applied whole, and the answer's state is always empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Event {
    #[serde(rename = "Records", default)]
    pub records: Vec<EventRecord>,
    #[serde(rename = "shardId", default, skip_serializing_if = "Option::is_none")]
    pub shard_id: Option<String>,
    #[serde(
        rename = "eventSourceARN",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub event_source_arn: Option<String>,
    /// The window's last invocation (its records, if any, are applied like any others).
    #[serde(rename = "isFinalInvokeForWindow", default)]
    pub is_final_invoke_for_window: bool,
}

impl Event {
    /// The stream the batch was read from.
    pub fn stream_arn(&self) -> &str {
        self.event_source_arn
            .as_deref()
            .or_else(|| self.records.first()?.event_source_arn.as_deref())
            .unwrap_or_default()
    }

    /// The lane of `consumer` the batch was read from (the shard, in its stream); `None` when the
    /// event does not name its shard (a mapping without a tumbling window).
    pub fn lane(&self, consumer: &str) -> Option<Lane> {
        let shard = self.shard_id.as_deref()?;
        Some(Lane::new(consumer, self.stream_arn(), shard))
    }

    /// The lane of `consumer` on the shard this batch's shard follows, when it is known
    /// ([`lineage`]): done with, so its marks can go.
    pub async fn parent_lane(&self, consumer: &str) -> Option<Lane> {
        let shard = self.shard_id.as_deref()?;
        let parent = lineage::parent(self.stream_arn(), shard).await?;
        Some(Lane::new(consumer, self.stream_arn(), &parent))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Insert,
    Modify,
    Remove,
}

#[derive(Debug, thiserror::Error)]
pub enum ChangeError {
    #[error("record {0}: unknown eventName {1:?}")]
    EventName(usize, String),
    #[error("record {0}: {1}")]
    Sequence(usize, String),
    #[error("record {0}: image does not decode: {1}")]
    Image(usize, String),
}

impl ChangeError {
    /// Position in the batch of the record that could not be read.
    pub fn index(&self) -> usize {
        match self {
            ChangeError::EventName(i, _)
            | ChangeError::Sequence(i, _)
            | ChangeError::Image(i, _) => *i,
        }
    }
}

/// One record of a batch, decoded on demand.
#[derive(Debug)]
pub struct Change<'a> {
    /// Position in the batch.
    pub index: usize,
    pub kind: Kind,
    pub sequence: Sequence,
    pub record: &'a EventRecord,
}

impl Change<'_> {
    /// The `Type` of the item (from the new image, or the old one for a removal).
    pub fn type_name(&self) -> Option<&str> {
        record_type(self.record)
    }

    /// The image before the change, as entity `E`; `None` for an insert.
    pub fn old_image<E: Entity>(&self) -> Result<Option<E>, ChangeError> {
        self.image(&self.record.change.old_image)
    }

    /// The image after the change, as entity `E`; `None` for a removal.
    pub fn new_image<E: Entity>(&self) -> Result<Option<E>, ChangeError> {
        self.image(&self.record.change.new_image)
    }

    fn image<E: Entity>(&self, image: &serde_dynamo::Item) -> Result<Option<E>, ChangeError> {
        if image.is_empty() {
            return Ok(None);
        }
        model::from_image(image)
            .map(Some)
            .map_err(|e| ChangeError::Image(self.index, e.to_string()))
    }

    pub fn sequence_number(&self) -> Option<&str> {
        self.record.change.sequence_number.as_deref()
    }

    /// What this record adds to `target` (of type `target_type`): a derived value's
    /// contribution, counted once however often the record is delivered ([`store::aggregate`]).
    pub fn contribution(
        &self,
        target: keys::PrimaryKey,
        target_type: &'static str,
        adds: impl IntoIterator<Item = (&'static str, i64)>,
    ) -> store::aggregate::Contribution {
        store::aggregate::Contribution::new(self.index, self.sequence, target, target_type, adds)
    }
}

/// The `Type` of a record's item (from the new image, or the old one for a removal); `None` for
/// a record with no item of this table (another source's, or one without images).
fn record_type(record: &EventRecord) -> Option<&str> {
    fn type_of(image: &serde_dynamo::Item) -> Option<&str> {
        match image.get(model::attr::TYPE) {
            Some(serde_dynamo::AttributeValue::S(s)) => Some(s.as_str()),
            _ => None,
        }
    }
    type_of(&record.change.new_image).or_else(|| type_of(&record.change.old_image))
}

/// The records of a batch whose item is of a type the handler `owns`, as changes. Ownership is
/// decided first, from the item's `Type` alone: a record the handler does not own (another
/// entity's, a foreign source's with another id format or no images) is skipped, never a
/// failure. An owned record that cannot be read is an error in its place, so the handler can
/// report it (and only it) as failed.
pub fn changes<'a>(event: &'a Event, owns: &[&str]) -> Vec<Result<Change<'a>, ChangeError>> {
    event
        .records
        .iter()
        .enumerate()
        .filter(|(_, record)| record_type(record).is_some_and(|t| owns.contains(&t)))
        .map(|(index, record)| {
            let kind = match record.event_name.as_str() {
                "INSERT" => Kind::Insert,
                "MODIFY" => Kind::Modify,
                "REMOVE" => Kind::Remove,
                other => return Err(ChangeError::EventName(index, other.to_owned())),
            };
            let sequence = record
                .change
                .sequence_number
                .as_deref()
                .ok_or_else(|| "no SequenceNumber".to_owned())
                .and_then(Sequence::parse)
                .map_err(|e| ChangeError::Sequence(index, e))?;
            Ok(Change {
                index,
                kind,
                sequence,
                record,
            })
        })
        .collect()
}

/// Lambda's partial batch response for stream sources, and the batch's poison records (not sent
/// to Lambda: [`serve`] delivers them to the failure destination).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchResponse {
    #[serde(rename = "batchItemFailures")]
    pub batch_item_failures: Vec<ItemFailure>,
    /// The tumbling window's state, always empty: Lambda takes an answer without it for a
    /// failed invocation.
    #[serde(default)]
    pub state: BTreeMap<String, String>,
    #[serde(skip)]
    pub poison: Vec<Poison>,
}

/// A record that can never succeed: its position in the batch, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poison {
    pub index: usize,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemFailure {
    #[serde(rename = "itemIdentifier")]
    pub item_identifier: String,
}

impl BatchResponse {
    /// Reports the records at `failed` positions by sequence number, in batch order. A failed
    /// record without a sequence number cannot be reported alone, so the whole batch is retried
    /// from its first record.
    pub fn failures(event: &Event, failed: &[usize]) -> BatchResponse {
        let mut failed = failed.to_vec();
        failed.sort_unstable();
        failed.dedup();
        let mut out = BatchResponse::default();
        for i in failed {
            match event
                .records
                .get(i)
                .and_then(|r| r.change.sequence_number.clone())
            {
                Some(seq) => out.batch_item_failures.push(ItemFailure {
                    item_identifier: seq,
                }),
                None => {
                    let first = event
                        .records
                        .first()
                        .and_then(|r| r.change.sequence_number.clone())
                        .unwrap_or_default();
                    return BatchResponse {
                        batch_item_failures: vec![ItemFailure {
                            item_identifier: first,
                        }],
                        ..BatchResponse::default()
                    };
                }
            }
        }
        out
    }

    /// These failures, and `poison` records to send to the failure destination.
    pub fn with_poison(mut self, poison: Vec<Poison>) -> BatchResponse {
        self.poison = poison;
        self
    }

    /// The failures of several handlers of one batch, as one response: every record any of them
    /// failed, in batch order, and every poison record any of them found.
    pub fn union(event: &Event, parts: impl IntoIterator<Item = BatchResponse>) -> BatchResponse {
        let mut poison: Vec<Poison> = Vec::new();
        let mut failed = std::collections::BTreeSet::new();
        for part in parts {
            failed.extend(
                part.batch_item_failures
                    .into_iter()
                    .map(|f| f.item_identifier),
            );
            for p in part.poison {
                if !poison.iter().any(|q| q.index == p.index) {
                    poison.push(p);
                }
            }
        }
        let positions: Vec<usize> = event
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.change
                    .sequence_number
                    .as_ref()
                    .is_some_and(|seq| failed.contains(seq))
            })
            .map(|(i, _)| i)
            .collect();
        BatchResponse::failures(event, &positions).with_poison(poison)
    }

    pub fn failed_sequence_numbers(&self) -> Vec<&str> {
        self.batch_item_failures
            .iter()
            .map(|f| f.item_identifier.as_str())
            .collect()
    }
}

/// What becomes of a batch's records that were not applied: those no retry can apply are poison
/// (for the failure destination, then acknowledged), the others are retried. Built up by a
/// handler, then its answer ([`Failures::response`]).
#[derive(Debug, Default)]
pub struct Failures {
    failed: Vec<usize>,
    poison: Vec<Poison>,
}

impl Failures {
    /// The record at `index` can never be applied, because of `reason`.
    pub fn poison(&mut self, index: usize, reason: String) {
        self.poison.push(Poison { index, reason });
    }

    /// `records` were not applied: `doing` failed with `error`. Poison when the error is
    /// permanent ([`StoreError::is_permanent`]: an item that does not decode, a request DynamoDB
    /// refuses), retried when it is not (a throttle, a conflict, a 5xx, the network).
    pub fn store_error(
        &mut self,
        records: impl IntoIterator<Item = usize>,
        doing: &str,
        error: &StoreError,
    ) {
        if error.is_permanent() {
            let reason = format!("{doing}: {error}");
            self.poison.extend(records.into_iter().map(|index| Poison {
                index,
                reason: reason.clone(),
            }));
        } else {
            tracing::error!(%error, "{doing}: the records are retried");
            self.failed.extend(records);
        }
    }

    /// The answer: the retried records as Lambda's partial batch response, and the poison.
    pub fn response(self, event: &Event) -> BatchResponse {
        BatchResponse::failures(event, &self.failed).with_poison(self.poison)
    }
}

/// The whole of a counter handler but its mapping: every readable record of a type it `owns` (of
/// the `consumer`'s sources, all of them or a part's) becomes contributions through `contributions_of` (given the record and the shard its batch's
/// lane writes of every sharded counter, [`Lane::counter_shard`]), which are applied coalesced
/// and exactly once; owned records that cannot be
/// read or mapped, and those whose writes failed, are reported. Also returns what was written
/// (for logs, tests and the benchmark).
pub async fn aggregate_batch<F>(
    deps: &Deps,
    event: &Event,
    consumer: &Consumer,
    owns: &[&str],
    contributions_of: F,
) -> (BatchResponse, Applied)
where
    F: Fn(&Change<'_>, Shard) -> Result<Vec<Contribution>, String>,
{
    let all: Vec<usize> = (0..event.records.len()).collect();
    let shards = match deps.shards() {
        Ok(n) => n,
        Err(e) => {
            tracing::error!(error = %e, "no shard count: the whole batch is retried");
            return (BatchResponse::failures(event, &all), Applied::default());
        }
    };
    let owned = changes(event, owns);
    if owned.is_empty() {
        // Nothing of its own in the batch: nothing to write, nothing to count.
        return (BatchResponse::default(), Applied::default());
    }
    let Some(lane) = event.lane(consumer.name) else {
        // Without its shard, no record can be counted exactly once: nothing is written, and the
        // batch waits (within the mapping's bounds) for a deployment that names it.
        if !event.records.is_empty() {
            tracing::error!(
                "the event names no shardId: the stream mapping needs its tumbling window \
                 (TumblingWindowInSeconds, template.yaml); the whole batch is retried"
            );
        }
        return (BatchResponse::failures(event, &all), Applied::default());
    };
    let counter_shard = lane.counter_shard(shards);
    let mut contributions = Vec::new();
    let mut poison = Vec::new();
    for change in owned {
        let change = match change {
            Ok(c) => c,
            Err(e) => {
                poison.push(Poison {
                    index: e.index(),
                    reason: e.to_string(),
                });
                continue;
            }
        };
        match contributions_of(&change, counter_shard) {
            Ok(cs) => contributions.extend(cs),
            Err(e) => poison.push(Poison {
                index: change.index,
                reason: format!("record cannot be aggregated: {e}"),
            }),
        }
    }
    // Boxed: the writes' futures nest deep enough to strain the compiler's layout limits.
    let parent = event.parent_lane(consumer.name).await;
    let applied = Box::pin(aggregate::apply(
        &deps.table,
        &lane,
        parent.as_ref(),
        contributions,
        now_epoch(),
    ))
    .await;
    poison.extend(applied.unwritable.iter().map(|(index, reason)| Poison {
        index: *index,
        reason: reason.clone(),
    }));
    // Debug, not INFO: the batch's numbers are in its metrics document.
    tracing::debug!(
        records = event.records.len(),
        target_writes = applied.target_writes,
        already_applied = applied.already_applied,
        marks_removed = applied.marks_removed,
        failed = applied.failed.len(),
        poison = poison.len(),
        "batch applied"
    );
    let response = BatchResponse::failures(event, &applied.failed).with_poison(poison);
    (response, applied)
}

/// What a stream handler declares about itself, once, beside its handler: its name (its binary,
/// its template resource, its sample event, and its metrics' `Pattern`: it serves no pattern of
/// the catalogue), what it needs, and the items whose changes it acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Consumer {
    pub name: &'static str,
    pub needs: Needs,
    /// Its sources: the template's `FilterCriteria` ([`Consumer::filter_patterns`], held to it
    /// by the contract tests), the records [`aggregate_batch`] reads, and the fan-out the
    /// capacity planner prices (`planner::fanout`, held to it by its tests) all come from here.
    pub sources: &'static [Source],
}

/// An item type whose changes a consumer acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// Its `Type`.
    pub type_name: &'static str,
    /// Whether its removal (a delete, a TTL expiry) changes what the consumer derives: then its
    /// mapping also hands over records whose old image is of this type (a REMOVE has no new
    /// image).
    pub removals: bool,
}

impl Source {
    /// A type whose inserts, updates and removals all count.
    pub const fn changes(type_name: &'static str) -> Source {
        Source {
            type_name,
            removals: true,
        }
    }

    /// A type whose removals change nothing (an append-only history).
    pub const fn writes(type_name: &'static str) -> Source {
        Source {
            type_name,
            removals: false,
        }
    }
}

impl Consumer {
    /// The `Type`s of its sources, in declaration order.
    pub fn types(&self) -> Vec<&'static str> {
        self.sources.iter().map(|s| s.type_name).collect()
    }

    /// Its event source mapping's `FilterCriteria` patterns, as the template writes them: a
    /// record whose new image is a source's, and one whose old image is a source's whose
    /// removals count.
    pub fn filter_patterns(&self) -> Vec<String> {
        let pattern = |image: &str, types: Vec<&str>| {
            let types: Vec<String> = types.iter().map(|t| format!("\"{t}\"")).collect();
            format!(
                r#"{{"dynamodb": {{"{image}": {{"Type": {{"S": [{}]}}}}}}}}"#,
                types.join(", ")
            )
        };
        let removed: Vec<&str> = self
            .sources
            .iter()
            .filter(|s| s.removals)
            .map(|s| s.type_name)
            .collect();
        let mut out = vec![pattern("NewImage", self.types())];
        if !removed.is_empty() {
            out.push(pattern("OldImage", removed));
        }
        out
    }
}

/// A context crate's stream handlers: `consumers![commerce_stream]`, written by
/// `functions/build.rs` from the binaries that call [`main!`](crate::main), makes each a public
/// module (its `CONSUMER` and `handle`), the list [`CONSUMERS`], and `handle_batch`, which answers
/// a batch as the named handler's `main` would (for tests and tools).
#[macro_export]
macro_rules! consumers {
    ($($consumer:ident),* $(,)?) => {
        $(pub mod $consumer;)*

        /// This context's stream handlers.
        pub const CONSUMERS: &[&$crate::Consumer] = &[$(&$consumer::CONSUMER),*];

        /// The batch response of the handler named `consumer` to `event`, with `deps` (made for
        /// its needs); `None` when no handler of this context has the name.
        pub async fn handle_batch(
            consumer: &str,
            deps: &store::Deps,
            event: $crate::Event,
        ) -> Option<$crate::BatchResponse> {
            $(if consumer == $consumer::CONSUMER.name {
                return Some(Box::pin($consumer::handle(deps, event)).await);
            })*
            None
        }
    };
}

/// A stream handler's binary, whole: `stream_handler::main!(commerce::commerce_stream);` in
/// `functions/commerce/src/bin/commerce-stream.rs` is the `main` that [`serve`]s the module's
/// `CONSUMER` with its `handle`; the context's [`consumers!`](crate::consumers) list is derived
/// from these lines (`functions/build.rs`).
#[macro_export]
macro_rules! main {
    ($context:ident :: $consumer:ident) => {
        #[tokio::main(flavor = "current_thread")]
        async fn main() -> Result<(), lambda_runtime::Error> {
            $crate::serve(&$context::$consumer::CONSUMER, $context::$consumer::handle).await
        }
    };
}

/// The share of a batch's time by which its failures are reported (the handler's own writes end
/// at [`store::deadline::SHARE_PERCENT`]).
const REPORT_PERCENT: u32 = 95;

/// A stream handler's whole `main`: logging and metrics (counted under its name), its
/// dependencies read once from the environment, then batches answered by `handler` with a partial
/// batch response until the runtime stops.
pub async fn serve<F, Fut>(
    consumer: &'static Consumer,
    handler: F,
) -> Result<(), lambda_runtime::Error>
where
    F: Fn(&'static Deps, Event) -> Fut,
    Fut: std::future::Future<Output = BatchResponse> + Send,
{
    let needs = consumer.needs;
    let metrics = telemetry::init(consumer.name)?;
    // Made once and kept for the life of the process, as Lambda keeps a warm instance; a
    // configuration it cannot use is reported to Lambda as the reason the instance failed.
    let deps = telemetry::startup::checked(Deps::from_env(needs).await).await?;
    let deps: &'static Deps = Box::leak(Box::new(deps));
    let dead_letters = telemetry::startup::checked(DeadLetters::from_env().await).await?;
    lineage::init().await;
    let dead_letters: &'static DeadLetters = Box::leak(Box::new(dead_letters));
    let handler = &handler;
    let service = lambda_runtime::service_fn(move |event: lambda_runtime::LambdaEvent<Event>| {
        let batch = event.payload;
        record_batch_received(&batch, keys::now_ms());
        let started = std::time::Instant::now();
        // The batch's writes end by its deadline ([`store::deadline`]); its failure report, the
        // poison's delivery and the position by a later one, still before Lambda's timeout: a
        // DynamoDB that stops answering costs the batch a retry of what it did not apply, not
        // a timeout that retries all of it with no report.
        let lambda_deadline = event.context.deadline;
        let work = store::deadline::ahead_of(lambda_deadline);
        let report = store::deadline::share_of(lambda_deadline, REPORT_PERCENT);
        let answer = handler(deps, batch.clone());
        async move {
            let response = store::deadline::finished_by(work, answer)
                .await
                .unwrap_or_else(|| {
                    tracing::warn!(
                        "the batch was still busy at its deadline: all of it is retried"
                    );
                    let all: Vec<usize> = (0..batch.records.len()).collect();
                    BatchResponse::failures(&batch, &all)
                });
            record_batch_handled(batch.records.len(), started.elapsed());
            Metric::PoisonRecords.add(response.poison.len() as f64);
            let settled = store::deadline::within(report, async {
                let settled = dead_letters.settle(&batch, response).await;
                position::after_batch(&deps.table, consumer.name, &batch, &settled).await;
                settled
            })
            .await;
            Metric::BatchItemFailures.add(settled.batch_item_failures.len() as f64);
            Ok::<_, lambda_runtime::Error>(settled)
        }
    });
    // `lambda_runtime::run`, in the loop that does not leak a trace header per invocation, with
    // each batch's metrics document written when it ends.
    telemetry::runtime::run(metrics, service).await
}

/// A batch's size and how far behind the table it is: the age, at `now_ms`, of its oldest
/// record (DynamoDB's approximate creation time, to the second).
pub fn record_batch_received(event: &Event, now_ms: u64) {
    Metric::StreamRecords.add(event.records.len() as f64);
    let oldest = event
        .records
        .iter()
        .map(|r| r.change.approximate_creation_date_time.timestamp_millis())
        .min();
    if let Some(oldest) = oldest {
        let age = (now_ms as i64).saturating_sub(oldest).max(0);
        Metric::StreamIteratorAge.at_least(age as f64);
    }
}

/// How fast the handler got through a batch of `records` in `took`: its time per record and its
/// records a second. Nothing for an empty batch.
pub fn record_batch_handled(records: usize, took: std::time::Duration) {
    if records == 0 {
        return;
    }
    let ms = took.as_secs_f64() * 1000.0;
    Metric::StreamRecordTime.add(ms / records as f64);
    Metric::StreamRecordRate.add(records as f64 / took.as_secs_f64().max(1e-6));
}

pub mod dead_letters;
pub mod lineage;
pub mod position;
pub use dead_letters::DeadLetters;

/// Seconds since the Unix epoch, now.
pub fn now_epoch() -> i64 {
    (keys::now_ms() / 1000) as i64
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A batch of `n` records, sequence numbers 0 to n - 1.
    fn batch(n: usize) -> Event {
        let records: Vec<_> = (0..n)
            .map(|i| {
                json!({
                    "eventID": format!("e{i}"), "eventName": "INSERT", "eventVersion": "1.1",
                    "eventSource": "aws:dynamodb", "awsRegion": "us-east-1", "eventSourceARN": "arn",
                    "dynamodb": {"ApproximateCreationDateTime": 1, "SequenceNumber": format!("{i:021}"),
                        "SizeBytes": 1, "StreamViewType": "NEW_AND_OLD_IMAGES"}
                })
            })
            .collect();
        serde_json::from_value(json!({ "Records": records })).unwrap()
    }

    #[test]
    fn only_errors_no_retry_can_fix_make_poison() {
        let reasons = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let retried = [
            StoreError::Throttled("ProvisionedThroughputExceededException".into()),
            StoreError::Unavailable("InternalServerError (500)".into()),
            StoreError::Unavailable("dispatch failure: connection refused".into()),
            StoreError::TransactionCanceled(reasons(&["None", "TransactionConflict"])),
            StoreError::Dynamo("AccessDeniedException: fix the role".into()),
            StoreError::Config("FAILURE_QUEUE_URL is not set".into()),
        ];
        let poison = [
            StoreError::Corrupt("ItemCount: missing field".into()),
            StoreError::Rejected("ValidationException: item size".into()),
            StoreError::TransactionCanceled(reasons(&["ValidationError", "None"])),
        ];
        let event = batch(retried.len() + poison.len());
        let mut failures = Failures::default();
        for (i, e) in retried.iter().chain(&poison).enumerate() {
            failures.store_error([i], "writing", e);
        }
        let response = failures.response(&event);
        let sequence = |i: usize| format!("{i:021}");
        assert_eq!(
            response.failed_sequence_numbers(),
            (0..retried.len()).map(sequence).collect::<Vec<_>>()
        );
        assert_eq!(
            response.poison.iter().map(|p| p.index).collect::<Vec<_>>(),
            (retried.len()..event.records.len()).collect::<Vec<_>>()
        );
        assert!(response.poison[1].reason.starts_with("writing: "));
    }
}
