//! The table's multi-attribute indexes ([`crate::multi`]), beside GSI1 and GSI2, declared once.
//!
//! | index | partition | sort | holds |
//! |---|---|---|---|
//! | `OccurrencesByDate` | `CourseKey` S | `Year` N, `Month` N, `Day` N, `LocationKey` S | course occurrences (L2–L6) |
//! | `CustomerOrdersByStatus` | `CustomerId` S, `Type` S | `Status` S, `OrderId` S | order headers and summaries, apart by `Type` (C4 by status) |
//! | `RepOrdersByStatus` | `AccountRepId` S, `Type` S | `Status` S, `OrderId` S | the same, of orders placed under a rep (O10) |
//!
//! Each attribute is a type here, whose value is the typed value it holds (`Year(2022)`,
//! `Status(OrderStatus::Open)`), so a condition names them in order and in type.
//!
//! Course occurrences write the five `OccurrencesByDate` attributes; no other item writes them
//! all (a certificate has none). Order headers and summaries are one record with the same
//! attribute names, which the orders indexes use as they are, so adding those indexes rewrites no
//! item; both entities therefore stand in both indexes, and `Type`, a partition attribute, keeps
//! them apart: a read names the entity it decodes.

use crate::{
    Id, KeyError, Text,
    commerce::{OrderStatus, types as commerce_types},
    learning::{Location, types as learning_types},
    multi::{Index, IndexDeclaration, StrValue},
    unescape,
};

use crate::key_attribute as attribute;

attribute!(
    /// A course's key, as its base partition key writes it (normalised [`Text`]).
    CourseKey(Text) = "CourseKey", S, |t| t.as_key().to_owned()
);
impl StrValue for CourseKey {}

attribute!(
    /// A year, 1 to 9999.
    Year(u16) = "Year", N, |y| i64::from(*y)
);
attribute!(
    /// A month, 1 to 12 ([`Month::new`]).
    Month(u8) = "Month", N, |m| i64::from(*m)
);
attribute!(
    /// A day of the month, 1 to 31 ([`Day::new`]).
    Day(u8) = "Day", N, |d| i64::from(*d)
);
attribute!(
    /// A location as its key normalises it (lower case, numbers padded), not escaped: no
    /// delimiter follows it.
    LocationKey(Location) = "LocationKey", S, |l| unescape(l.as_key()).expect("a location key is escaped text")
);
impl StrValue for LocationKey {}

impl Month {
    pub fn new(month: u8) -> Result<Month, KeyError> {
        (1..=12)
            .contains(&month)
            .then_some(Month(month))
            .ok_or_else(|| KeyError::InvalidDate(format!("month {month}")))
    }
}

impl Day {
    pub fn new(day: u8) -> Result<Day, KeyError> {
        (1..=31)
            .contains(&day)
            .then_some(Day(day))
            .ok_or_else(|| KeyError::InvalidDate(format!("day {day}")))
    }
}

/// A date's three sort attributes.
pub fn ymd(date: crate::Date) -> (Year, Month, Day) {
    let d = date.inner();
    (
        Year(u16::try_from(d.year()).expect("a key date's year is 1 to 9999")),
        Month(u8::from(d.month())),
        Day(d.day()),
    )
}

attribute!(
    /// A customer's id (the order's `CustomerId`).
    CustomerId(Id) = "CustomerId", S, |id| id.as_str().to_owned()
);
impl StrValue for CustomerId {}

attribute!(
    /// An account rep's id (the order's `AccountRepId`, present when placed under a rep).
    AccountRepId(Id) = "AccountRepId", S, |id| id.as_str().to_owned()
);
impl StrValue for AccountRepId {}

attribute!(
    /// An entity's `Type`: a partition attribute where several entities carry an index's other
    /// attributes. Only the entities declared here.
    EntityType(&'static str) = "Type", S, |t| (*t).to_owned()
);

impl EntityType {
    pub const ORDER_HEADER: EntityType = EntityType(commerce_types::ORDER_HEADER);
    pub const ORDER_SUMMARY: EntityType = EntityType(commerce_types::ORDER_SUMMARY);
    pub const COURSE_OCCURRENCE: EntityType = EntityType(learning_types::COURSE_OCCURRENCE);
}

attribute!(
    /// An order's status.
    Status(OrderStatus) = "Status", S, |s| s.as_str().to_owned()
);
impl StrValue for Status {}

attribute!(
    /// An order's id: a ULID, which sorts by time.
    OrderId(crate::commerce::OrderId) = "OrderId", S, |id| id.to_string()
);
impl StrValue for OrderId {}

/// L2–L6: a course's occurrences by date, then location.
pub struct OccurrencesByDate;

impl Index for OccurrencesByDate {
    const NAME: &'static str = "OccurrencesByDate";
    type Partition = (CourseKey,);
    type Sort = (Year, Month, Day, LocationKey);
}

/// C4 by status: a customer's order headers (or summaries) by status, then order id (time).
pub struct CustomerOrdersByStatus;

impl Index for CustomerOrdersByStatus {
    const NAME: &'static str = "CustomerOrdersByStatus";
    type Partition = (CustomerId, EntityType);
    type Sort = (Status, OrderId);
}

/// O10: a rep's order summaries (or headers) by status, then order id (time).
pub struct RepOrdersByStatus;

impl Index for RepOrdersByStatus {
    const NAME: &'static str = "RepOrdersByStatus";
    type Partition = (AccountRepId, EntityType);
    type Sort = (Status, OrderId);
}

/// Every multi-attribute index of the table, as `template.yaml` must declare it.
pub const ALL: [IndexDeclaration; 3] = [
    OccurrencesByDate::DECLARATION,
    CustomerOrdersByStatus::DECLARATION,
    RepOrdersByStatus::DECLARATION,
];

/// Which entities stand in each index (carry all its key attributes): the registry's
/// membership, which the model's items are tested against.
pub const MEMBERS: &[(&str, &[&str])] = &[
    (
        OccurrencesByDate::NAME,
        &[learning_types::COURSE_OCCURRENCE],
    ),
    (
        CustomerOrdersByStatus::NAME,
        &[commerce_types::ORDER_HEADER, commerce_types::ORDER_SUMMARY],
    ),
    (
        RepOrdersByStatus::NAME,
        &[commerce_types::ORDER_HEADER, commerce_types::ORDER_SUMMARY],
    ),
];

/// The entities `index` holds (empty for an unknown index).
pub fn members(index: &str) -> &'static [&'static str] {
    MEMBERS
        .iter()
        .find(|(i, _)| *i == index)
        .map_or(&[], |(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multi::{IndexCondition, KeyValue, MAX_KEY_ATTRIBUTES, SortOp};

    #[test]
    fn every_index_is_valid_and_declared_once() {
        for (i, d) in ALL.iter().enumerate() {
            assert_eq!(d.check(), Ok(()), "{}", d.name);
            assert!(d.partition.len() <= MAX_KEY_ATTRIBUTES);
            assert!(ALL[..i].iter().all(|e| e.name != d.name));
            assert!(!members(d.name).is_empty(), "{}", d.name);
        }
        let names: Vec<_> = OccurrencesByDate::DECLARATION
            .attributes()
            .map(|a| (a.name, a.ty.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("CourseKey", "S"),
                ("Year", "N"),
                ("Month", "N"),
                ("Day", "N"),
                ("LocationKey", "S")
            ]
        );
    }

    #[test]
    fn typed_conditions_are_the_runtime_ones() {
        let course = CourseKey(Text::parse("c", "Intro to DynamoDB").unwrap());
        let built = OccurrencesByDate::key((course.clone(),))
            .eq(Year(2022))
            .eq(Month::new(3).unwrap())
            .eq(Day::new(15).unwrap())
            .begins_with(LocationKey(Location::parse("Room #1").unwrap()));
        let checked = IndexCondition::new(
            OccurrencesByDate::DECLARATION,
            vec![("CourseKey", KeyValue::S("introtodynamodb".into()))],
            vec![
                ("Year", SortOp::Eq(KeyValue::N(2022))),
                ("Month", SortOp::Eq(KeyValue::N(3))),
                ("Day", SortOp::Eq(KeyValue::N(15))),
                ("LocationKey", SortOp::BeginsWith("room#01".into())),
            ],
        )
        .unwrap();
        assert_eq!(built, checked);
        let years = OccurrencesByDate::key((course,)).between(Year(2021), Year(2022));
        assert_eq!(
            years.sort(),
            &[(
                "Year",
                SortOp::Between(KeyValue::N(2021), KeyValue::N(2022))
            )]
        );
        assert!(Month::new(13).is_err() && Day::new(0).is_err());
    }
}
