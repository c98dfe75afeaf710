//! Key design for the single table.
//!
//! Every `PK`, `SK`, `GSI1PK`, `GSI1SK`, `GSI2PK` and `GSI2SK` string in the project is made
//! here, from typed values, by one builder ([`Composite`]). Every key shape is declared once, in
//! its context's module, as the builder function it makes (`BOOK # {isbn} / BOOK # {isbn}`); the
//! registry ([`registry`]) gathers those declarations and proves no entity's keys can reach
//! another's, and `docs/keys.md` is rendered from them.
//!
//! The rules, after Good's data-modeling post and Walch's talk:
//! - keys are typed by where they live ([`PrimaryKey`], [`Gsi1Key`], [`Gsi2Key`]): a key for one
//!   index cannot be used on another;
//! - every entity key starts with a static tag (`CUSTOMER`, `ORDER`, ...) or, for the unprefixed
//!   course keys of Walch's talk, is lower-case text without a delimiter, which no tagged key is;
//! - `#` is the delimiter; identifiers ([`Id`]) may not contain it (rejected), free text
//!   ([`Text`]) is normalised and escaped so it never does;
//! - numbers are zero padded to a fixed width (a wider number is an error), dates are written
//!   broad to narrow (`2022/03/15`), ids are time-sortable ULIDs: string order is value order;
//! - a partial key for `begins_with` always ends on a delimiter, so `jackson` never reaches
//!   `jacksonville`;
//! - an entity's version can be part of its keys ([`Version`]), and the shard of a sharded key
//!   is chosen next to that key, for writers, readers and reconcile alike.

mod composite;
mod error;
mod segment;
mod shard;
mod sortable;
mod space;
mod value;

pub mod commerce;
pub mod derived;
pub mod hr;
pub mod indexes;
pub mod learning;
pub mod multi;
pub mod registry;
pub mod reviews;
pub mod schema;
pub mod shape;
pub mod unicode;

pub use composite::{Composite, Segment};
pub use error::KeyError;
pub use multi::{
    AttrType, Index, IndexCondition, IndexDeclaration, IndexKey, KeyAttribute, KeyValue,
    Projection, SortOp,
};
pub use segment::{Id, Name, Text, escape, normalize, unescape};
pub use segment::{MAX_ID_LEN, MAX_TEXT_LEN};
pub use shard::{Shard, code_point_shard, code_point_weight, shard_count};
pub use sortable::SortableId;
pub use space::{
    Base, Gsi1, Gsi1Key, Gsi2, Gsi2Key, Key, KeyCondition, KeySpace, PrimaryKey, SortCondition,
    Space, attr, index,
};
pub use value::{Date, Quarter, Timestamp, Version, iso_timestamp, now_ms, pad};

/// The delimiter between the attributes of a composite key.
pub const DELIMITER: char = '#';

/// Serde for a type whose text form is its `Display` and whose parser validates: an item or a
/// JSON body with an invalid value does not deserialise.
#[macro_export]
macro_rules! serde_as_string {
    ($ty:ty, $parse:expr) => {
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                ($parse)(&s).map_err(serde::de::Error::custom)
            }
        }
    };
}
