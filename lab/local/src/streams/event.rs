//! Stream records as Lambda hands them to a function: DynamoDB Streams' `Record`, in the JSON of
//! Lambda's DynamoDB event (`{"Records": [...]}`, attribute values in DynamoDB JSON).

use std::{
    cmp::Ordering,
    collections::HashMap,
    time::{Duration, SystemTime},
};

use aws_sdk_dynamodb::{primitives::Blob as TableBlob, types::AttributeValue as TableValue};
use aws_sdk_dynamodbstreams::{
    primitives::Blob,
    types::{AttributeValue, Record as SdkRecord},
};
use serde_json::{Map, Value, json};

use super::clock::Clock;
use crate::account;

/// One stream record, ready to send.
#[derive(Debug, Clone)]
pub struct Record {
    pub sequence_number: String,
    /// The record as it appears in the event's `Records`.
    pub json: Value,
    /// Its size in the event, to keep a batch under Lambda's payload limit.
    pub bytes: usize,
    /// `ApproximateCreationDateTime`.
    pub created: SystemTime,
    /// The latest moment the change can have happened: what `MaximumRecordAgeInSeconds` is
    /// measured from (see [`Record::new`]).
    pub arrived: SystemTime,
}

impl Record {
    /// `read_at` is when the poller read it. DynamoDB Local rounds `ApproximateCreationDateTime`
    /// down to the minute, so the change happened within a minute after it, and before it was
    /// read: ages measured from the earlier of both are never overestimated.
    pub fn new(
        json: Value,
        sequence_number: String,
        created: SystemTime,
        read_at: SystemTime,
    ) -> Record {
        let precision = match created.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) if d.as_secs() % 60 == 0 && d.subsec_nanos() == 0 => Duration::from_secs(60),
            _ => Duration::from_secs(1),
        };
        let arrived = (created + precision).min(read_at).max(created);
        let bytes = json.to_string().len();
        Record {
            sequence_number,
            json,
            bytes,
            created,
            arrived,
        }
    }

    /// Converts a record from GetRecords, read now on `clock`. Fails only on a record without a
    /// sequence number, which DynamoDB never sends.
    pub fn from_stream(r: &SdkRecord, stream_arn: &str, clock: &Clock) -> Result<Record, String> {
        let read_at = clock.now();
        let change = r
            .dynamodb()
            .ok_or("a stream record without its dynamodb part")?;
        let sequence_number = change
            .sequence_number()
            .ok_or("a stream record without a SequenceNumber")?
            .to_owned();
        let created = change
            .approximate_creation_date_time()
            .and_then(|t| SystemTime::try_from(*t).ok())
            .map_or(read_at, |t| clock.stamped(t));
        let epoch_seconds = created
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);

        let mut dynamodb = Map::new();
        dynamodb.insert("ApproximateCreationDateTime".into(), epoch_seconds.into());
        for (name, image) in [
            ("Keys", change.keys()),
            ("NewImage", change.new_image()),
            ("OldImage", change.old_image()),
        ] {
            if let Some(image) = image {
                dynamodb.insert(name.into(), item(image));
            }
        }
        dynamodb.insert("SequenceNumber".into(), sequence_number.clone().into());
        dynamodb.insert("SizeBytes".into(), change.size_bytes().unwrap_or(0).into());
        if let Some(view) = change.stream_view_type() {
            dynamodb.insert("StreamViewType".into(), view.as_str().into());
        }

        let mut record = Map::new();
        record.insert("eventID".into(), r.event_id().unwrap_or_default().into());
        let event_name = r.event_name().map(|n| n.as_str()).unwrap_or_default();
        record.insert("eventName".into(), event_name.into());
        record.insert(
            "eventVersion".into(),
            r.event_version().unwrap_or("1.1").into(),
        );
        record.insert("eventSource".into(), "aws:dynamodb".into());
        // Lambda reports its own region, not the stream's (DynamoDB Local says `ddblocal`).
        record.insert("awsRegion".into(), account::REGION.into());
        record.insert("dynamodb".into(), Value::Object(dynamodb));
        record.insert("eventSourceARN".into(), stream_arn.into());
        // Only TTL deletions carry it.
        if let Some(who) = r.user_identity() {
            record.insert(
                "userIdentity".into(),
                json!({"type": who.r#type(), "principalId": who.principal_id()}),
            );
        }
        Ok(Record::new(
            Value::Object(record),
            sequence_number,
            created,
            read_at,
        ))
    }
}

/// Lambda's event for a batch.
pub fn event<'a>(records: impl IntoIterator<Item = &'a Record>) -> Value {
    let records: Vec<Value> = records.into_iter().map(|r| r.json.clone()).collect();
    json!({ "Records": records })
}

/// A mapping's tumbling window (`TumblingWindowInSeconds`) as its events carry it.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Epoch seconds, a multiple of the window's length.
    pub start: u64,
    pub seconds: u64,
}

impl Window {
    /// The window of `seconds` a record created at `created` falls in.
    pub fn of(created: SystemTime, seconds: u64) -> Window {
        let epoch = created
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let seconds = seconds.max(1);
        Window {
            start: epoch - epoch % seconds,
            seconds,
        }
    }

    fn iso(epoch: u64) -> String {
        use aws_sdk_dynamodb::primitives::{DateTime, DateTimeFormat};
        DateTime::from_secs(epoch as i64)
            .fmt(DateTimeFormat::DateTime)
            .unwrap_or_default()
    }
}

/// Lambda's event for a batch of a mapping with a tumbling window: the records, and the shard
/// they come from, their stream, the window and the state the window's last answer gave. The
/// window's final invocation (no records, `isFinalInvokeForWindow`) is not emulated: every
/// invocation is one of its batches.
pub fn windowed_event<'a>(
    records: impl IntoIterator<Item = &'a Record>,
    shard: &str,
    stream_arn: &str,
    window: &Window,
    state: &Value,
) -> Value {
    let mut event = event(records);
    event["shardId"] = shard.into();
    event["eventSourceARN"] = stream_arn.into();
    event["window"] = json!({
        "start": Window::iso(window.start),
        "end": Window::iso(window.start + window.seconds),
    });
    event["state"] = state.clone();
    event["isFinalInvokeForWindow"] = false.into();
    event["isWindowTerminatedEarly"] = false.into();
    event
}

/// An image (or key) in DynamoDB JSON, as [`devkit::json`] writes a table's items: the Streams SDK's
/// values are DynamoDB's, in a type of its own, so they are converted first. A value of a type
/// newer than the SDK (DynamoDB Local 3.x sends none) has no counterpart: its attribute is left
/// out.
pub fn item(attributes: &HashMap<String, AttributeValue>) -> Value {
    let item: HashMap<String, TableValue> = attributes
        .iter()
        .filter_map(|(name, value)| Some((name.clone(), table_value(value)?)))
        .collect();
    devkit::json::item(&item)
}

/// The same value as the DynamoDB SDK's type.
fn table_value(value: &AttributeValue) -> Option<TableValue> {
    let blob = |b: &Blob| TableBlob::new(b.as_ref());
    Some(match value {
        AttributeValue::S(s) => TableValue::S(s.clone()),
        AttributeValue::N(n) => TableValue::N(n.clone()),
        AttributeValue::B(b) => TableValue::B(blob(b)),
        AttributeValue::Bool(b) => TableValue::Bool(*b),
        AttributeValue::Null(b) => TableValue::Null(*b),
        AttributeValue::Ss(l) => TableValue::Ss(l.clone()),
        AttributeValue::Ns(l) => TableValue::Ns(l.clone()),
        AttributeValue::Bs(l) => TableValue::Bs(l.iter().map(blob).collect()),
        AttributeValue::L(l) => TableValue::L(l.iter().map(table_value).collect::<Option<_>>()?),
        AttributeValue::M(m) => TableValue::M(
            m.iter()
                .map(|(k, v)| Some((k.clone(), table_value(v)?)))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// Orders sequence numbers: decimal strings of any length (DynamoDB Local pads them to 21
/// digits, AWS does not promise a width).
pub fn compare_sequence_numbers(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodbstreams::{
        primitives::{Blob, DateTime},
        types::{Identity, OperationType, StreamRecord, StreamViewType},
    };

    use super::*;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn sample(with_identity: bool) -> SdkRecord {
        let keys = HashMap::from([("PK".to_string(), s("R#1")), ("SK".to_string(), s("R#1"))]);
        let mut new = keys.clone();
        new.extend([
            ("Type".to_string(), s("Review")),
            ("Rating".to_string(), AttributeValue::N("4".into())),
            (
                "Raw".to_string(),
                AttributeValue::B(Blob::new(vec![1, 2, 255])),
            ),
            ("Ok".to_string(), AttributeValue::Bool(true)),
            ("Gone".to_string(), AttributeValue::Null(true)),
            (
                "Tags".to_string(),
                AttributeValue::Ss(vec!["a".into(), "b".into()]),
            ),
            (
                "Sizes".to_string(),
                AttributeValue::Ns(vec!["1".into(), "2.5".into()]),
            ),
            (
                "Blobs".to_string(),
                AttributeValue::Bs(vec![Blob::new(vec![0])]),
            ),
            (
                "Nested".to_string(),
                AttributeValue::M(HashMap::from([(
                    "List".to_string(),
                    AttributeValue::L(vec![s("x"), AttributeValue::N("1".into())]),
                )])),
            ),
        ]);
        let change = StreamRecord::builder()
            .approximate_creation_date_time(DateTime::from_secs(1_700_000_000))
            .set_keys(Some(keys))
            .set_new_image(Some(new))
            .old_image("PK", s("R#1"))
            .sequence_number("000000000000000000042")
            .size_bytes(123)
            .stream_view_type(StreamViewType::NewAndOldImages)
            .build();
        let mut record = SdkRecord::builder()
            .event_id("e-1")
            .event_name(OperationType::Modify)
            .event_version("1.1")
            .event_source("aws:dynamodb")
            .aws_region("ddblocal")
            .dynamodb(change);
        if with_identity {
            record = record.user_identity(
                Identity::builder()
                    .r#type("Service")
                    .principal_id("dynamodb.amazonaws.com")
                    .build(),
            );
        }
        record.build()
    }

    const ARN: &str =
        "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2024-01-01T00:00:00.000";

    #[test]
    fn the_record_is_lambdas_dynamodb_record() {
        let r = Record::from_stream(&sample(false), ARN, &Clock::default()).unwrap();
        assert_eq!(r.sequence_number, "000000000000000000042");
        assert_eq!(
            r.json,
            json!({
                "eventID": "e-1",
                "eventName": "MODIFY",
                "eventVersion": "1.1",
                "eventSource": "aws:dynamodb",
                "awsRegion": "us-east-1",
                "dynamodb": {
                    "ApproximateCreationDateTime": 1_700_000_000u64,
                    "Keys": {"PK": {"S": "R#1"}, "SK": {"S": "R#1"}},
                    "NewImage": {
                        "Blobs": {"BS": ["AA=="]},
                        "Gone": {"NULL": true},
                        "Nested": {"M": {"List": {"L": [{"S": "x"}, {"N": "1"}]}}},
                        "Ok": {"BOOL": true},
                        "PK": {"S": "R#1"},
                        "Rating": {"N": "4"},
                        "Raw": {"B": "AQL/"},
                        "SK": {"S": "R#1"},
                        "Sizes": {"NS": ["1", "2.5"]},
                        "Tags": {"SS": ["a", "b"]},
                        "Type": {"S": "Review"}
                    },
                    "OldImage": {"PK": {"S": "R#1"}},
                    "SequenceNumber": "000000000000000000042",
                    "SizeBytes": 123,
                    "StreamViewType": "NEW_AND_OLD_IMAGES"
                },
                "eventSourceARN": ARN
            })
        );
        assert_eq!(r.bytes, r.json.to_string().len());
        // To the second: the change happened within a second after the timestamp.
        assert_eq!(r.arrived, r.created + Duration::from_secs(1));
    }

    #[test]
    fn a_record_read_after_the_clock_moved_forward_is_as_far_ahead() {
        let clock = Clock::default();
        let before = Record::from_stream(&sample(false), ARN, &clock).unwrap();
        clock.advance(Duration::from_secs(61));
        let after = Record::from_stream(&sample(false), ARN, &clock).unwrap();
        let ahead = Duration::from_secs(61);
        assert_eq!(after.created, before.created + ahead);
        assert_eq!(after.arrived, before.arrived + ahead);
        assert_eq!(
            after.json["dynamodb"]["ApproximateCreationDateTime"],
            1_700_000_061u64
        );
    }

    #[test]
    fn ages_count_from_the_latest_moment_the_change_can_have_happened() {
        let minute = SystemTime::UNIX_EPOCH + Duration::from_secs(1_699_999_980);
        // A whole minute may be DynamoDB Local's rounding: up to a minute later, or when read.
        let soon = minute + Duration::from_secs(10);
        assert_eq!(
            Record::new(json!({}), "1".into(), minute, soon).arrived,
            soon
        );
        let late = minute + Duration::from_secs(600);
        let r = Record::new(json!({}), "1".into(), minute, late);
        assert_eq!(r.arrived, minute + Duration::from_secs(60));
    }

    #[test]
    fn ttl_deletions_carry_the_user_identity() {
        let r = Record::from_stream(&sample(true), ARN, &Clock::default()).unwrap();
        assert_eq!(
            r.json["userIdentity"],
            json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"})
        );
        assert!(
            Record::from_stream(&sample(false), ARN, &Clock::default())
                .unwrap()
                .json
                .get("userIdentity")
                .is_none()
        );
    }

    #[test]
    fn the_event_deserializes_as_aws_lambda_events_dynamodb_event() {
        let a = Record::from_stream(&sample(true), ARN, &Clock::default()).unwrap();
        let b = Record::from_stream(&sample(false), ARN, &Clock::default()).unwrap();
        let value = event([&a, &b]);
        let parsed: aws_lambda_events::event::dynamodb::Event =
            serde_json::from_value(value).expect("a valid DynamoDB event");
        assert_eq!(parsed.records.len(), 2);
        let first = &parsed.records[0];
        assert_eq!(first.event_name, "MODIFY");
        assert_eq!(first.event_source_arn.as_deref(), Some(ARN));
        assert_eq!(
            first.change.sequence_number.as_deref(),
            Some("000000000000000000042")
        );
        assert_eq!(
            first.change.approximate_creation_date_time.timestamp(),
            1_700_000_000
        );
        assert_eq!(first.change.size_bytes, 123);
        assert_eq!(
            first
                .user_identity
                .as_ref()
                .map(|u| u.principal_id.as_str()),
            Some("dynamodb.amazonaws.com")
        );
        assert_eq!(
            first.user_identity.as_ref().map(|u| u.type_.as_str()),
            Some("Service")
        );
        // Every attribute type made it through serde_dynamo's parser, and back the same.
        let image = serde_json::to_value(&first.change.new_image).unwrap();
        assert_eq!(image, a.json["dynamodb"]["NewImage"]);
        assert!(parsed.records[1].user_identity.is_none());
    }

    #[test]
    fn sequence_numbers_compare_as_numbers() {
        assert_eq!(
            compare_sequence_numbers("000000000000000000009", "10"),
            Ordering::Less
        );
        assert_eq!(compare_sequence_numbers("100", "000100"), Ordering::Equal);
        assert_eq!(
            compare_sequence_numbers("4900000000000000000001", "800"),
            Ordering::Greater
        );
    }
}
