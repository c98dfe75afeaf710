//! Where a key lives: the table itself or one of its global secondary indexes.
//!
//! A key is typed by its space, so a GSI1 key cannot be written into GSI2's attributes or used to
//! query the table: `Key<Gsi1>` and `Key<Gsi2>` are different types, and each space carries its
//! index name and attribute names (as `template.yaml` declares them).

use std::{fmt, hash::Hash};

/// Attribute names of the table's and indexes' keys, as `template.yaml` declares them.
pub mod attr {
    pub const PK: &str = "PK";
    pub const SK: &str = "SK";
    pub const GSI1PK: &str = "GSI1PK";
    pub const GSI1SK: &str = "GSI1SK";
    pub const GSI2PK: &str = "GSI2PK";
    pub const GSI2SK: &str = "GSI2SK";
}

/// Index names, as `template.yaml` declares them.
pub mod index {
    pub const GSI1: &str = "GSI1";
    pub const GSI2: &str = "GSI2";
}

/// A key space: the base table or one index.
pub trait KeySpace:
    Copy + Clone + fmt::Debug + Default + PartialEq + Eq + Hash + PartialOrd + Ord + 'static
{
    /// The index a Query names; `None` for the table.
    const INDEX: Option<&'static str>;
    /// The partition key attribute.
    const PK: &'static str;
    /// The sort key attribute.
    const SK: &'static str;
    /// The space as a value, for registries and messages.
    const SPACE: Space;
}

/// The key spaces as values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    Base,
    Gsi1,
    Gsi2,
}

impl Space {
    pub const ALL: [Space; 3] = [Space::Base, Space::Gsi1, Space::Gsi2];

    pub fn index(self) -> Option<&'static str> {
        match self {
            Space::Base => Base::INDEX,
            Space::Gsi1 => Gsi1::INDEX,
            Space::Gsi2 => Gsi2::INDEX,
        }
    }

    pub fn attributes(self) -> (&'static str, &'static str) {
        match self {
            Space::Base => (Base::PK, Base::SK),
            Space::Gsi1 => (Gsi1::PK, Gsi1::SK),
            Space::Gsi2 => (Gsi2::PK, Gsi2::SK),
        }
    }
}

/// The base table: `PK`, `SK`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Base;

/// GSI1: `GSI1PK`, `GSI1SK`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gsi1;

/// GSI2: `GSI2PK`, `GSI2SK`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gsi2;

impl KeySpace for Base {
    const INDEX: Option<&'static str> = None;
    const PK: &'static str = attr::PK;
    const SK: &'static str = attr::SK;
    const SPACE: Space = Space::Base;
}

impl KeySpace for Gsi1 {
    const INDEX: Option<&'static str> = Some(index::GSI1);
    const PK: &'static str = attr::GSI1PK;
    const SK: &'static str = attr::GSI1SK;
    const SPACE: Space = Space::Gsi1;
}

impl KeySpace for Gsi2 {
    const INDEX: Option<&'static str> = Some(index::GSI2);
    const PK: &'static str = attr::GSI2PK;
    const SK: &'static str = attr::GSI2SK;
    const SPACE: Space = Space::Gsi2;
}

/// A full key in space `S`. Made only by this crate's builders (the fields are private), so
/// every key string in the project has one origin.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key<S> {
    pk: String,
    sk: String,
    space: S,
}

/// A key of the base table.
pub type PrimaryKey = Key<Base>;
/// A key of GSI1.
pub type Gsi1Key = Key<Gsi1>;
/// A key of GSI2.
pub type Gsi2Key = Key<Gsi2>;

impl<S: KeySpace> Key<S> {
    pub(crate) fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        Key {
            pk: pk.into(),
            sk: sk.into(),
            space: S::default(),
        }
    }

    pub fn pk(&self) -> &str {
        &self.pk
    }

    pub fn sk(&self) -> &str {
        &self.sk
    }

    /// The two strings, for writing them.
    pub fn into_parts(self) -> (String, String) {
        (self.pk, self.sk)
    }
}

impl<S: KeySpace> fmt::Display for Key<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} {} = {:?}, {} = {:?}",
            S::SPACE,
            S::PK,
            self.pk,
            S::SK,
            self.sk
        )
    }
}

/// A sort-key condition of a Query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortCondition {
    /// The whole partition.
    All,
    Eq(String),
    /// A partial key: always whole attributes, ending on a delimiter (or, for the partial location
    /// of Walch's talk, inside the last attribute: see [`crate::Composite::build_with_partial`]).
    BeginsWith(String),
    /// Both ends included.
    Between(String, String),
    /// `SK <= value`: reading backwards from an entity's own record.
    AtMost(String),
    /// `SK >= value`: everything from a point on (H6: hired since a date).
    AtLeast(String),
}

impl SortCondition {
    pub fn matches(&self, sk: &str) -> bool {
        match self {
            SortCondition::All => true,
            SortCondition::Eq(v) => sk == v,
            SortCondition::BeginsWith(p) => sk.starts_with(p.as_str()),
            SortCondition::Between(lo, hi) => lo.as_str() <= sk && sk <= hi.as_str(),
            SortCondition::AtMost(v) => sk <= v.as_str(),
            SortCondition::AtLeast(v) => sk >= v.as_str(),
        }
    }
}

/// A Query's key condition in space `S`: the partition and a sort-key condition. Made only by
/// this crate's builders, next to the keys they select.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCondition<S> {
    pk: String,
    sk: SortCondition,
    space: S,
}

impl<S: KeySpace> KeyCondition<S> {
    pub(crate) fn new(pk: impl Into<String>, sk: SortCondition) -> Self {
        KeyCondition {
            pk: pk.into(),
            sk,
            space: S::default(),
        }
    }

    pub fn pk(&self) -> &str {
        &self.pk
    }

    pub fn sort(&self) -> &SortCondition {
        &self.sk
    }

    /// Whether DynamoDB would select `key` with this condition.
    pub fn matches(&self, key: &Key<S>) -> bool {
        key.pk == self.pk && self.sk.matches(&key.sk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_carry_their_index_and_attribute_names() {
        assert_eq!(Space::Base.index(), None);
        assert_eq!(Space::Gsi1.index(), Some("GSI1"));
        assert_eq!(Space::Gsi2.attributes(), ("GSI2PK", "GSI2SK"));
        let k: Gsi1Key = Key::new("USER#frodo", "USER#frodo");
        assert_eq!((k.pk(), k.sk()), ("USER#frodo", "USER#frodo"));
    }

    #[test]
    fn conditions_select_as_dynamodb_does() {
        let key: PrimaryKey = Key::new("CUSTOMER#1", "#ORDER#X");
        let c = |sk| KeyCondition::<Base>::new("CUSTOMER#1", sk);
        assert!(c(SortCondition::All).matches(&key));
        assert!(c(SortCondition::BeginsWith("#ORDER#".into())).matches(&key));
        assert!(c(SortCondition::Between("#ORDER#".into(), "A".into())).matches(&key));
        assert!(c(SortCondition::AtMost("A".into())).matches(&key));
        assert!(c(SortCondition::AtLeast("#ORDER#".into())).matches(&key));
        assert!(!c(SortCondition::AtLeast("A".into())).matches(&key));
        assert!(!c(SortCondition::Eq("A".into())).matches(&key));
        assert!(!KeyCondition::<Base>::new("CUSTOMER#2", SortCondition::All).matches(&key));
    }
}
