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
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/test/stream/2026-11-22T00:00:00.000",
    });
    if matches!(change, Change::TtlRemove(_)) {
        record["userIdentity"] =
            json!({ "type": "Service", "principalId": "dynamodb.amazonaws.com" });
    }
    record
}

/// A DynamoDB Streams event of these records, as the handler receives it (`stream_handler::Event`).
pub fn stream_event(records: Vec<Value>) -> aws_lambda_events::event::dynamodb::Event {
    serde_json::from_value(json!({ "Records": records })).expect("a DynamoDB Streams event")
}
