//! Items as maps of attribute values, and the few conversions every context needs.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use keys::{Key, attr};
use serde::{Serialize, de::DeserializeOwned};

use crate::StoreError;

pub type Item = HashMap<String, AttributeValue>;

pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// The `PK`/`SK` map of a primary key.
pub fn key_map(key: &Key) -> Item {
    HashMap::from([
        (attr::PK.to_owned(), s(&key.pk)),
        (attr::SK.to_owned(), s(&key.sk)),
    ])
}

/// An entity record plus its keys and `Type`: the full item to write.
pub fn item_of<T: Serialize>(key: &Key, type_name: &str, record: &T) -> Result<Item, StoreError> {
    let mut item: Item = serde_dynamo::to_item(record)?;
    item.extend(key_map(key));
    item.insert(attr::TYPE.to_owned(), s(type_name));
    Ok(item)
}

/// Adds index keys to an item.
pub fn with_index(mut item: Item, pk_attr: &str, sk_attr: &str, key: &Key) -> Item {
    item.insert(pk_attr.to_owned(), s(&key.pk));
    item.insert(sk_attr.to_owned(), s(&key.sk));
    item
}

/// Reads a record back; keys and `Type` are ignored by the record types.
pub fn record_of<T: DeserializeOwned>(item: Item) -> Result<T, StoreError> {
    Ok(serde_dynamo::from_item(item)?)
}

/// A string attribute, if present.
pub fn get_s<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// The `Type` attribute: how a heterogeneous collection is decoded (seed 000).
pub fn type_of(item: &Item) -> Option<&str> {
    get_s(item, attr::TYPE)
}

/// The string-only key attributes of a `LastEvaluatedKey`.
pub fn string_map(item: &Item) -> Option<std::collections::BTreeMap<String, String>> {
    item.iter()
        .map(|(k, v)| v.as_s().ok().map(|s| (k.clone(), s.clone())))
        .collect()
}

/// Upserts `ADD Version 1`: a returned `Version` of 1 means this call created the item (201, not
/// 200).
pub fn created_by_this_call(item: &Item) -> bool {
    item.get("Version")
        .and_then(|v| v.as_n().ok())
        .map(String::as_str)
        == Some("1")
}
