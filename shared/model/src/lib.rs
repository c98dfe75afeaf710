//! The data model, declared once.
//!
//! One [`Entity`] per item type, per context: its `Type` value, a record with typed fields (the
//! `keys` newtypes, not strings), its attribute names as constants (the [`record!`] macro makes
//! the struct, its serde names and the constants from one list), its primary key and its typed
//! index keys. Items and records convert in one place ([`to_item`], [`from_item`]); attribute
//! names are PascalCase (seed 000's `CustomerId` and `Type`; seed 001's camelCase and seed 003's
//! `CustomerID` renamed to the one convention: docs/seeds.md).
//!
//! Functions, stream handlers, tools and tests name attributes through these constants
//! (`Customer::ORDER_COUNT`), so renaming an attribute is one edit that the compiler follows.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use keys::{Gsi1Key, Gsi2Key, IndexKey, Key, KeySpace, KeyValue, PrimaryKey, Version};
use serde::{Serialize, de::DeserializeOwned};

pub mod commerce;
pub mod counter;
pub mod derived;
pub mod hr;
pub mod learning;
pub mod reviews;

pub use counter::Derived;
pub use keys;

/// An item as the SDK sends and receives it.
pub type Item = HashMap<String, AttributeValue>;

/// Attributes every context shares.
pub mod attr {
    /// Entity type, on every item (Good's data-modeling post).
    pub const TYPE: &str = "Type";
    /// Epoch seconds after which DynamoDB's TTL may delete the item (`template.yaml`'s
    /// `TimeToLiveSpecification`).
    pub const EXPIRES_AT: &str = "ExpiresAt";
    /// How many times an upserted item was written: 1 means this write created it (201, not 200).
    pub const REVISION: &str = "Revision";
}

/// One item type of the table.
pub trait Entity: Serialize + DeserializeOwned {
    /// The `Type` attribute of its items.
    const TYPE: &'static str;
    /// Its version. Written into the keys of entities whose design versions them (Walch's talk:
    /// `cert#01#`), so a later version can coexist with this one during a migration.
    const VERSION: Version = Version::new(1);

    fn key(&self) -> PrimaryKey;

    /// Its GSI1 key, if it is in GSI1.
    fn gsi1(&self) -> Option<Gsi1Key> {
        None
    }

    /// Its GSI2 key, if it is in GSI2.
    fn gsi2(&self) -> Option<Gsi2Key> {
        None
    }

    /// The keys it writes for multi-attribute indexes ([`keys::indexes`]) whose attributes are
    /// not its record's own: each attribute with its type (numbers as `N`).
    fn index_keys(&self) -> Vec<IndexKey> {
        Vec::new()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("item does not fit its record: {0}")]
    Serde(String),
    #[error("expected an item of type {expected}, found {found:?}")]
    WrongType {
        expected: &'static str,
        found: Option<String>,
    },
}

impl From<serde_dynamo::Error> for ModelError {
    fn from(e: serde_dynamo::Error) -> Self {
        ModelError::Serde(e.to_string())
    }
}

pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// A key's two attributes, named for its space (`PK`/`SK`, `GSI1PK`/`GSI1SK`, ...).
pub fn key_item<S: KeySpace>(key: &Key<S>) -> Item {
    HashMap::from([
        (S::PK.to_owned(), s(key.pk())),
        (S::SK.to_owned(), s(key.sk())),
    ])
}

/// A key attribute's value as the SDK writes it: `S` or `N`.
pub fn key_value(v: &KeyValue) -> AttributeValue {
    match v {
        KeyValue::S(text) => s(text.as_str()),
        KeyValue::N(number) => n(number),
    }
}

/// A multi-attribute index key's attributes, each with its type.
pub fn index_key_item(key: &IndexKey) -> Item {
    key.attributes()
        .iter()
        .map(|(name, v)| ((*name).to_owned(), key_value(v)))
        .collect()
}

/// A record's attributes plus its primary key and `Type`.
pub fn item_of<T: Serialize>(
    type_name: &str,
    key: &PrimaryKey,
    record: &T,
) -> Result<Item, ModelError> {
    let mut item: Item = serde_dynamo::to_item(record)?;
    item.extend(key_item(key));
    item.insert(attr::TYPE.to_owned(), s(type_name));
    Ok(item)
}

/// The full item of an entity: its record's attributes, its keys, its `Type`.
pub fn to_item<E: Entity>(entity: &E) -> Result<Item, ModelError> {
    to_item_with_gsi1(entity, true)
}

/// [`to_item`], with its GSI1 key only if `gsi1`: a deployment whose design reads the entity
/// from an index of its own (`IndexDesign`, `OrderStatusKeys`) leaves GSI1's copy out.
pub fn to_item_with_gsi1<E: Entity>(entity: &E, gsi1: bool) -> Result<Item, ModelError> {
    let mut item = item_of(E::TYPE, &entity.key(), entity)?;
    if let Some(k) = entity.gsi1().filter(|_| gsi1) {
        item.extend(key_item(&k));
    }
    if let Some(k) = entity.gsi2() {
        item.extend(key_item(&k));
    }
    for k in entity.index_keys() {
        item.extend(index_key_item(&k));
    }
    Ok(item)
}

/// The `Type` of an item: how a heterogeneous collection is decoded (Good's data-modeling post).
pub fn type_of(item: &Item) -> Option<&str> {
    item.get(attr::TYPE)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// An entity read back: the item must be of its `Type`; keys are ignored.
pub fn from_item<E: Entity>(item: Item) -> Result<E, ModelError> {
    match type_of(&item) {
        Some(t) if t == E::TYPE => Ok(serde_dynamo::from_item(item)?),
        other => Err(ModelError::WrongType {
            expected: E::TYPE,
            found: other.map(str::to_owned),
        }),
    }
}

/// An entity from a stream record's image (DynamoDB JSON, as Lambda delivers it).
pub fn from_image<E: Entity>(image: &serde_dynamo::Item) -> Result<E, ModelError> {
    let found = match image.get(attr::TYPE) {
        Some(serde_dynamo::AttributeValue::S(t)) => Some(t.as_str()),
        _ => None,
    };
    if found != Some(E::TYPE) {
        return Err(ModelError::WrongType {
            expected: E::TYPE,
            found: found.map(str::to_owned),
        });
    }
    Ok(serde_dynamo::from_item(image.clone())?)
}

/// Declares a record: the struct, each field's stored attribute name (serde) and a constant of
/// that name, from one list, so the name is written once.
///
/// ```
/// model::record! {
///     /// A thing.
///     pub struct Thing {
///         thing_id: String => THING_ID = "ThingId",
///     }
/// }
/// assert_eq!(Thing::THING_ID, "ThingId");
/// assert_eq!(Thing::ATTRIBUTES, ["ThingId"]);
/// ```
///
/// Every record's attribute names are checked as it compiles ([`misnamed`]), so no record
/// can be declared unchecked: a record that names an attribute as a key attribute or `Type`, or
/// names one twice, does not build.
///
/// ```compile_fail
/// model::record! {
///     pub struct Shadowing {
///         pk: String => PK = "PK",
///     }
/// }
/// ```
///
/// ```compile_fail
/// model::record! {
///     pub struct Twice {
///         name: String => NAME = "Name",
///         title: String => TITLE = "Name",
///     }
/// }
/// ```
#[macro_export]
macro_rules! record {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$field_meta:meta])*
                $field:ident: $ty:ty => $constant:ident = $attribute:literal,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct $name {
            $(
                $(#[$field_meta])*
                #[serde(rename = $attribute)]
                pub $field: $ty,
            )*
        }

        impl $name {
            $(
                #[doc = concat!("The `", $attribute, "` attribute.")]
                pub const $constant: &'static str = $attribute;
            )*
            /// Every attribute of the record, as stored.
            pub const ATTRIBUTES: &'static [&'static str] = &[$($attribute),*];
        }

        const _: () = if let Some(wrong) = $crate::misnamed($name::ATTRIBUTES) {
            panic!("{}", wrong)
        };
    };
}

/// The attribute names no record may use: the key attributes of every index, and `Type`.
pub const RESERVED: [&str; 7] = [
    keys::attr::PK,
    keys::attr::SK,
    keys::attr::GSI1PK,
    keys::attr::GSI1SK,
    keys::attr::GSI2PK,
    keys::attr::GSI2SK,
    attr::TYPE,
];

/// What is wrong with a record's attribute names, if anything: each must be unique and none
/// [`RESERVED`]. [`record!`] asks it of every record in a constant, so a record breaking the rule
/// fails to compile.
pub const fn misnamed(attributes: &[&str]) -> Option<&'static str> {
    let mut i = 0;
    while i < attributes.len() {
        let mut r = 0;
        while r < RESERVED.len() {
            if same(attributes[i], RESERVED[r]) {
                return Some("a record attribute is named as a key attribute or Type");
            }
            r += 1;
        }
        let mut j = i + 1;
        while j < attributes.len() {
            if same(attributes[i], attributes[j]) {
                return Some("a record names an attribute twice");
            }
            j += 1;
        }
        i += 1;
    }
    None
}

/// String equality in a constant.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record's attribute names: unique, never a key attribute or `Type`. Each record!
    /// checks its own as it compiles, so none is left out (the doc tests of [`record!`] show a
    /// breaking record failing to build); here, that the check holds the rule.
    #[test]
    fn record_attributes_never_shadow_keys_or_type() {
        use keys::attr as k;
        let reserved = [
            k::PK,
            k::SK,
            k::GSI1PK,
            k::GSI1SK,
            k::GSI2PK,
            k::GSI2SK,
            attr::TYPE,
        ];
        assert_eq!(RESERVED, reserved);
        assert_eq!(misnamed(&["CustomerId", "Name", "PKey", "Types"]), None);
        for name in reserved {
            assert!(misnamed(&["Name", name]).is_some(), "{name}");
        }
        assert!(misnamed(&["Name", "Total", "Name"]).is_some(), "Name twice");
        assert_eq!(commerce::Idempotency::EXPIRES_AT, attr::EXPIRES_AT);
    }

    /// An item is in a multi-attribute index when it carries every key attribute with its type:
    /// the entities whose items do are exactly the ones `keys::indexes::MEMBERS` declares (a
    /// certificate, which shares the occurrence's partition, carries none of
    /// `OccurrencesByDate`'s), and the orders indexes use the attribute names the order record
    /// writes.
    #[test]
    fn items_stand_in_exactly_the_multi_attribute_indexes_the_registry_declares() {
        use keys::{
            AttrType, Date, Id, SortableId,
            commerce::OrderStatus,
            indexes,
            learning::{CertType, CertVersion, Course, Location, Name},
        };
        let course = learning::CourseOccurrence {
            course_name: Course::parse("Intro to DynamoDB").unwrap(),
            start_date: Date::parse_iso("2022-03-15").unwrap(),
            location: Location::parse("Building 1").unwrap(),
            course_type: "DevChat".into(),
        };
        let certificate = |v| learning::Certificate {
            cert_name: course.course_name.clone(),
            issued_date: course.start_date,
            location: course.location.clone(),
            student: Name::parse("s", "David Spurdy").unwrap(),
            cert_type: CertType::Completion,
            instructor: Name::parse("i", "Tyler Walch").unwrap(),
            entity_version: v,
        };
        let order = commerce::Order {
            order_id: SortableId::at_ms(1_650_000_000_000),
            customer_id: Id::parse("c", "alice").unwrap(),
            status: OrderStatus::Shipped,
            created_at: keys::Timestamp::from_ms(1_650_000_000_000).unwrap(),
            total: 100,
            item_count: 1,
            event_count: None,
            last_event_id: None,
            account_rep_id: Some(Id::parse("r", "rep1").unwrap()),
            status_shard: None,
            currency: None,
        };
        let (user, isbn) = (
            Id::parse("u", "frodo").unwrap(),
            keys::reviews::Isbn::parse("9780261102354").unwrap(),
        );
        let items = [
            to_item(&course).unwrap(),
            to_item(&certificate(CertVersion::V1)).unwrap(),
            to_item(&certificate(CertVersion::V2)).unwrap(),
            to_item(&commerce::OrderHeader(order.clone())).unwrap(),
            to_item(&commerce::OrderSummary(order)).unwrap(),
            // An inventory carries `OrderLinesByProduct`'s `Sku`, an order line both its keys.
            to_item(&commerce::Inventory {
                sku: keys::commerce::Sku::new(42).unwrap(),
                warehouse_id: Id::parse("w", "W1").unwrap(),
                quantity: 5,
                updated_at: keys::Timestamp::from_ms(1_650_000_000_000).unwrap(),
                version: 1,
            })
            .unwrap(),
            to_item(&commerce::OrderLine {
                order_id: SortableId::at_ms(1_650_000_000_000),
                sku: keys::commerce::Sku::new(42).unwrap(),
                quantity: 2,
                unit_price: 499,
            })
            .unwrap(),
            // A user and a marker carry some of `ReviewsByUser`'s attributes, a review all.
            to_item(&reviews::User {
                username: user.clone(),
                membership_date: course.start_date,
                review_count: Default::default(),
            })
            .unwrap(),
            to_item(&reviews::ReviewMarker {
                username: user.clone(),
                isbn: isbn.clone(),
                review_sk: "2001-08-05T02:46:00.000Z#USER#frodo".into(),
            })
            .unwrap(),
            to_item(&reviews::Book {
                isbn: isbn.clone(),
                title: "T".into(),
                author: "A".into(),
                publication_year: 1954,
                rating_count: Default::default(),
                rating_sum: Default::default(),
            })
            .unwrap(),
            to_item(&reviews::Review {
                isbn,
                username: user,
                grade: 9,
                review_text: "Good.".into(),
                review_date: keys::Timestamp::from_ms(996_979_560_000).unwrap(),
            })
            .unwrap(),
        ];
        for index in indexes::ALL {
            for item in &items {
                let typed = |name: &str| match item.get(name) {
                    Some(AttributeValue::S(_)) => Some(AttrType::S),
                    Some(AttributeValue::N(_)) => Some(AttrType::N),
                    _ => None,
                };
                let entity = type_of(item).unwrap();
                assert_eq!(
                    index.holds(typed),
                    indexes::members(index.name).contains(&entity),
                    "{entity} in {}",
                    index.name
                );
            }
        }
        let occurrence = &items[0];
        assert_eq!(occurrence["CourseKey"], s("introtodynamodb"));
        assert_eq!(occurrence["Year"], n(2022));
        assert_eq!(occurrence["Month"], n(3));
        assert_eq!(occurrence["Day"], n(15));
        assert_eq!(occurrence["LocationKey"], s("building01"));
        let o = commerce::Order::ATTRIBUTES;
        for name in ["CustomerId", "AccountRepId", "Status", "OrderId"] {
            assert!(o.contains(&name), "{name} is the order record's own");
        }
        assert_eq!(
            indexes::EntityType::ORDER_HEADER.0,
            commerce::OrderHeader::TYPE
        );
    }
}
