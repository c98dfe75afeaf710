//! A JSON body read into a [`Value`] with every object's member names checked unique.
//!
//! `serde_json` keeps the last of two members of the same name (`{"quantity": 1, "quantity":
//! 1000}` is a quantity of 1000 here, of 1 to a parser that keeps the first, which a proxy or an
//! audit log in front of us may be): a body read two ways is refused, 400 `duplicate_field`.

use crate::Common;
use std::{cell::RefCell, fmt};

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::ApiError;

/// The body as JSON: 400 `invalid_json` when it is not JSON, `duplicate_field` (naming the
/// member, as `items[0].sku`) when an object names a member twice.
pub(super) fn parse(bytes: &[u8]) -> Result<Value, ApiError> {
    let duplicate = RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let parsed = Unique {
        at: String::new(),
        duplicate: &duplicate,
    }
    .deserialize(&mut reader)
    .and_then(|value| reader.end().map(|()| value));
    parsed.map_err(|e| match duplicate.into_inner() {
        Some(field) => Common::DuplicateField
            .because(format!("{field} is given twice in the body; give it once.")),
        None => Common::InvalidJson.because(format!("The body is not valid JSON: {e}")),
    })
}

/// Reads one value at `at` (a path such as `items[0]`); records the first duplicate it meets.
struct Unique<'d> {
    at: String,
    duplicate: &'d RefCell<Option<String>>,
}

impl Unique<'_> {
    fn member(&self, name: &str) -> String {
        if self.at.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.at)
        }
    }
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
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
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Unique {
            at: format!("{}[{}]", self.at, items.len()),
            duplicate: self.duplicate,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            let at = self.member(&name);
            if members.contains_key(&name) {
                *self.duplicate.borrow_mut() = Some(at);
                return Err(A::Error::custom("a member named twice"));
            }
            let value = map.next_value_seed(Unique {
                at,
                duplicate: self.duplicate,
            })?;
            members.insert(name, value);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_named_twice_is_refused_with_its_path() {
        let refused = |body: &str| parse(body.as_bytes()).unwrap_err();
        let e = refused(r#"{"quantity": 1, "quantity": 1000}"#);
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                "duplicate_field",
                "quantity is given twice in the body; give it once."
            )
        );
        let e = refused(r#"{"items": [{"sku": 1}, {"sku": 2, "quantity": 1, "sku": 3}]}"#);
        assert_eq!(e.code, "duplicate_field");
        assert!(e.message.starts_with("items[1].sku "), "{}", e.message);
        assert_eq!(refused(r#"{"a": 1,}"#).code, "invalid_json");
        assert_eq!(refused(r#"{"a": 1} x"#).code, "invalid_json");
    }

    #[test]
    fn what_is_unique_reads_as_serde_json_reads_it() {
        let body = r#"{"a": [1, -2, 1.5, "x", null, true, {"b": {}}], "c": "\u00e9\ud83d\ude00"}"#;
        let expected: Value = serde_json::from_str(body).unwrap();
        assert_eq!(parse(body.as_bytes()).unwrap(), expected);
    }
}
