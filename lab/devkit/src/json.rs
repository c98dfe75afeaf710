//! Items in DynamoDB JSON (`{"PK": {"S": "CUSTOMER#123"}}`), the form NoSQL Workbench imports,
//! the AWS CLI prints, the explorer shows and Lambda's stream events carry: the one writer of it
//! (`lab/local/src/streams/event.rs` converts the DynamoDB Streams SDK's own `AttributeValue` to
//! this crate's and writes its records' images here).

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine;
use serde_json::{Value, json};
use std::collections::HashMap;

/// An item (or key), attributes sorted by name for stable output.
pub fn item(attributes: &HashMap<String, AttributeValue>) -> Value {
    let mut names: Vec<&String> = attributes.keys().collect();
    names.sort();
    Value::Object(
        names
            .into_iter()
            .map(|n| (n.clone(), attribute(&attributes[n])))
            .collect(),
    )
}

/// One attribute value: `{"S": ".."}`, `{"N": ".."}`, binary in base64...
pub fn attribute(value: &AttributeValue) -> Value {
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    match value {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": b64(b.as_ref()) }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(b) => json!({ "NULL": b }),
        AttributeValue::Ss(l) => json!({ "SS": l }),
        AttributeValue::Ns(l) => json!({ "NS": l }),
        AttributeValue::Bs(l) => {
            json!({ "BS": l.iter().map(|b| b64(b.as_ref())).collect::<Vec<_>>() })
        }
        AttributeValue::L(l) => json!({ "L": l.iter().map(attribute).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": item(m) }),
        // A type newer than this SDK.
        _ => Value::Null,
    }
}

/// The type tag of a value (`S`, `N`, `M`...), as Workbench declares attributes.
pub fn type_tag(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        _ => "S",
    }
}

/// An item back from DynamoDB JSON; `None` when it is not an object of typed values.
pub fn parse_item(value: &Value) -> Option<HashMap<String, AttributeValue>> {
    value
        .as_object()?
        .iter()
        .map(|(k, v)| Some((k.clone(), parse_attribute(v)?)))
        .collect()
}

/// One attribute value back from DynamoDB JSON.
pub fn parse_attribute(value: &Value) -> Option<AttributeValue> {
    let (tag, v) = value.as_object().filter(|o| o.len() == 1)?.iter().next()?;
    let strings = |v: &Value| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    let bytes = |s: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .ok()
            .map(aws_sdk_dynamodb::primitives::Blob::new)
    };
    Some(match tag.as_str() {
        "S" => AttributeValue::S(v.as_str()?.to_owned()),
        "N" => AttributeValue::N(v.as_str()?.to_owned()),
        "B" => AttributeValue::B(bytes(v.as_str()?)?),
        "BOOL" => AttributeValue::Bool(v.as_bool()?),
        "NULL" => AttributeValue::Null(v.as_bool()?),
        "SS" => AttributeValue::Ss(strings(v)?),
        "NS" => AttributeValue::Ns(strings(v)?),
        "BS" => AttributeValue::Bs(
            strings(v)?
                .iter()
                .map(|s| bytes(s))
                .collect::<Option<_>>()?,
        ),
        "L" => AttributeValue::L(
            v.as_array()?
                .iter()
                .map(parse_attribute)
                .collect::<Option<_>>()?,
        ),
        "M" => AttributeValue::M(parse_item(v)?),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_value_goes_there_and_back() {
        let item = HashMap::from([
            ("s".to_owned(), AttributeValue::S("CUSTOMER#123".into())),
            ("n".to_owned(), AttributeValue::N("-1.5".into())),
            ("b".to_owned(), AttributeValue::B(vec![0, 255].into())),
            ("t".to_owned(), AttributeValue::Bool(true)),
            ("z".to_owned(), AttributeValue::Null(true)),
            ("ss".to_owned(), AttributeValue::Ss(vec!["a".into()])),
            ("ns".to_owned(), AttributeValue::Ns(vec!["1".into()])),
            ("bs".to_owned(), AttributeValue::Bs(vec![vec![1].into()])),
            (
                "l".to_owned(),
                AttributeValue::L(vec![AttributeValue::N("2".into())]),
            ),
            (
                "m".to_owned(),
                AttributeValue::M(HashMap::from([(
                    "k".to_owned(),
                    AttributeValue::S("v".into()),
                )])),
            ),
        ]);
        let json = super::item(&item);
        assert_eq!(json["s"], json!({"S": "CUSTOMER#123"}));
        assert_eq!(json["b"], json!({"B": "AP8="}));
        assert_eq!(parse_item(&json), Some(item));
        assert_eq!(parse_item(&json!({"a": {"S": 1}})), None);
        assert_eq!(parse_item(&json!({"a": {"S": "x", "N": "1"}})), None);
    }
}
