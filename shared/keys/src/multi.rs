//! Multi-attribute keys of global secondary indexes (DynamoDB, November 2025).
//!
//! A GSI's partition key may be up to four attributes and its sort key up to four more, each
//! keeping its own type (`S` or `N`: numbers sort as numbers). A Query names every partition
//! attribute with `=`, then sort attributes left to right with no gap; only the last one it names
//! may take a range or `begins_with` (strings only). An item missing any of the key attributes is
//! not in the index: membership is presence, so such an index is sparse by construction.
//!
//! Nothing here is concatenated, padded or escaped: each attribute holds its own value.
//!
//! An index is declared once, as a type implementing [`Index`]: its partition and sort attributes
//! as tuples of [`Attribute`] types, each naming its attribute and the Rust type of its values
//! ([`AttrValue`]: which says `S` or `N`). The runtime [`IndexDeclaration`] (what `template.yaml`
//! must declare) is derived from those tuples. Key conditions are built from typed values by a
//! type-state builder ([`Index::key`], [`Condition`]): every partition value is one argument,
//! [`Condition::eq`] moves to the next sort attribute, a range or `begins_with` ends the chain.
//! What DynamoDB refuses does not compile:
//!
//! ```
//! use keys::{Index, Text, learning::Location, indexes::*};
//! let course = CourseKey(Text::parse("course", "Intro to DynamoDB").unwrap());
//! let l6 = OccurrencesByDate::key((course,))
//!     .eq(Year(2022))
//!     .eq(Month::new(3).unwrap())
//!     .eq(Day::new(15).unwrap())
//!     .begins_with(LocationKey(Location::parse("build").unwrap()));
//! assert_eq!(l6.sort().len(), 4);
//! ```
//!
//! A partition attribute missing (the partition is one tuple of all its values):
//! ```compile_fail
//! use keys::{Index, indexes::*};
//! let c = CustomerOrdersByStatus::key((CustomerId(keys::Id::parse("c", "1").unwrap()),)).build();
//! ```
//! A gap in the sort attributes (after the year comes the month, not the day):
//! ```compile_fail
//! use keys::{Index, Text, indexes::*};
//! let course = CourseKey(Text::parse("course", "Intro to DynamoDB").unwrap());
//! let c = OccurrencesByDate::key((course,)).eq(Year(2022)).eq(Day::new(15).unwrap()).build();
//! ```
//! A condition after a range (the range ends the chain):
//! ```compile_fail
//! use keys::{Index, Text, indexes::*};
//! let course = CourseKey(Text::parse("course", "Intro to DynamoDB").unwrap());
//! let c = OccurrencesByDate::key((course,))
//!     .between(Year(2021), Year(2022))
//!     .ge(Month::new(3).unwrap());
//! ```
//! `begins_with` on a number:
//! ```compile_fail
//! use keys::{Index, Text, indexes::*};
//! let course = CourseKey(Text::parse("course", "Intro to DynamoDB").unwrap());
//! let c = OccurrencesByDate::key((course,)).begins_with(Year(2022));
//! ```
//! A fifth sort attribute (key parts are tuples of one to four attributes):
//! ```compile_fail
//! use keys::{Index, indexes::*};
//! struct TooWide;
//! impl Index for TooWide {
//!     const NAME: &'static str = "TooWide";
//!     type Partition = (CourseKey,);
//!     type Sort = (Year, Month, Day, LocationKey, Year);
//! }
//! ```
//! The same rules hold for conditions made from runtime values ([`IndexCondition::new`]), as a
//! typed [`KeyError`].

use std::{cmp::Ordering, fmt, marker::PhantomData};

use crate::KeyError;

/// DynamoDB's limit: at most four attributes per key part (partition, sort) of a GSI.
pub const MAX_KEY_ATTRIBUTES: usize = 4;

/// A key attribute's DynamoDB type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttrType {
    S,
    N,
}

impl AttrType {
    /// As `AttributeDefinitions` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            AttrType::S => "S",
            AttrType::N => "N",
        }
    }
}

/// One key attribute: its name and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyAttribute {
    pub name: &'static str,
    pub ty: AttrType,
}

/// What an index holds of each of its items beside the keys: a reader of a `KeysOnly` index
/// fetches the items it needs from the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Projection {
    /// Every attribute: each write of an item writes its whole copy into the index.
    All,
    /// The index's key attributes and the table's: a copy of about a hundred bytes.
    KeysOnly,
    /// The keys and these attributes (`NonKeyAttributes`): what the index's reader shows.
    Include(&'static [&'static str]),
}

impl Projection {
    /// As the template's `ProjectionType` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Projection::All => "ALL",
            Projection::KeysOnly => "KEYS_ONLY",
            Projection::Include(_) => "INCLUDE",
        }
    }

    /// The attributes copied beside the keys, with `Include`; none otherwise.
    pub fn non_key_attributes(self) -> &'static [&'static str] {
        match self {
            Projection::Include(attributes) => attributes,
            _ => &[],
        }
    }
}

/// A multi-attribute index as DynamoDB sees it: what `template.yaml` declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexDeclaration {
    pub name: &'static str,
    pub partition: &'static [KeyAttribute],
    /// In order: a Query names them left to right.
    pub sort: &'static [KeyAttribute],
    pub projection: Projection,
}

impl IndexDeclaration {
    /// Every key attribute, partition first.
    pub fn attributes(&self) -> impl Iterator<Item = &'static KeyAttribute> + use<> {
        self.partition.iter().chain(self.sort)
    }

    /// The attribute named `name`, if it is one of the key's.
    pub fn attribute(&self, name: &str) -> Option<&'static KeyAttribute> {
        self.attributes().find(|a| a.name == name)
    }

    /// What DynamoDB would refuse in this declaration: no partition attribute, more than
    /// [`MAX_KEY_ATTRIBUTES`] in a part, or an attribute twice.
    pub fn check(&self) -> Result<(), KeyError> {
        let wrong = |why: String| KeyError::Index {
            index: self.name,
            why,
        };
        if self.partition.is_empty() {
            return Err(wrong("no partition attribute".into()));
        }
        for (part, attrs) in [("partition", self.partition), ("sort", self.sort)] {
            if attrs.len() > MAX_KEY_ATTRIBUTES {
                return Err(wrong(format!(
                    "{} {part} attributes (at most {MAX_KEY_ATTRIBUTES})",
                    attrs.len()
                )));
            }
        }
        let names: Vec<_> = self.attributes().map(|a| a.name).collect();
        if let Some((i, n)) = names
            .iter()
            .enumerate()
            .find(|(i, n)| names[..*i].contains(n))
        {
            return Err(wrong(format!(
                "{n} is key attribute {} and an earlier one",
                i + 1
            )));
        }
        Ok(())
    }

    /// Whether an item is in the index: it carries every key attribute, with its type.
    pub fn holds(&self, typed: impl Fn(&str) -> Option<AttrType>) -> bool {
        self.attributes().all(|a| typed(a.name) == Some(a.ty))
    }
}

/// A key attribute's value. Numbers are integers here (years, months, days, instants in ms).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyValue {
    S(String),
    N(i64),
}

impl KeyValue {
    pub fn ty(&self) -> AttrType {
        match self {
            KeyValue::S(_) => AttrType::S,
            KeyValue::N(_) => AttrType::N,
        }
    }

    /// As DynamoDB orders a key attribute: strings by their UTF-8 bytes, numbers by value.
    /// `None` between two types (an index attribute has one).
    pub fn compare(&self, other: &KeyValue) -> Option<Ordering> {
        match (self, other) {
            (KeyValue::S(a), KeyValue::S(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
            (KeyValue::N(a), KeyValue::N(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }
}

impl fmt::Display for KeyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyValue::S(s) => write!(f, "{s:?}"),
            KeyValue::N(n) => write!(f, "{n}"),
        }
    }
}

/// The condition on one sort attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortOp {
    Eq(KeyValue),
    Lt(KeyValue),
    Le(KeyValue),
    Gt(KeyValue),
    Ge(KeyValue),
    /// Both ends included.
    Between(KeyValue, KeyValue),
    /// Strings only.
    BeginsWith(String),
}

impl SortOp {
    /// The values it names (for their types).
    fn values(&self) -> Vec<KeyValue> {
        match self {
            SortOp::Eq(v) | SortOp::Lt(v) | SortOp::Le(v) | SortOp::Gt(v) | SortOp::Ge(v) => {
                vec![v.clone()]
            }
            SortOp::Between(lo, hi) => vec![lo.clone(), hi.clone()],
            SortOp::BeginsWith(p) => vec![KeyValue::S(p.clone())],
        }
    }

    /// Whether DynamoDB would select a value with this condition.
    pub fn matches(&self, v: &KeyValue) -> bool {
        use Ordering::*;
        let cmp = |w: &KeyValue| v.compare(w);
        match self {
            SortOp::Eq(w) => cmp(w) == Some(Equal),
            SortOp::Lt(w) => cmp(w) == Some(Less),
            SortOp::Le(w) => matches!(cmp(w), Some(Less | Equal)),
            SortOp::Gt(w) => cmp(w) == Some(Greater),
            SortOp::Ge(w) => matches!(cmp(w), Some(Greater | Equal)),
            SortOp::Between(lo, hi) => {
                matches!(cmp(lo), Some(Greater | Equal)) && matches!(cmp(hi), Some(Less | Equal))
            }
            SortOp::BeginsWith(p) => matches!(v, KeyValue::S(s) if s.starts_with(p.as_str())),
        }
    }
}

/// A Query's key condition on a multi-attribute index: every partition attribute `=`, then sort
/// attributes left to right, only the last a range or `begins_with`. Made by the typed builder
/// ([`Index::key`]) or checked by [`IndexCondition::new`]: an `IndexCondition` is always one
/// DynamoDB accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexCondition {
    index: IndexDeclaration,
    partition: Vec<(&'static str, KeyValue)>,
    sort: Vec<(&'static str, SortOp)>,
}

impl IndexCondition {
    /// A condition from runtime values, checked against the declaration: each partition
    /// attribute exactly once, sort attributes in the declared order from the first with no gap,
    /// only the last a range or `begins_with`, `begins_with` on strings, every value of its
    /// attribute's type.
    pub fn new(
        index: IndexDeclaration,
        partition: Vec<(&str, KeyValue)>,
        sort: Vec<(&str, SortOp)>,
    ) -> Result<IndexCondition, KeyError> {
        index.check()?;
        let wrong = |why: String| KeyError::Index {
            index: index.name,
            why,
        };
        let typed = |attr: &KeyAttribute, v: &KeyValue| {
            if v.ty() == attr.ty {
                Ok(())
            } else {
                Err(wrong(format!(
                    "{} is {}, not {}",
                    attr.name,
                    attr.ty.as_str(),
                    v.ty().as_str()
                )))
            }
        };
        let mut given = Vec::with_capacity(partition.len());
        for attr in index.partition {
            let mut values = partition.iter().filter(|(n, _)| *n == attr.name);
            let (Some((_, v)), None) = (values.next(), values.next()) else {
                return Err(wrong(format!(
                    "partition attribute {} must be given once, with =",
                    attr.name
                )));
            };
            typed(attr, v)?;
            given.push((attr.name, v.clone()));
        }
        if let Some((n, _)) = partition
            .iter()
            .find(|(n, _)| !index.partition.iter().any(|a| a.name == *n))
        {
            return Err(wrong(format!("{n} is not a partition attribute")));
        }
        if sort.len() > index.sort.len() {
            return Err(wrong(format!(
                "{} sort conditions on {} sort attributes",
                sort.len(),
                index.sort.len()
            )));
        }
        let mut terms = Vec::with_capacity(sort.len());
        for (i, ((name, op), attr)) in sort.iter().zip(index.sort).enumerate() {
            if *name != attr.name {
                return Err(wrong(format!(
                    "sort attribute {} comes where {} must (left to right, no gap)",
                    name, attr.name
                )));
            }
            if !matches!(op, SortOp::Eq(_)) && i + 1 < sort.len() {
                return Err(wrong(format!(
                    "a range or begins_with on {} must be the last condition",
                    attr.name
                )));
            }
            if matches!(op, SortOp::BeginsWith(_)) && attr.ty != AttrType::S {
                return Err(wrong(format!("begins_with on the number {}", attr.name)));
            }
            for v in op.values() {
                typed(attr, &v)?;
            }
            terms.push((attr.name, op.clone()));
        }
        Ok(IndexCondition {
            index,
            partition: given,
            sort: terms,
        })
    }

    pub fn index(&self) -> &IndexDeclaration {
        &self.index
    }

    /// Every partition attribute and its value, in declared order.
    pub fn partition(&self) -> &[(&'static str, KeyValue)] {
        &self.partition
    }

    /// The sort conditions, left to right.
    pub fn sort(&self) -> &[(&'static str, SortOp)] {
        &self.sort
    }

    /// Whether DynamoDB would select an item whose attributes `value` gives (an item missing a
    /// key attribute is not in the index).
    pub fn matches(&self, value: impl Fn(&str) -> Option<KeyValue>) -> bool {
        let in_index = self
            .index
            .attributes()
            .all(|a| value(a.name).is_some_and(|v| v.ty() == a.ty));
        in_index
            && self
                .partition
                .iter()
                .all(|(n, v)| value(n).as_ref() == Some(v))
            && self
                .sort
                .iter()
                .all(|(n, op)| value(n).is_some_and(|v| op.matches(&v)))
    }
}

/// A full key of a multi-attribute index: every attribute and its value, what an item writes to
/// be in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexKey {
    index: IndexDeclaration,
    attributes: Vec<(&'static str, KeyValue)>,
}

impl IndexKey {
    pub fn index(&self) -> &IndexDeclaration {
        &self.index
    }

    /// Partition attributes first, then sort attributes, in declared order.
    pub fn attributes(&self) -> &[(&'static str, KeyValue)] {
        &self.attributes
    }

    pub fn get(&self, name: &str) -> Option<&KeyValue> {
        self.attributes
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

/// The Rust type of a key attribute's values, and its DynamoDB type.
pub trait AttrValue {
    const TYPE: AttrType;
    fn key_value(&self) -> KeyValue;
}

/// Declares a key attribute: a newtype over the Rust type of its values, its name, its DynamoDB
/// type (`S` or `N`) and how a value becomes a [`KeyValue`] of that type.
///
/// ```
/// keys::key_attribute!(
///     /// A warehouse's code.
///     WarehouseCode(String) = "WarehouseCode", S, |code| code.clone()
/// );
/// ```
#[macro_export]
macro_rules! key_attribute {
    ($(#[$m:meta])* $name:ident($ty:ty) = $attr:expr, $kind:ident, |$v:ident| $value:expr) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name(pub $ty);

        impl $crate::multi::Attribute for $name {
            const NAME: &'static str = $attr;
            type Value = $name;
        }

        impl $crate::multi::AttrValue for $name {
            const TYPE: $crate::multi::AttrType = $crate::multi::AttrType::$kind;
            fn key_value(&self) -> $crate::multi::KeyValue {
                let $v = &self.0;
                $crate::multi::KeyValue::$kind($value)
            }
        }
    };
}

crate::key_attribute!(
    /// An entity's `Type`: a partition attribute where several entities carry an index's other
    /// attributes. Only the entities their contexts name (`EntityType::ORDER_HEADER`).
    EntityType(&'static str) = "Type", S, |t| (*t).to_owned()
);

/// A string value: `begins_with` accepts it.
pub trait StrValue: AttrValue {}

/// A key attribute of an index: its name and the type of its values.
pub trait Attribute: 'static {
    const NAME: &'static str;
    type Value: AttrValue;
    const ATTRIBUTE: KeyAttribute = KeyAttribute {
        name: Self::NAME,
        ty: <Self::Value as AttrValue>::TYPE,
    };
}

/// One to four attributes: a key part. Implemented for tuples `(A,)` to `(A, B, C, D)` only, so
/// a fifth attribute does not compile.
pub trait Attributes: 'static {
    const ATTRIBUTES: &'static [KeyAttribute];
    /// A value for each attribute, as a tuple.
    type Values;
    fn values(values: Self::Values) -> Vec<(&'static str, KeyValue)>;
}

/// Sort attributes that can take one more condition: the first of them, and the rest.
pub trait SortList: Attributes {
    type Head: Attribute;
    type Tail;
}

macro_rules! attributes {
    ($($a:ident $v:ident),+) => {
        impl<$($a: Attribute),+> Attributes for ($($a,)+) {
            const ATTRIBUTES: &'static [KeyAttribute] = &[$($a::ATTRIBUTE),+];
            type Values = ($($a::Value,)+);
            fn values(($($v,)+): Self::Values) -> Vec<(&'static str, KeyValue)> {
                vec![$(($a::NAME, $v.key_value())),+]
            }
        }
    };
}

attributes!(A a);
attributes!(A a, B b);
attributes!(A a, B b, C c);
attributes!(A a, B b, C c, D d);

impl<A: Attribute> SortList for (A,) {
    type Head = A;
    type Tail = ();
}
impl<A: Attribute, B: Attribute> SortList for (A, B) {
    type Head = A;
    type Tail = (B,);
}
impl<A: Attribute, B: Attribute, C: Attribute> SortList for (A, B, C) {
    type Head = A;
    type Tail = (B, C);
}
impl<A: Attribute, B: Attribute, C: Attribute, D: Attribute> SortList for (A, B, C, D) {
    type Head = A;
    type Tail = (B, C, D);
}

/// A multi-attribute index, declared once: its name and its key parts.
pub trait Index: 'static {
    const NAME: &'static str;
    type Partition: Attributes;
    type Sort: Attributes;
    /// What it copies of its items.
    const PROJECTION: Projection = Projection::All;
    /// What `template.yaml` must declare.
    const DECLARATION: IndexDeclaration = IndexDeclaration {
        name: Self::NAME,
        partition: <Self::Partition as Attributes>::ATTRIBUTES,
        sort: <Self::Sort as Attributes>::ATTRIBUTES,
        projection: Self::PROJECTION,
    };

    /// A key condition, from the partition's values (all of them): then [`Condition::eq`] on
    /// sort attributes left to right, a range or `begins_with` last, [`Condition::build`].
    fn key(partition: <Self::Partition as Attributes>::Values) -> Condition<Self, Self::Sort>
    where
        Self: Sized,
    {
        Condition {
            partition: Self::Partition::values(partition),
            sort: Vec::new(),
            state: PhantomData,
        }
    }

    /// The full key an item writes to be in the index.
    fn item_key(
        partition: <Self::Partition as Attributes>::Values,
        sort: <Self::Sort as Attributes>::Values,
    ) -> IndexKey {
        let mut attributes = Self::Partition::values(partition);
        attributes.extend(Self::Sort::values(sort));
        IndexKey {
            index: Self::DECLARATION,
            attributes,
        }
    }
}

/// A key condition being built: `I`'s partition given, `R` the sort attributes still free.
#[must_use = "a condition is used by building it"]
pub struct Condition<I, R> {
    partition: Vec<(&'static str, KeyValue)>,
    sort: Vec<(&'static str, SortOp)>,
    state: PhantomData<fn() -> (I, R)>,
}

impl<I: Index, R> Condition<I, R> {
    /// The condition as it stands (no more sort conditions).
    pub fn build(self) -> IndexCondition {
        IndexCondition {
            index: I::DECLARATION,
            partition: self.partition,
            sort: self.sort,
        }
    }

    fn last(mut self, name: &'static str, op: SortOp) -> IndexCondition {
        self.sort.push((name, op));
        self.build()
    }
}

type Head<R> = <R as SortList>::Head;
type HeadValue<R> = <Head<R> as Attribute>::Value;

impl<I: Index, R: SortList> Condition<I, R> {
    /// The next sort attribute equals `value`; the one after it is next.
    pub fn eq(mut self, value: HeadValue<R>) -> Condition<I, R::Tail> {
        self.sort
            .push((Head::<R>::NAME, SortOp::Eq(value.key_value())));
        Condition {
            partition: self.partition,
            sort: self.sort,
            state: PhantomData,
        }
    }

    /// The next sort attribute from `lo` to `hi`, both included; nothing may follow.
    pub fn between(self, lo: HeadValue<R>, hi: HeadValue<R>) -> IndexCondition {
        let op = SortOp::Between(lo.key_value(), hi.key_value());
        self.last(Head::<R>::NAME, op)
    }

    pub fn lt(self, value: HeadValue<R>) -> IndexCondition {
        self.last(Head::<R>::NAME, SortOp::Lt(value.key_value()))
    }

    pub fn le(self, value: HeadValue<R>) -> IndexCondition {
        self.last(Head::<R>::NAME, SortOp::Le(value.key_value()))
    }

    pub fn gt(self, value: HeadValue<R>) -> IndexCondition {
        self.last(Head::<R>::NAME, SortOp::Gt(value.key_value()))
    }

    pub fn ge(self, value: HeadValue<R>) -> IndexCondition {
        self.last(Head::<R>::NAME, SortOp::Ge(value.key_value()))
    }

    /// The next sort attribute (a string) begins with `prefix`; nothing may follow.
    pub fn begins_with(self, prefix: HeadValue<R>) -> IndexCondition
    where
        HeadValue<R>: StrValue,
    {
        let KeyValue::S(p) = prefix.key_value() else {
            unreachable!("a StrValue is a string")
        };
        self.last(Head::<R>::NAME, SortOp::BeginsWith(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: AttrType = AttrType::S;
    const N: AttrType = AttrType::N;
    const fn a(name: &'static str, ty: AttrType) -> KeyAttribute {
        KeyAttribute { name, ty }
    }
    const DECL: IndexDeclaration = IndexDeclaration {
        name: "ByDate",
        partition: &[a("P", S), a("Q", S)],
        sort: &[a("Y", N), a("M", N), a("L", S)],
        projection: Projection::All,
    };

    fn s(v: &str) -> KeyValue {
        KeyValue::S(v.into())
    }

    #[test]
    fn runtime_conditions_refuse_what_dynamodb_refuses() {
        let p = || vec![("P", s("p")), ("Q", s("q"))];
        let ok = |sort: Vec<(&str, SortOp)>| IndexCondition::new(DECL, p(), sort);
        assert!(ok(vec![]).is_ok());
        assert!(
            ok(vec![
                ("Y", SortOp::Eq(KeyValue::N(2022))),
                ("M", SortOp::Le(KeyValue::N(3)))
            ])
            .is_ok()
        );
        let l = ("L", SortOp::BeginsWith("b".into()));
        let y = ("Y", SortOp::Eq(KeyValue::N(2022)));
        let m = ("M", SortOp::Eq(KeyValue::N(3)));
        assert!(ok(vec![y.clone(), m.clone(), l.clone()]).is_ok());
        let refused = |partition: Vec<(&str, KeyValue)>, sort: Vec<(&str, SortOp)>, says: &str| {
            match IndexCondition::new(DECL, partition, sort) {
                Err(KeyError::Index { index, why }) => {
                    assert_eq!(index, "ByDate");
                    assert!(why.contains(says), "{why:?} should say {says:?}");
                }
                other => panic!("{other:?}"),
            }
        };
        refused(vec![("P", s("p"))], vec![], "Q must be given once");
        refused(
            vec![("P", s("p")), ("Q", s("q")), ("Q", s("r"))],
            vec![],
            "Q must be given once",
        );
        refused(
            vec![("P", s("p")), ("Q", s("q")), ("Y", KeyValue::N(1))],
            vec![],
            "Y is not a partition attribute",
        );
        refused(
            vec![("P", KeyValue::N(1)), ("Q", s("q"))],
            vec![],
            "P is S, not N",
        );
        refused(p(), vec![m.clone()], "M comes where Y must");
        refused(p(), vec![y.clone(), l.clone()], "L comes where M must");
        refused(
            p(),
            vec![("Y", SortOp::Ge(KeyValue::N(2022))), m.clone()],
            "on Y must be the last",
        );
        refused(
            p(),
            vec![("Y", SortOp::BeginsWith("20".into()))],
            "begins_with on the number Y",
        );
        refused(p(), vec![("Y", SortOp::Eq(s("2022")))], "Y is N, not S");
        refused(
            p(),
            vec![y.clone(), m.clone(), l.clone(), l.clone()],
            "4 sort conditions on 3",
        );
    }

    #[test]
    fn declarations_refuse_a_fifth_attribute_and_repeats() {
        assert_eq!(DECL.check(), Ok(()));
        const FIVE: &[KeyAttribute] = &[a("A", S), a("B", S), a("C", S), a("D", S), a("E", S)];
        let five = IndexDeclaration { sort: FIVE, ..DECL };
        assert!(
            matches!(five.check(), Err(KeyError::Index { why, .. }) if why.contains("5 sort attributes"))
        );
        const TWICE: &[KeyAttribute] = &[a("Y", N), a("P", S)];
        let twice = IndexDeclaration {
            sort: TWICE,
            ..DECL
        };
        assert!(twice.check().is_err());
        let none = IndexDeclaration {
            partition: &[],
            ..DECL
        };
        assert!(none.check().is_err());
    }

    #[test]
    fn conditions_select_as_dynamodb_does() {
        let c = IndexCondition::new(
            DECL,
            vec![("P", s("p")), ("Q", s("q"))],
            vec![
                ("Y", SortOp::Eq(KeyValue::N(2022))),
                ("M", SortOp::Between(KeyValue::N(2), KeyValue::N(10))),
            ],
        )
        .unwrap();
        let item = |m: i64, l: Option<&'static str>| {
            move |n: &str| match n {
                "P" => Some(s("p")),
                "Q" => Some(s("q")),
                "Y" => Some(KeyValue::N(2022)),
                "M" => Some(KeyValue::N(m)),
                "L" => l.map(s),
                _ => None,
            }
        };
        // Numbers compare as numbers: 10 is within 2..=10, though "10" < "2" as text.
        assert!(c.matches(item(10, Some("x"))));
        assert!(c.matches(item(2, Some("x"))));
        assert!(!c.matches(item(11, Some("x"))));
        assert!(!c.matches(item(10, None)), "not in the index without L");
        assert!(DECL.holds(|n| item(3, Some("x"))(n).map(|v| v.ty())));
        assert!(!DECL.holds(|n| item(3, None)(n).map(|v| v.ty())));
        let b = SortOp::BeginsWith("ab".into());
        assert!(b.matches(&s("abc")) && !b.matches(&s("a")) && !b.matches(&KeyValue::N(1)));
    }
}
