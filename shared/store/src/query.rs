//! Queries over a typed key condition, and their pages.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use keys::{IndexCondition, KeyCondition, KeySpace, KeyValue, SortCondition, SortOp};
use model::{Entity, Item};

use crate::{StoreError, Table, error::from_sdk, expr::Placeholders};

/// A page of a query: its items and DynamoDB's `LastEvaluatedKey` (more may follow).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub last_key: Option<Item>,
    /// The read units DynamoDB reported for the page (the table's and its indexes').
    pub read_units: f64,
}

impl Page<Item> {
    /// Every item as entity `E` (each must be of its `Type`).
    pub fn decode<E: Entity>(self) -> Result<Page<E>, StoreError> {
        Ok(Page {
            items: self
                .items
                .into_iter()
                .map(model::from_item)
                .collect::<Result<_, _>>()?,
            last_key: self.last_key,
            read_units: self.read_units,
        })
    }
}

/// Most pages [`Query::send_all`] reads: 16 MB, far beyond any order page or cart (an order has
/// at most 50 lines; a cart line is ~100 bytes), small enough to bound one request's work.
pub const MAX_PAGES: usize = 16;

/// A Query's key condition as DynamoDB takes it: the index it names (`None`: the table), its
/// `KeyConditionExpression` and the names and values that expression uses.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyExpression {
    pub index: Option<&'static str>,
    pub expression: String,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
}

/// What a Query selects: a key condition of the table or GSI1/GSI2 ([`KeyCondition`]), or of a
/// multi-attribute index ([`IndexCondition`]).
pub trait Selection: Clone {
    fn key_expression(&self) -> KeyExpression;
    /// The partition it reads, as text (a multi-attribute key's values joined by `, `).
    fn partition_text(&self) -> String;
}

impl<S: KeySpace> Selection for KeyCondition<S> {
    fn partition_text(&self) -> String {
        self.pk().to_owned()
    }

    fn key_expression(&self) -> KeyExpression {
        let mut p = Placeholders::default();
        let pk = format!("{} = {}", p.name(S::PK), p.value(model::s(self.pk())));
        // Only a condition on the sort key names it: DynamoDB refuses unused placeholders.
        let sort = match self.sort() {
            SortCondition::All => None,
            SortCondition::Eq(v) => {
                let sk = p.name(S::SK);
                Some(format!("{sk} = {}", p.value(model::s(v))))
            }
            SortCondition::BeginsWith(v) => {
                let sk = p.name(S::SK);
                Some(format!("begins_with({sk}, {})", p.value(model::s(v))))
            }
            SortCondition::Between(lo, hi) => {
                let sk = p.name(S::SK);
                let (lo, hi) = (p.value(model::s(lo)), p.value(model::s(hi)));
                Some(format!("{sk} BETWEEN {lo} AND {hi}"))
            }
            SortCondition::AtMost(v) => {
                let sk = p.name(S::SK);
                Some(format!("{sk} <= {}", p.value(model::s(v))))
            }
            SortCondition::AtLeast(v) => {
                let sk = p.name(S::SK);
                Some(format!("{sk} >= {}", p.value(model::s(v))))
            }
        };
        let expression = match sort {
            Some(sort) => format!("{pk} AND {sort}"),
            None => pk,
        };
        KeyExpression {
            index: S::INDEX,
            expression,
            names: p.names(),
            values: p.values(),
        }
    }
}

impl Selection for IndexCondition {
    fn partition_text(&self) -> String {
        self.partition()
            .iter()
            .map(|(_, v)| match v {
                KeyValue::S(text) => text.as_str().to_owned(),
                KeyValue::N(number) => number.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `#a = :a AND #b = :b ... AND <each sort condition>`, one placeholder per attribute.
    fn key_expression(&self) -> KeyExpression {
        let mut p = Placeholders::default();
        let mut terms: Vec<String> = self
            .partition()
            .iter()
            .map(|(name, v)| format!("{} = {}", p.name(name), p.value(model::key_value(v))))
            .collect();
        for (name, op) in self.sort() {
            let n = p.name(name);
            let mut v = |v: &KeyValue| p.value(model::key_value(v));
            terms.push(match op {
                SortOp::Eq(x) => format!("{n} = {}", v(x)),
                SortOp::Lt(x) => format!("{n} < {}", v(x)),
                SortOp::Le(x) => format!("{n} <= {}", v(x)),
                SortOp::Gt(x) => format!("{n} > {}", v(x)),
                SortOp::Ge(x) => format!("{n} >= {}", v(x)),
                SortOp::Between(lo, hi) => format!("{n} BETWEEN {} AND {}", v(lo), v(hi)),
                SortOp::BeginsWith(prefix) => {
                    format!("begins_with({n}, {})", v(&KeyValue::S(prefix.clone())))
                }
            });
        }
        KeyExpression {
            index: Some(self.index().name),
            expression: terms.join(" AND "),
            names: p.names(),
            values: p.values(),
        }
    }
}

impl<'t, S: KeySpace> Query<'t, KeyCondition<S>> {
    /// A strongly consistent read (the table only: indexes are eventually consistent), for a
    /// read that a conditional write then relies on.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }
}

/// One Query, built from a key condition ([`Selection`]: the index name and key attribute names
/// come from the condition's space or index declaration, never from the caller).
#[must_use]
#[derive(Clone)]
pub struct Query<'t, C> {
    table: &'t Table,
    condition: C,
    backwards: bool,
    limit: Option<u32>,
    start: Option<Item>,
    consistent: bool,
}

impl<'t, C: Selection> Query<'t, C> {
    pub(crate) fn new(table: &'t Table, condition: C) -> Self {
        Query {
            table,
            condition,
            backwards: false,
            limit: None,
            start: None,
            consistent: false,
        }
    }

    /// Newest (largest sort key) first.
    pub fn backwards(mut self) -> Self {
        self.backwards = true;
        self
    }

    /// At most `n` items read (and paid for).
    pub fn limit(mut self, n: u32) -> Self {
        self.limit = Some(n);
        self
    }

    /// Continue after a previous page's `last_key`.
    pub fn start(mut self, after: Option<Item>) -> Self {
        self.start = after;
        self
    }

    /// Sends the Query as many times as it takes to read the whole key condition: DynamoDB stops
    /// a page at 1 MB, and a collection cut there must never be answered as if it were whole.
    /// For collections read whole (an order page, a cart); at most [`MAX_PAGES`] pages.
    pub async fn send_all(self) -> Result<Page<Item>, StoreError> {
        let mut items = Vec::new();
        let mut read_units = 0.0;
        let mut start = self.start.clone();
        for _ in 0..MAX_PAGES {
            let page = Query {
                table: self.table,
                condition: self.condition.clone(),
                backwards: self.backwards,
                limit: self.limit,
                start,
                consistent: self.consistent,
            }
            .send()
            .await?;
            items.extend(page.items);
            read_units += page.read_units;
            match page.last_key {
                Some(k) => start = Some(k),
                None => {
                    return Ok(Page {
                        items,
                        last_key: None,
                        read_units,
                    });
                }
            }
        }
        Err(StoreError::Corrupt(format!(
            "a collection read whole is over {MAX_PAGES} pages of 1 MB"
        )))
    }

    /// Sends the Query: one request, one page.
    pub async fn send(self) -> Result<Page<Item>, StoreError> {
        let KeyExpression {
            index,
            expression,
            names,
            values,
        } = self.condition.key_expression();
        // An index query reports the index's units apart from the table's.
        let capacity = match index {
            Some(_) => ReturnConsumedCapacity::Indexes,
            None => ReturnConsumedCapacity::Total,
        };
        let flight = self.table.meter().flight();
        let out = crate::deadline::bounded(
            self.table
                .client()
                .query()
                .table_name(self.table.name())
                .set_index_name(index.map(str::to_owned))
                .key_condition_expression(expression)
                .set_expression_attribute_names(names)
                .set_expression_attribute_values(values)
                .scan_index_forward(!self.backwards)
                .consistent_read(self.consistent)
                .set_limit(self.limit.map(|n| i32::try_from(n).unwrap_or(i32::MAX)))
                .set_exclusive_start_key(self.start)
                .return_consumed_capacity(capacity)
                .send(),
        )
        .await
        .map_err(from_sdk)?;
        let concurrent = flight.land();
        let items = out.items.unwrap_or_default();
        let read_units = out
            .consumed_capacity
            .as_ref()
            .and_then(|c| c.capacity_units)
            .unwrap_or(0.0);
        self.table.meter().record(
            crate::Request {
                index,
                items: items.len(),
                consistent: self.consistent,
                partitions: self
                    .table
                    .recorded(|| vec![self.condition.partition_text()]),
                read: self
                    .table
                    .recorded(|| items.iter().cloned().map(Some).collect()),
                concurrent,
                ..crate::Request::new("Query")
            },
            out.consumed_capacity.as_slice(),
        );
        Ok(Page {
            items,
            last_key: out.last_evaluated_key,
            read_units,
        })
    }
}

/// A page of a collection read backwards from its parent's own record (Good's data-modeling post
/// and Pernin's introduction: the parent sorts after its children): the parent on the first page
/// only, then its children, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ParentPage<P, C> {
    pub parent: Option<P>,
    pub children: Vec<C>,
    pub last_key: Option<Item>,
    /// The read units DynamoDB reported.
    pub read_units: f64,
}

impl<Q: Selection> Query<'_, Q> {
    /// ONE query: the first page (`start` is `None`) reads `children + 1` items, the parent and
    /// its newest children; later pages read `children` items after `start`. `None` when a first
    /// page has no parent (children exist only with their parent: every writer checks it in the
    /// same transaction). Any other type in the range is a corrupt item, not silently skipped.
    pub async fn parent_page<P: Entity, C: Entity>(
        self,
        children: u32,
        start: Option<Item>,
    ) -> Result<Option<ParentPage<P, C>>, StoreError> {
        let first_page = start.is_none();
        let page = self
            .backwards()
            .limit(children + u32::from(first_page))
            .start(start)
            .send()
            .await?;
        let mut items = page.items.into_iter().peekable();
        let parent = match items.peek().map(model::type_of) {
            Some(Some(t)) if first_page && t == P::TYPE => {
                Some(model::from_item::<P>(items.next().expect("peeked"))?)
            }
            _ if first_page => return Ok(None),
            _ => None,
        };
        Ok(Some(ParentPage {
            parent,
            children: items.map(model::from_item).collect::<Result<_, _>>()?,
            last_key: page.last_key,
            read_units: page.read_units,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::{
        Index, Text,
        indexes::{CourseKey, Day, LocationKey, Month, OccurrencesByDate, Year},
        learning::Location,
    };

    /// L6 on `OccurrencesByDate`: one `#name`/`:value` per attribute, numbers as `N`, the
    /// partition with `=`, the sort attributes left to right, `begins_with` last.
    #[test]
    fn a_multi_attribute_condition_names_each_attribute_once() {
        let course = CourseKey(Text::parse("c", "Intro to DynamoDB").unwrap());
        let e = OccurrencesByDate::key((course,))
            .eq(Year(2022))
            .eq(Month::new(3).unwrap())
            .eq(Day::new(15).unwrap())
            .begins_with(LocationKey(Location::parse("Room #1").unwrap()))
            .key_expression();
        assert_eq!(e.index, Some("OccurrencesByDate"));
        assert_eq!(
            e.expression,
            "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2 AND #n3 = :v3 AND begins_with(#n4, :v4)"
        );
        let names = e.names.unwrap();
        let values = e.values.unwrap();
        let named = |n: usize| {
            (
                names[&format!("#n{n}")].as_str(),
                values[&format!(":v{n}")].clone(),
            )
        };
        assert_eq!(named(0), ("CourseKey", model::s("introtodynamodb")));
        assert_eq!(named(1), ("Year", model::n(2022)));
        assert_eq!(named(3), ("Day", model::n(15)));
        assert_eq!(named(4), ("LocationKey", model::s("room#01")));
    }
}
