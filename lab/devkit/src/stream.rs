//! DynamoDB Streams records and events as Lambda delivers them, made from items: what the stream
//! handlers' tests, the benchmarks and the workbench model feed the handlers.

use model::Item;
use serde_json::{Value, json};

use crate::{item_size, json::item as dynamodb_json};

/// What happened to an item, for [`stream_record`].
pub enum Change<'a> {
    Insert(&'a Item),
    Modify(&'a Item, &'a Item),
    Remove(&'a Item),
    /// A removal by DynamoDB's TTL.
    TtlRemove(&'a Item),
}

/// A sequence number greater than every one this process handed out before, and than those of
/// an earlier process (it starts from the clock): what a harness that replays writes as stream
/// records numbers them by, as a shard does, so that a consumer's marks never take a new
/// record for one it applied.
pub fn next_sequence() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let start = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_micros() as u64)
    };
    let _ = NEXT.compare_exchange(0, start(), Ordering::SeqCst, Ordering::SeqCst);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

/// One DynamoDB Streams record as Lambda delivers it (`NEW_AND_OLD_IMAGES`), with sequence
/// number `seq` (written zero padded, as DynamoDB's are: they compare as numbers).
pub fn stream_record(event_id: &str, seq: u64, change: Change<'_>) -> Value {
    let (name, old, new) = match change {
        Change::Insert(n) => ("INSERT", None, Some(n)),
        Change::Modify(o, n) => ("MODIFY", Some(o), Some(n)),
        Change::Remove(o) | Change::TtlRemove(o) => ("REMOVE", Some(o), None),
    };
    let any = new.or(old).expect("an image");
    let keys: Item = any
        .iter()
        .filter(|(k, _)| *k == "PK" || *k == "SK")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut dynamodb = json!({
        "ApproximateCreationDateTime": 1_795_860_000,
        "Keys": dynamodb_json(&keys),
        "SequenceNumber": format!("{seq:021}"),
        "SizeBytes": item_size(any),
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    });
    if let Some(o) = old {
        dynamodb["OldImage"] = dynamodb_json(o);
    }
    if let Some(n) = new {
        dynamodb["NewImage"] = dynamodb_json(n);
    }
    let mut record = json!({
        "eventID": event_id,
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": dynamodb,
        "eventSourceARN": TEST_STREAM_ARN,
    });
    if matches!(change, Change::TtlRemove(_)) {
        record["userIdentity"] =
            json!({ "type": "Service", "principalId": "dynamodb.amazonaws.com" });
    }
    record
}

/// The stream every test record comes from.
pub const TEST_STREAM_ARN: &str =
    "arn:aws:dynamodb:us-east-1:123456789012:table/test/stream/2026-11-22T00:00:00.000";
/// The shard every test batch comes from, unless a test names another ([`stream_event_of`]).
pub const TEST_SHARD: &str = "shardId-00000001795860000000-0000test";

/// A DynamoDB Streams event of these records, from [`TEST_SHARD`], as the consumers' mappings
/// send it (with a tumbling window: the shard, its stream, the window, an empty state): what the
/// handler receives (`stream_handler::Event`), or any type that reads that JSON.
pub fn stream_event<E: serde::de::DeserializeOwned>(records: Vec<Value>) -> E {
    stream_event_of(TEST_SHARD, records)
}

/// [`stream_event`] from shard `shard`.
pub fn stream_event_of<E: serde::de::DeserializeOwned>(shard: &str, records: Vec<Value>) -> E {
    serde_json::from_value(json!({
        "Records": records,
        "shardId": shard,
        "eventSourceARN": TEST_STREAM_ARN,
        "window": {"start": "2026-11-22T00:00:00Z", "end": "2026-11-22T00:15:00Z"},
        "state": {},
        "isFinalInvokeForWindow": false,
        "isWindowTerminatedEarly": false,
    }))
    .expect("a DynamoDB Streams event")
}
