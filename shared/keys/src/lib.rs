//! Key design for the single table.
//!
//! Every `PK`, `SK`, `GSI1PK`, `GSI1SK`, `GSI2PK` and `GSI2SK` string in the project is made
//! here, from typed values, and parsed back here. Nothing else writes `format!("CUSTOMER#{}")`.
//!
//! The rules, after seeds 000 and 001:
//! - every entity key starts with a static prefix (`CUSTOMER#`, `ORDER#`, ...), so no entity can
//!   fall under another's prefix;
//! - `#` is the delimiter; identifiers ([`Id`]) may not contain it (rejected), free text
//!   ([`Text`]) is normalised and escaped so it never does;
//! - numbers are zero padded to a fixed width (a wider number is an error), dates are written
//!   broad to narrow (`2022/03/15`), ids are time-sortable ULIDs: string order is value order;
//! - a partial key for `begins_with` always ends on a delimiter, so `jackson` never reaches
//!   `jacksonville`.

mod composite;
mod error;
mod segment;
mod shard;
mod sortable;
mod value;

pub mod commerce;
pub mod derived;
pub mod reviews;

pub use composite::Composite;
pub use error::KeyError;
pub use segment::{Id, Text, escape, normalize, unescape};
pub use shard::{Shard, code_point_shard, shard_count};
pub use sortable::SortableId;
pub use value::{Date, iso_timestamp, now_ms, pad};

/// The delimiter between the attributes of a composite key.
pub const DELIMITER: char = '#';

/// Attribute names of the table and its indexes, as `template.yaml` declares them.
pub mod attr {
    pub const PK: &str = "PK";
    pub const SK: &str = "SK";
    pub const GSI1PK: &str = "GSI1PK";
    pub const GSI1SK: &str = "GSI1SK";
    pub const GSI2PK: &str = "GSI2PK";
    pub const GSI2SK: &str = "GSI2SK";
    /// Entity type, on every item (seed 000).
    pub const TYPE: &str = "Type";
    /// Epoch seconds after which DynamoDB's TTL may delete the item.
    pub const EXPIRES_AT: &str = "ExpiresAt";
}

/// Index names, as `template.yaml` declares them.
pub mod index {
    pub const GSI1: &str = "GSI1";
    pub const GSI2: &str = "GSI2";
}

/// A primary key (or an index key: the same two strings, under other attribute names).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub pk: String,
    pub sk: String,
}

impl Key {
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        Key {
            pk: pk.into(),
            sk: sk.into(),
        }
    }
}
