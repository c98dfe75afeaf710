//! The table's multi-attribute indexes ([`crate::multi`]), beside GSI1 and GSI2: each declared once,
//! by the context whose entities stand in it (`commerce::orders_by_status`,
//! `learning::occurrences_by_date`), and gathered here.
//!
//! Their attributes and members are tabled in `docs/keys.md`, generated from these declarations.
//!
//! Each attribute is a type, whose value is the typed value it holds (`Year(2022)`,
//! `Status(OrderStatus::Open)`), so a condition names them in order and in type.
//!
//! Course occurrences write the five `OccurrencesByDate` attributes; no other item writes them
//! all (a certificate has none). Order headers and summaries are one record with the same
//! attribute names, which the orders indexes use as they are, so adding those indexes rewrites no
//! item; both entities therefore stand in both indexes, and `Type`, a partition attribute, keeps
//! them apart: a read names the entity it decodes.

// Gathered from the contexts, which import nothing from here: no context module needs another's.
pub use crate::{
    commerce::order_lines_by_product::{LineSku, OrderLinesByProduct},
    commerce::orders_by_status::{
        AccountRepId, CustomerId, CustomerOrdersByStatus, OrderId, RepOrdersByStatus, Status,
    },
    learning::occurrences_by_date::{
        CourseKey, Day, LocationKey, Month, OccurrencesByDate, Year, ymd,
    },
    multi::EntityType,
    reviews::reviews_by_user::{
        ReviewedAt, ReviewedBook, Reviewer, ReviewsByUser, ReviewsByUserAll,
    },
};
use crate::{
    commerce::types as commerce_types,
    learning::types as learning_types,
    multi::{Index, IndexDeclaration},
    reviews::types as review_types,
};

/// Every multi-attribute index of the table, as `template.yaml` must declare it.
pub const ALL: [IndexDeclaration; 6] = [
    OccurrencesByDate::DECLARATION,
    CustomerOrdersByStatus::DECLARATION,
    RepOrdersByStatus::DECLARATION,
    ReviewsByUser::DECLARATION,
    ReviewsByUserAll::DECLARATION,
    OrderLinesByProduct::DECLARATION,
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
    (ReviewsByUser::NAME, &[review_types::REVIEW]),
    (ReviewsByUserAll::NAME, &[review_types::REVIEW]),
    (OrderLinesByProduct::NAME, &[commerce_types::ORDER_LINE]),
];

/// Which indexes serve the patterns that have a dedicated alternative (R2, O8): GSI1, overloaded
/// as the seeds teach, or an index of their own each, sparse, R2's projecting its keys only or
/// the whole review. One design per deployment: the template parameter
/// [`IndexDesign::PARAMETER`] decides the indexes the tables have, the writers' keys and the
/// readers' queries (docs/one-table-or-many.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexDesign {
    /// GSI1 holds the user's record and a full copy of each review: R2 is one Query.
    #[default]
    Overloaded,
    /// `ReviewsByUser` holds each review's keys; users and reviews carry no GSI1 keys. R2 is a
    /// Query of keys, then one BatchGetItem of the page's reviews (and the user, first page).
    /// `OrderLinesByProduct` holds each order line's keys, quantity and price; order lines and
    /// inventories carry no GSI1 keys. O8 reads the inventories from the product's partition.
    Dedicated,
    /// As `Dedicated`, but R2's index, `ReviewsByUserAll`, holds each review whole: R2 is one
    /// Query of the page's reviews and, on a first page, one GetItem of the user beside it.
    Projected,
}

impl IndexDesign {
    /// The template parameter, and the functions' variable holding its value.
    pub const PARAMETER: &'static str = "IndexDesign";
    pub const VARIABLE: &'static str = "INDEX_DESIGN";
    pub const ALL: [IndexDesign; 3] = [
        IndexDesign::Overloaded,
        IndexDesign::Dedicated,
        IndexDesign::Projected,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            IndexDesign::Overloaded => "overloaded",
            IndexDesign::Dedicated => "dedicated",
            IndexDesign::Projected => "projected",
        }
    }

    /// The design a value names; the error says which values there are.
    pub fn parse(s: &str) -> Result<IndexDesign, String> {
        IndexDesign::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<_> = IndexDesign::ALL.iter().map(|d| d.as_str()).collect();
                format!(
                    "{} must be one of {}, not {s:?}",
                    Self::VARIABLE,
                    all.join(", ")
                )
            })
    }

    /// The dedicated indexes a table of this design has (beside GSI1 and GSI2).
    pub fn indexes(self) -> &'static [&'static str] {
        match self {
            IndexDesign::Overloaded => &[],
            IndexDesign::Dedicated => &[ReviewsByUser::NAME, OrderLinesByProduct::NAME],
            IndexDesign::Projected => &[ReviewsByUserAll::NAME, OrderLinesByProduct::NAME],
        }
    }

    /// Whether users, reviews, order lines and inventories carry GSI1 keys (R2 and O8 read
    /// GSI1).
    pub fn writes_gsi1(self) -> bool {
        self == IndexDesign::Overloaded
    }
}

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
    use crate::{Text, learning::Location};

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
