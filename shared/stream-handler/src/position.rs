//! How far a consumer has got on each stream shard: its *position*, the last record of the
//! shard it has answered for (applied, or sent to the failure queue as poison), one item per lane
//! (`keys::derived::stream_position`), written after every batch. A repair reads it to know which
//! records are still in flight instead of assuming a lag (`tools::reconcile`).
//!
//! It only moves forward (a replayed batch leaves it), expires by TTL 25 hours after its last
//! write as the marks do, and costs one write a batch. Written after the batch's own writes: a
//! consumer stopped in between leaves it behind, which makes a repair wait, never count twice.

use model::{attr, n, s};
use store::{
    Condition, StoreError, Table, Update,
    aggregate::{self, Lane, MARK_KEPT_SECONDS, Sequence},
};

use crate::{BatchResponse, Event};

/// The attribute that holds a position as a mark (its sequence number and when, comparable).
pub const POSITION: &str = "Position";
/// The same sequence number as DynamoDB Streams writes it, to read the stream from.
pub const SEQUENCE_NUMBER: &str = "SequenceNumber";

/// The last record of `event` that `response` does not send back to be retried: the last one
/// before the first failure. `None` when the first record failed (or the batch is empty).
pub fn answered<'e>(event: &'e Event, response: &BatchResponse) -> Option<&'e str> {
    let failed = |seq: Option<&str>| {
        response
            .batch_item_failures
            .iter()
            .any(|f| Some(f.item_identifier.as_str()) == seq)
    };
    let first_failed = event
        .records
        .iter()
        .position(|r| failed(r.change.sequence_number.as_deref()));
    let answered = match first_failed {
        Some(i) => &event.records[..i],
        None => &event.records[..],
    };
    answered.last()?.change.sequence_number.as_deref()
}

/// Moves `lane`'s position to `sequence`, unless it is there or past it already.
pub async fn record(
    table: &Table,
    lane: &Lane,
    sequence: &str,
    now: i64,
) -> Result<(), StoreError> {
    let parsed = Sequence::parse(sequence).map_err(StoreError::Corrupt)?;
    let update = Update::new()
        .set(attr::TYPE, s(keys::derived::types::STREAM_POSITION))
        .set_named(POSITION.to_owned(), aggregate::mark(parsed, now))
        .set_named(SEQUENCE_NUMBER.to_owned(), s(sequence))
        .set(attr::EXPIRES_AT, n(now + MARK_KEPT_SECONDS));
    let behind = Condition::NamedAbsent(POSITION.to_owned()).or(Condition::NamedBelow(
        POSITION.to_owned(),
        aggregate::floor(parsed),
    ));
    // Refused: it is there or past it already (a replay), which is where it should be.
    table
        .update_or_current(&lane.position(), &update, behind)
        .await
        .map(|_| ())
}

/// After `consumer` answered `event` with `response`: its position on the event's shard moved
/// to the last record answered. A failure is logged, not returned: the position stays behind,
/// and a repair waits for it.
pub async fn after_batch(table: &Table, consumer: &str, event: &Event, response: &BatchResponse) {
    let (Some(lane), Some(sequence)) = (event.lane(consumer), answered(event, response)) else {
        return;
    };
    if let Err(e) = record(table, &lane, sequence, crate::now_epoch()).await {
        tracing::warn!(error = %e, "the consumer's position was not recorded: a repair waits");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ItemFailure;

    fn event(sequences: &[&str]) -> Event {
        let records: Vec<serde_json::Value> = sequences
            .iter()
            .map(|seq| {
                serde_json::json!({
                    "eventID": format!("e{seq}"),
                    "eventName": "INSERT",
                    "eventVersion": "1.1",
                    "eventSource": "aws:dynamodb",
                    "awsRegion": "us-east-1",
                    "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/x",
                    "dynamodb": {
                        "SequenceNumber": seq,
                        "Keys": {},
                        "SizeBytes": 1,
                        "ApproximateCreationDateTime": 1_795_860_000,
                        "StreamViewType": "NEW_AND_OLD_IMAGES",
                    },
                })
            })
            .collect();
        serde_json::from_value(serde_json::json!({ "Records": records })).unwrap()
    }

    fn failing(sequences: &[&str]) -> BatchResponse {
        BatchResponse {
            batch_item_failures: sequences
                .iter()
                .map(|s| ItemFailure {
                    item_identifier: (*s).to_owned(),
                })
                .collect(),
            ..BatchResponse::default()
        }
    }

    #[test]
    fn a_batch_is_answered_up_to_its_first_failure() {
        let e = event(&["10", "20", "30", "40"]);
        assert_eq!(answered(&e, &failing(&[])), Some("40"));
        assert_eq!(answered(&e, &failing(&["30", "40"])), Some("20"));
        assert_eq!(answered(&e, &failing(&["40", "20"])), Some("10"));
        assert_eq!(answered(&e, &failing(&["10"])), None);
        assert_eq!(answered(&event(&[]), &failing(&[])), None);
    }
}
