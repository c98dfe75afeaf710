//! Lambda event filtering (`FilterCriteria`) as the event source mapping applies it: a record is
//! delivered if it matches any of the mapping's patterns (no pattern: every record).
//! <https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html>
//!
//! A pattern is an object whose keys follow the record's keys; at the leaves, an array of
//! matchers, any of which may match. Arrays in the record are flattened, as EventBridge does: a
//! leaf matches if any element does. Supported matchers: exact values (string, number, boolean,
//! null), `prefix`, `suffix`, `equals-ignore-case`, `anything-but` (a value, a list, or a
//! `prefix`), `numeric` and `exists`.
//!
//! As in AWS, `numeric` only matches JSON numbers: a DynamoDB `{"N": "5"}` is a string in the
//! record, so a numeric filter on it never matches (the Lambda documentation says so too).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The patterns of one mapping.
#[derive(Debug, Clone, Default)]
pub struct Filters(Vec<Pattern>);

impl Filters {
    /// Parses each `Pattern` string; the first invalid one is an error, as Lambda refuses to
    /// create such a mapping.
    pub fn parse(patterns: &[String]) -> Result<Filters, String> {
        patterns
            .iter()
            .map(|p| Pattern::parse(p).map_err(|e| format!("filter pattern {p}: {e}")))
            .collect::<Result<_, _>>()
            .map(Filters)
    }

    /// True if `record` matches any pattern, or if there is none.
    pub fn matches(&self, record: &Value) -> bool {
        self.0.is_empty() || self.0.iter().any(|p| p.matches(record))
    }
}

/// One filter pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern(Fields);

type Fields = Vec<(String, Node)>;

#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// A nested object: every key must match.
    Fields(Fields),
    /// A leaf: any of the matchers must match.
    Matchers(Vec<Matcher>),
}

#[derive(Debug, Clone, PartialEq)]
enum Matcher {
    Equals(Value),
    Prefix(String),
    Suffix(String),
    EqualsIgnoreCase(String),
    AnythingBut(Vec<Value>),
    AnythingButPrefix(String),
    Numeric(Vec<(Comparison, f64)>),
    Exists(bool),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Comparison {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Pattern {
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let Merged(value) = serde_json::from_str(text).map_err(|e| e.to_string())?;
        match value {
            Value::Object(map) => Ok(Pattern(fields(map)?)),
            _ => Err("a pattern must be a JSON object".into()),
        }
    }

    pub fn matches(&self, record: &Value) -> bool {
        fields_match(&self.0, &[record])
    }
}

fn fields(map: Map<String, Value>) -> Result<Fields, String> {
    map.into_iter()
        .map(|(key, value)| {
            let node = match value {
                Value::Object(inner) => Node::Fields(fields(inner)?),
                Value::Array(list) if list.is_empty() => {
                    return Err(format!("{key}: an empty list matches nothing"));
                }
                Value::Array(list) => Node::Matchers(
                    list.into_iter()
                        .map(matcher)
                        .collect::<Result<_, _>>()
                        .map_err(|e| format!("{key}: {e}"))?,
                ),
                other => {
                    return Err(format!(
                        "{key}: expected an object or a list of matchers, found {other}"
                    ));
                }
            };
            Ok((key, node))
        })
        .collect()
}

fn matcher(value: Value) -> Result<Matcher, String> {
    let Value::Object(map) = value else {
        return Ok(Matcher::Equals(value));
    };
    let mut entries = map.into_iter();
    let (Some((op, arg)), None) = (entries.next(), entries.next()) else {
        return Err("a matcher object must have exactly one key".into());
    };
    let string = |arg: Value| match arg {
        Value::String(s) => Ok(s),
        other => Err(format!("{op} expects a string, found {other}")),
    };
    Ok(match op.as_str() {
        "prefix" => Matcher::Prefix(string(arg)?),
        "suffix" => Matcher::Suffix(string(arg)?),
        "equals-ignore-case" => Matcher::EqualsIgnoreCase(string(arg)?),
        "exists" => match arg {
            Value::Bool(b) => Matcher::Exists(b),
            other => return Err(format!("exists expects true or false, found {other}")),
        },
        "numeric" => Matcher::Numeric(numeric(arg)?),
        "anything-but" => match arg {
            Value::Array(list) if list.is_empty() => {
                return Err("anything-but needs at least one value".into());
            }
            Value::Array(list) if list.iter().all(is_scalar) => Matcher::AnythingBut(list),
            Value::Object(inner) => match inner.get("prefix") {
                Some(Value::String(p)) if inner.len() == 1 => Matcher::AnythingButPrefix(p.clone()),
                _ => {
                    return Err(
                        "anything-but accepts only {\"prefix\": \"..\"} as an object".into(),
                    );
                }
            },
            scalar if is_scalar(&scalar) => Matcher::AnythingBut(vec![scalar]),
            other => return Err(format!("anything-but: unsupported value {other}")),
        },
        other => return Err(format!("unsupported matcher {other:?}")),
    })
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

fn numeric(arg: Value) -> Result<Vec<(Comparison, f64)>, String> {
    let Value::Array(list) = arg else {
        return Err("numeric expects a list like [\">\", 0, \"<=\", 5]".into());
    };
    if list.is_empty() || list.len() % 2 != 0 {
        return Err("numeric expects operator and number pairs".into());
    }
    list.chunks(2)
        .map(|pair| {
            let op = match pair[0].as_str() {
                Some("=") => Comparison::Eq,
                Some("<") => Comparison::Lt,
                Some("<=") => Comparison::Le,
                Some(">") => Comparison::Gt,
                Some(">=") => Comparison::Ge,
                _ => return Err(format!("numeric: unknown operator {}", pair[0])),
            };
            let n = pair[1]
                .as_f64()
                .ok_or_else(|| format!("numeric: {} is not a number", pair[1]))?;
            Ok((op, n))
        })
        .collect()
}

/// Matches `fields` against every candidate object at this level (several when the record had
/// an array here): each key is looked up across all of them, as EventBridge flattens arrays.
fn fields_match(fields: &Fields, candidates: &[&Value]) -> bool {
    fields.iter().all(|(key, node)| {
        let mut values = Vec::new();
        for candidate in candidates {
            if let Some(v) = candidate.as_object().and_then(|o| o.get(key)) {
                flatten(v, &mut values);
            }
        }
        match node {
            Node::Fields(inner) => fields_match(inner, &values),
            Node::Matchers(matchers) => {
                // `exists` and the others only see leaves: an object is not a value.
                let leaves: Vec<&Value> = values.into_iter().filter(|v| !v.is_object()).collect();
                matchers.iter().any(|m| m.matches(&leaves))
            }
        }
    })
}

fn flatten<'a>(value: &'a Value, out: &mut Vec<&'a Value>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| flatten(v, out)),
        other => out.push(other),
    }
}

impl Matcher {
    fn matches(&self, leaves: &[&Value]) -> bool {
        match self {
            Matcher::Exists(wanted) => leaves.is_empty() != *wanted,
            _ => leaves.iter().any(|v| self.matches_value(v)),
        }
    }

    fn matches_value(&self, v: &Value) -> bool {
        match self {
            Matcher::Equals(expected) => same(expected, v),
            Matcher::Prefix(p) => v.as_str().is_some_and(|s| s.starts_with(p.as_str())),
            Matcher::Suffix(p) => v.as_str().is_some_and(|s| s.ends_with(p.as_str())),
            Matcher::EqualsIgnoreCase(p) => v
                .as_str()
                .is_some_and(|s| s.to_lowercase() == p.to_lowercase()),
            Matcher::AnythingBut(list) => !list.iter().any(|x| same(x, v)),
            Matcher::AnythingButPrefix(p) => v.as_str().is_some_and(|s| !s.starts_with(p.as_str())),
            Matcher::Numeric(conditions) => v.as_f64().is_some_and(|n| {
                conditions.iter().all(|(op, bound)| match op {
                    Comparison::Eq => n == *bound,
                    Comparison::Lt => n < *bound,
                    Comparison::Le => n <= *bound,
                    Comparison::Gt => n > *bound,
                    Comparison::Ge => n >= *bound,
                })
            }),
            Matcher::Exists(_) => false,
        }
    }
}

/// Equality where numbers compare by value (`5` matches `5.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// A JSON value where an object's repeated key merges, rather than replaces, the earlier one:
/// AWS documents `{"dynamodb": {"NewImage": ..}, "dynamodb": {"OldImage": ..}}` as an AND.
struct Merged(Value);

impl<'de> Deserialize<'de> for Merged {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Merged, D::Error> {
        d.deserialize_any(MergedVisitor).map(Merged)
    }
}

struct MergedVisitor;

impl<'de> Visitor<'de> for MergedVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("not a finite number"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Merged(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some((key, Merged(value))) = map.next_entry::<String, Merged>()? {
            merge_into(&mut out, key, value).map_err(de::Error::custom)?;
        }
        Ok(Value::Object(out))
    }
}

fn merge_into(map: &mut Map<String, Value>, key: String, value: Value) -> Result<(), String> {
    match (map.get_mut(&key), value) {
        (None, value) => {
            map.insert(key, value);
            Ok(())
        }
        (Some(Value::Object(existing)), Value::Object(more)) => {
            for (k, v) in more {
                merge_into(existing, k, v)?;
            }
            Ok(())
        }
        (Some(_), _) => Err(format!(
            "key {key:?} is repeated with a value that is not an object"
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(event_name: &str, new: Value, old: Value) -> Value {
        let mut dynamodb = json!({
            "ApproximateCreationDateTime": 1700000000,
            "Keys": {"PK": {"S": "P#1"}, "SK": {"S": "S#1"}},
            "SequenceNumber": "100",
            "SizeBytes": 26,
            "StreamViewType": "NEW_AND_OLD_IMAGES"
        });
        if !new.is_null() {
            dynamodb["NewImage"] = new;
        }
        if !old.is_null() {
            dynamodb["OldImage"] = old;
        }
        json!({
            "eventID": "1",
            "eventName": event_name,
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": dynamodb
        })
    }

    fn review(rating: &str) -> Value {
        json!({
            "Type": {"S": "Review"},
            "Rating": {"N": rating},
            "Tags": {"L": [{"S": "fast"}, {"S": "cheap"}]},
            "Verified": {"BOOL": true},
            "Note": {"NULL": true}
        })
    }

    fn matches(pattern: &str, record: &Value) -> bool {
        Pattern::parse(pattern).unwrap().matches(record)
    }

    #[test]
    fn the_templates_review_filters() {
        let filters = Filters::parse(&[
            r#"{"dynamodb": {"NewImage": {"Type": {"S": ["Review"]}}}}"#.into(),
            r#"{"dynamodb": {"OldImage": {"Type": {"S": ["Review"]}}}}"#.into(),
        ])
        .unwrap();
        let customer = json!({"Type": {"S": "Customer"}});
        assert!(filters.matches(&record("INSERT", review("5"), Value::Null)));
        assert!(filters.matches(&record("REMOVE", Value::Null, review("5"))));
        assert!(filters.matches(&record("MODIFY", customer.clone(), review("5"))));
        assert!(!filters.matches(&record("INSERT", customer.clone(), Value::Null)));
        assert!(!filters.matches(&record("REMOVE", Value::Null, customer)));
        assert!(Filters::default().matches(&record("INSERT", Value::Null, Value::Null)));
    }

    #[test]
    fn exact_values_of_every_json_type() {
        let r = record("INSERT", review("5"), Value::Null);
        assert!(matches(r#"{"eventName": ["MODIFY", "INSERT"]}"#, &r));
        assert!(!matches(r#"{"eventName": ["MODIFY"]}"#, &r));
        assert!(matches(r#"{"dynamodb": {"SizeBytes": [26]}}"#, &r));
        assert!(matches(r#"{"dynamodb": {"SizeBytes": [26.0]}}"#, &r));
        assert!(!matches(r#"{"dynamodb": {"SizeBytes": ["26"]}}"#, &r));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"Verified": {"BOOL": [true]}}}}"#,
            &r
        ));
        assert!(!matches(
            r#"{"dynamodb": {"NewImage": {"Verified": {"BOOL": [false]}}}}"#,
            &r
        ));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"Note": {"NULL": [true]}}}}"#,
            &r
        ));
        let with_null = json!({"a": null, "b": ""});
        assert!(matches(r#"{"a": [null]}"#, &with_null));
        assert!(
            !matches(r#"{"c": [null]}"#, &with_null),
            "null is not absence"
        );
        assert!(matches(r#"{"b": [""]}"#, &with_null));
    }

    #[test]
    fn prefix_suffix_and_case() {
        let r = record("INSERT", review("5"), Value::Null);
        assert!(matches(
            r#"{"dynamodb": {"Keys": {"PK": {"S": [{"prefix": "P#"}]}}}}"#,
            &r
        ));
        assert!(!matches(
            r#"{"dynamodb": {"Keys": {"PK": {"S": [{"prefix": "C#"}]}}}}"#,
            &r
        ));
        assert!(matches(
            r##"{"dynamodb": {"Keys": {"SK": {"S": [{"suffix": "#1"}]}}}}"##,
            &r
        ));
        assert!(matches(
            r#"{"eventName": [{"equals-ignore-case": "insert"}]}"#,
            &r
        ));
    }

    #[test]
    fn anything_but() {
        let r = record("INSERT", review("5"), Value::Null);
        assert!(matches(
            r#"{"eventName": [{"anything-but": ["REMOVE", "MODIFY"]}]}"#,
            &r
        ));
        assert!(!matches(
            r#"{"eventName": [{"anything-but": ["INSERT"]}]}"#,
            &r
        ));
        assert!(!matches(
            r#"{"eventName": [{"anything-but": "INSERT"}]}"#,
            &r
        ));
        assert!(matches(
            r#"{"eventName": [{"anything-but": "REMOVE"}]}"#,
            &r
        ));
        assert!(matches(
            r#"{"eventName": [{"anything-but": {"prefix": "REM"}}]}"#,
            &r
        ));
        assert!(!matches(
            r#"{"eventName": [{"anything-but": {"prefix": "INS"}}]}"#,
            &r
        ));
        // Like EventBridge, anything-but needs the field to be there.
        assert!(!matches(r#"{"missing": [{"anything-but": "x"}]}"#, &r));
    }

    #[test]
    fn exists_only_sees_leaves() {
        let r = record("INSERT", review("5"), Value::Null);
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"Type": {"S": [{"exists": true}]}}}}"#,
            &r
        ));
        assert!(matches(
            r#"{"dynamodb": {"OldImage": {"Type": {"S": [{"exists": false}]}}}}"#,
            &r
        ));
        assert!(!matches(
            r#"{"dynamodb": {"NewImage": {"Type": {"S": [{"exists": false}]}}}}"#,
            &r
        ));
        // As AWS documents: an intermediate node never "exists"; reach a leaf through the list.
        assert!(!matches(
            r#"{"dynamodb": {"NewImage": {"Tags": [{"exists": true}]}}}"#,
            &r
        ));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"Tags": {"L": {"S": [{"exists": true}]}}}}}"#,
            &r
        ));
        // A value or absence.
        let pattern =
            r#"{"dynamodb": {"OldImage": {"Type": {"S": ["Review", {"exists": false}]}}}}"#;
        assert!(matches(pattern, &r));
        assert!(matches(
            pattern,
            &record("REMOVE", Value::Null, review("1"))
        ));
        let other = record("REMOVE", Value::Null, json!({"Type": {"S": "Order"}}));
        assert!(!matches(pattern, &other));
    }

    #[test]
    fn numeric_ranges_on_json_numbers_only() {
        let r = record("INSERT", review("5"), Value::Null);
        assert!(matches(
            r#"{"dynamodb": {"SizeBytes": [{"numeric": [">", 0, "<=", 26]}]}}"#,
            &r
        ));
        assert!(!matches(
            r#"{"dynamodb": {"SizeBytes": [{"numeric": [">", 0, "<", 26]}]}}"#,
            &r
        ));
        assert!(matches(
            r#"{"dynamodb": {"SizeBytes": [{"numeric": ["=", 26]}]}}"#,
            &r
        ));
        assert!(matches(
            r#"{"dynamodb": {"SizeBytes": [{"numeric": [">=", 26.0]}]}}"#,
            &r
        ));
        // DynamoDB numbers are strings in the record: AWS does not match them numerically either.
        assert!(!matches(
            r#"{"dynamodb": {"NewImage": {"Rating": {"N": [{"numeric": [">", 0]}]}}}}"#,
            &r
        ));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"Rating": {"N": ["5"]}}}}"#,
            &r
        ));
    }

    #[test]
    fn arrays_in_the_record_match_any_element() {
        let r = record("INSERT", review("5"), Value::Null);
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"Tags": {"L": {"S": ["cheap"]}}}}}"#,
            &r
        ));
        assert!(!matches(
            r#"{"dynamodb": {"NewImage": {"Tags": {"L": {"S": ["slow"]}}}}}"#,
            &r
        ));
        let sets = json!({"dynamodb": {"NewImage": {"Colors": {"SS": ["red", "blue"]}}}});
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"Colors": {"SS": ["blue"]}}}}"#,
            &sets
        ));
    }

    #[test]
    fn nested_objects_need_every_key_and_mixed_lists_any_matcher() {
        let r = record(
            "MODIFY",
            review("5"),
            json!({"Type": {"S": "Review"}, "Rating": {"N": "3"}}),
        );
        let both = r#"{"eventName": ["MODIFY"], "dynamodb": {"NewImage": {"Type": {"S": ["Review"]}},
                        "OldImage": {"Rating": {"N": ["3"]}}}}"#;
        assert!(matches(both, &r));
        let one_wrong = r#"{"eventName": ["MODIFY"], "dynamodb": {"NewImage": {"Type": {"S": ["Review"]}},
                        "OldImage": {"Rating": {"N": ["4"]}}}}"#;
        assert!(!matches(one_wrong, &r));
        let mixed = r#"{"dynamodb": {"NewImage": {"Type": {"S": ["Order", {"prefix": "Rev"}, {"anything-but": ["x"]}]}}}}"#;
        assert!(matches(mixed, &r));
        assert!(matches(r#"{}"#, &r), "an empty pattern matches everything");
    }

    #[test]
    fn a_repeated_key_is_an_and_as_aws_documents() {
        let p = r#"{ "dynamodb" : { "NewImage" : { "Type" : { "S" : [ "Review" ] } } } ,
                     "dynamodb" : { "OldImage" : { "Rating" : { "N" : [ "3" ] } } } }"#;
        let yes = record("MODIFY", review("5"), json!({"Rating": {"N": "3"}}));
        let no = record("MODIFY", review("5"), json!({"Rating": {"N": "4"}}));
        assert!(matches(p, &yes));
        assert!(!matches(p, &no));
        assert!(Pattern::parse(r#"{"a": ["x"], "a": ["y"]}"#).is_err());
    }

    #[test]
    fn invalid_patterns_are_refused() {
        for bad in [
            "not json",
            r#"["x"]"#,
            r#"{"a": "x"}"#,
            r#"{"a": []}"#,
            r#"{"a": [{"prefix": 1}]}"#,
            r#"{"a": [{"numeric": [">"]}]}"#,
            r#"{"a": [{"numeric": ["~", 1]}]}"#,
            r#"{"a": [{"exists": "yes"}]}"#,
            r#"{"a": [{"wildcard": "x*"}]}"#,
            r#"{"a": [{"prefix": "x", "suffix": "y"}]}"#,
            r#"{"a": [{"anything-but": []}]}"#,
        ] {
            assert!(Pattern::parse(bad).is_err(), "{bad} should be refused");
        }
        let err = Filters::parse(&["{}".into(), r#"{"a": 1}"#.into()]).unwrap_err();
        assert!(err.contains(r#"{"a": 1}"#), "{err}");
    }
}
