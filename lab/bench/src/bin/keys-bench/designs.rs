//! The key designs as the bench sees them: which indexes each table declares, what each
//! design writes into an entity's item, and the key condition of each read in each design.
//!
//! - concatenated (the seeds'): GSI1 and GSI2, one string attribute per key part, built by the keys
//!   crate's `Composite` (tags, `#` after each attribute, padding, escaping);
//! - multi-attribute: one index per pattern family, up to four typed attributes per key part, over
//!   attributes the items carry as themselves (no key strings at all);
//! - own names: the same, with the orders indexes over attributes only the listed entity writes;
//! - both: the table during a move from one to the other (every index; items carry both).

use keys::{
    Gsi1, Gsi2, Id, KeyCondition, Shard,
    commerce::{
        DEFAULT_ORDER_STATUS_SHARDS, customer_orders_by_status, customer_orders_in_status,
        order_id_range, order_status_range, rep_orders_by_status, rep_orders_in_status,
    },
    indexes::{self, OccurrencesByDate, OrderId, Status},
    learning::{
        Course, Location, Period, occurrences, occurrences_at, occurrences_by_date,
        occurrences_by_date_at,
    },
    multi::{Attribute, Index, IndexCondition, IndexDeclaration, KeyAttribute},
};
use model::Item;

use crate::{data, loc};

use keys::key_attribute as attribute;

attribute!(
    /// An order header's `StatusShard` (a number, as the header writes it).
    StatusShard(Shard) = model::commerce::Order::STATUS_SHARD, N, |s| s.number().into()
);
attribute!(
    /// The customer of an order header, under a name only headers write.
    HeaderCustomerId(Id) = "HeaderCustomerId", S, |id| id.as_str().to_owned()
);
attribute!(
    /// The account rep of an order summary, under a name only summaries write.
    SummaryRepId(Id) = "SummaryRepId", S, |id| id.as_str().to_owned()
);

/// O5's status index with the shard as a partition attribute: not in the template (the API reads
/// O5 from GSI2), declared here to measure sharding in the multi-attribute design. Only order
/// headers record their shard, so only they stand in it.
pub struct OrdersByShardAndStatus;

impl Index for OrdersByShardAndStatus {
    const NAME: &'static str = "OrdersByShardAndStatus";
    type Partition = (StatusShard,);
    type Sort = (Status, OrderId);
}

/// C4 by status over an attribute only order headers write: the variant that keeps summaries
/// out of the index without a `Type` partition attribute (at the price of a new attribute).
pub struct HeadersByStatus;

impl Index for HeadersByStatus {
    const NAME: &'static str = "HeadersByStatus";
    type Partition = (HeaderCustomerId,);
    type Sort = (Status, OrderId);
}

/// O10 over an attribute only order summaries write, likewise.
pub struct SummariesByStatus;

impl Index for SummariesByStatus {
    const NAME: &'static str = "SummariesByStatus";
    type Partition = (SummaryRepId,);
    type Sort = (Status, OrderId);
}

/// A keys-crate declaration as the template would declare it.
fn template_index(d: &IndexDeclaration) -> (sam_template::Index, Vec<(String, String)>) {
    let names = |attrs: &[KeyAttribute]| attrs.iter().map(|a| a.name.to_owned()).collect();
    let (partition, sort): (Vec<String>, Vec<String>) = (names(d.partition), names(d.sort));
    let index = sam_template::Index {
        name: d.name.to_owned(),
        key: sam_template::KeySchema {
            hash: partition[0].clone(),
            range: sort.first().cloned(),
            partition,
            sort,
        },
        projection: d.projection.as_str().into(),
        non_key_attributes: d
            .projection
            .non_key_attributes()
            .iter()
            .map(|a| (*a).to_owned())
            .collect(),
        warm: None,
    };
    let types = d
        .attributes()
        .map(|a| (a.name.to_owned(), a.ty.as_str().to_owned()))
        .collect();
    (index, types)
}

/// The attributes only the concatenated design writes.
const CONCATENATED_ONLY: &[&str] = &["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"];
/// The attributes only the variant with entity-specific names writes.
const OWN_ONLY: &[&str] = &[HeaderCustomerId::NAME, SummaryRepId::NAME];

/// The attributes only the multi-attribute design writes: an occurrence's five; the orders'
/// indexes use attributes the items carry anyway.
fn multi_only() -> Vec<&'static str> {
    OccurrencesByDate::DECLARATION
        .attributes()
        .map(|a| a.name)
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// GSI1 and GSI2, as the seeds build them.
    Concatenated,
    /// The template's multi-attribute indexes, over the attribute names the items carry (orders:
    /// `Type` as a partition attribute keeps headers and summaries apart), and O5's sharded one.
    Multi,
    /// The same, but the orders indexes over attributes only the entity they list writes.
    Own,
    /// Every index of the first two: a table during a move.
    Both,
}

impl Design {
    pub const ALL: [Design; 4] = [
        Design::Concatenated,
        Design::Multi,
        Design::Own,
        Design::Both,
    ];
    /// The designs whose reads are compared.
    pub const READ: [Design; 3] = [Design::Concatenated, Design::Multi, Design::Own];

    pub fn name(self) -> &'static str {
        match self {
            Design::Concatenated => "concatenated",
            Design::Multi => "multi-attribute",
            Design::Own => "multi-attribute, own names",
            Design::Both => "both (during a move)",
        }
    }

    /// A short name for its table.
    pub fn slug(self) -> &'static str {
        match self {
            Design::Concatenated => "concatenated",
            Design::Multi => "multi",
            Design::Own => "own",
            Design::Both => "both",
        }
    }

    /// The table of `template.yaml` with this design's indexes only (and the attribute
    /// definitions they use), without stream or TTL.
    pub fn table(self, template: &sam_template::Table) -> sam_template::Table {
        let multi: Vec<&str> = indexes::ALL.iter().map(|d| d.name).collect();
        let keep = |name: &str| match self {
            Design::Concatenated => name == "GSI1" || name == "GSI2",
            Design::Multi => multi.contains(&name),
            Design::Own => name == OccurrencesByDate::NAME,
            Design::Both => true,
        };
        let mut table = template.clone();
        table.global_indexes.retain(|i| keep(&i.name));
        table.stream_view_type = None;
        table.ttl_attribute = None;
        let extra: &[IndexDeclaration] = match self {
            Design::Concatenated => &[],
            Design::Multi | Design::Both => &[OrdersByShardAndStatus::DECLARATION],
            Design::Own => &[
                OrdersByShardAndStatus::DECLARATION,
                HeadersByStatus::DECLARATION,
                SummariesByStatus::DECLARATION,
            ],
        };
        for d in extra {
            let (index, types) = template_index(d);
            table.global_indexes.push(index);
            table.attributes.extend(types);
        }
        let used: Vec<String> = std::iter::once(&table.key)
            .chain(table.global_indexes.iter().map(|i| &i.key))
            .flat_map(|k| k.attributes().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        table.attributes.retain(|name, _| used.contains(name));
        table
    }

    /// The item this design writes for an entity: the model's item without the other designs'
    /// key attributes (and, with own names, an order's under the names only its entity writes).
    pub fn shape(self, mut item: Item) -> Item {
        let drop = match self {
            Design::Concatenated => [multi_only(), OWN_ONLY.to_vec()].concat(),
            Design::Multi => [CONCATENATED_ONLY, OWN_ONLY].concat(),
            Design::Both => OWN_ONLY.to_vec(),
            Design::Own => CONCATENATED_ONLY.to_vec(),
        };
        for attr in drop {
            item.remove(attr);
        }
        if self == Design::Own {
            let copy = match item
                .get("Type")
                .and_then(|t| t.as_s().ok())
                .map(String::as_str)
            {
                Some(keys::commerce::types::ORDER_HEADER) => {
                    Some(("CustomerId", HeaderCustomerId::NAME))
                }
                Some(keys::commerce::types::ORDER_SUMMARY) => {
                    Some(("AccountRepId", SummaryRepId::NAME))
                }
                _ => None,
            };
            if let Some((from, to)) = copy
                && let Some(v) = item.get(from).cloned()
            {
                item.insert(to.to_owned(), v);
            }
        }
        item
    }

    /// The key attributes this design adds to an entity's item.
    pub fn key_attributes(self) -> Vec<&'static str> {
        match self {
            Design::Concatenated => CONCATENATED_ONLY.to_vec(),
            Design::Multi => multi_only(),
            Design::Own => [multi_only(), OWN_ONLY.to_vec()].concat(),
            Design::Both => [CONCATENATED_ONLY.to_vec(), multi_only()].concat(),
        }
    }
}

/// One key condition, as its design states it.
#[derive(Debug, Clone)]
pub enum Condition {
    Gsi1(KeyCondition<Gsi1>),
    Gsi2(KeyCondition<Gsi2>),
    Multi(IndexCondition),
}

/// A read of the comparison: its pattern id, what it asks, and its queries in each design (one
/// each, or one per shard).
pub struct Read {
    pub id: &'static str,
    pub what: String,
    pub concatenated: Vec<Condition>,
    pub multi: Vec<Condition>,
    /// With own names: the multi-attribute conditions unless they differ.
    pub own: Option<Vec<Condition>>,
}

impl Read {
    /// The conditions of `design` (one of [`Design::READ`]).
    pub fn conditions(&self, design: Design) -> &[Condition] {
        match design {
            Design::Concatenated => &self.concatenated,
            Design::Own => self.own.as_deref().unwrap_or(&self.multi),
            Design::Multi | Design::Both => &self.multi,
        }
    }
}

/// Every read of the comparison, each design's conditions from the keys crate's builders.
pub fn reads() -> Vec<Read> {
    let course = Course::parse(data::COURSE).expect("a course");
    let key = course.key();
    let day = data::date(data::BUSY_DAY);
    let prefix = Location::parse(data::LOCATION_PREFIX).expect("a location");
    let period = |id, what, period| Read {
        id,
        what,
        concatenated: vec![Condition::Gsi1(occurrences(key, period).expect("a period"))],
        multi: vec![Condition::Multi(
            occurrences_by_date(key, period).expect("a period"),
        )],
        own: None,
    };
    let mut reads = vec![
        period(
            "L2",
            format!("every occurrence of {}", data::COURSE),
            Period::Any,
        ),
        period(
            "L3",
            format!("its occurrences in {}", data::YEAR),
            Period::Year(data::YEAR),
        ),
        period(
            "L4",
            format!("in {}-{:02}", data::YEAR, data::MONTH),
            Period::Month(data::YEAR, data::MONTH),
        ),
        period("L5", format!("on {}", day.iso()), Period::Day(day)),
        Read {
            id: "L6",
            what: format!("on {} at `{}...`", day.iso(), data::LOCATION_PREFIX),
            concatenated: vec![Condition::Gsi1(occurrences_at(key, day, &prefix))],
            multi: vec![Condition::Multi(occurrences_by_date_at(key, day, &prefix))],
            own: None,
        },
    ];
    let (from, to) = (data::date(data::FROM), data::date(data::TO));
    let (first, last) = order_id_range(from, to).expect("a range");
    let (lo, hi) = (|| OrderId(first), || OrderId(last));
    let customer = Id::parse("customerId", data::CUSTOMER).expect("an id");
    let rep = Id::parse("repId", data::REP).expect("an id");
    let range = format!(
        "{} orders placed {} to {}",
        data::STATUS,
        from.iso(),
        to.iso()
    );
    reads.push(Read {
        id: "C4",
        what: format!("{}'s {range}", data::CUSTOMER),
        concatenated: vec![Condition::Gsi1(
            customer_orders_in_status(&customer, data::STATUS, from, to).expect("a range"),
        )],
        multi: vec![Condition::Multi(
            customer_orders_by_status(&customer, data::STATUS, from, to).expect("a range"),
        )],
        own: Some(vec![Condition::Multi(
            HeadersByStatus::key((HeaderCustomerId(customer),))
                .eq(Status(data::STATUS))
                .between(lo(), hi()),
        )]),
    });
    reads.push(Read {
        id: "O10",
        what: format!("{}'s {range} (one status)", data::REP),
        concatenated: vec![Condition::Gsi1(
            rep_orders_in_status(&rep, data::STATUS, from, to).expect("a range"),
        )],
        multi: vec![Condition::Multi(
            rep_orders_by_status(&rep, data::STATUS, from, to).expect("a range"),
        )],
        own: Some(vec![Condition::Multi(
            SummariesByStatus::key((SummaryRepId(rep),))
                .eq(Status(data::STATUS))
                .between(lo(), hi()),
        )]),
    });
    let shards: Vec<Shard> = Shard::all(DEFAULT_ORDER_STATUS_SHARDS).collect();
    reads.push(Read {
        id: "O5",
        what: format!("every {range}, {DEFAULT_ORDER_STATUS_SHARDS} shards"),
        concatenated: shards
            .iter()
            .map(|&shard| {
                Condition::Gsi2(order_status_range(shard, data::STATUS, from, to).expect("a range"))
            })
            .collect(),
        multi: shards
            .iter()
            .map(|&shard| {
                Condition::Multi(
                    OrdersByShardAndStatus::key((StatusShard(shard),))
                        .eq(Status(data::STATUS))
                        .between(lo(), hi()),
                )
            })
            .collect(),
        own: None,
    });
    reads
}

/// The key code of each design for the patterns compared: the declarations, item keys and
/// conditions of its indexes, then the machinery under them (key strings or typed attributes, and
/// the expression `store` renders). What both designs share (`Period`, a date range's order ids,
/// the records' own attributes) counts in neither.
pub fn key_code(design: Design) -> [Vec<loc::Source>; 2] {
    use loc::Source::{File, Items};
    match design {
        Design::Concatenated => [
            vec![
                Items(
                    "shared/keys/src/learning.rs",
                    &[
                        "fn course_occurrence_index(",
                        "fn occurrences_pk(",
                        "impl Period ",
                        "fn occurrences(",
                        "fn occurrences_at(",
                    ],
                ),
                Items(
                    "shared/keys/src/commerce.rs",
                    &[
                        "fn order_status_pk(",
                        "fn status_sort_key(",
                        "fn status_range(",
                        "fn order_status_index(",
                        "fn order_status_range(",
                        "fn customer_order_status_index(",
                        "fn customer_orders_in_status(",
                        "fn rep_pk(",
                        "fn rep_order_index(",
                        "fn rep_orders_in_status(",
                    ],
                ),
            ],
            vec![
                File("shared/keys/src/composite.rs"),
                File("shared/keys/src/space.rs"),
                Items(
                    "shared/keys/src/segment.rs",
                    &["fn escape(", "fn unescape("],
                ),
                Items(
                    "shared/store/src/query.rs",
                    &["impl<S: KeySpace> Selection for KeyCondition<S> "],
                ),
            ],
        ],
        Design::Multi | Design::Own | Design::Both => [
            vec![
                File("shared/keys/src/indexes.rs"),
                Items(
                    "shared/keys/src/learning.rs",
                    &[
                        "mod occurrences_by_date ",
                        "fn occurrence_by_date(",
                        "fn occurrences_by_date(",
                        "fn occurrences_by_date_at(",
                    ],
                ),
                Items(
                    "shared/keys/src/commerce.rs",
                    &[
                        "mod orders_by_status ",
                        "fn customer_orders_by_status(",
                        "fn rep_orders_by_status(",
                    ],
                ),
            ],
            vec![
                File("shared/keys/src/multi.rs"),
                Items(
                    "shared/store/src/query.rs",
                    &["impl Selection for IndexCondition "],
                ),
            ],
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `make bench-keys` counts these items by name: a renamed or removed one fails here, in
    /// `make test`, rather than in the next benchmark run.
    #[test]
    fn every_counted_item_of_key_code_exists() {
        let root = crate::workspace_root();
        for design in [Design::Concatenated, Design::Multi] {
            for sources in key_code(design) {
                let (lines, _) = loc::count(&root, &sources);
                assert!(lines > 0, "{}", design.name());
            }
        }
    }

    /// Each design's table is the template's, with only its own indexes, and every attribute
    /// definition one of its keys uses (DynamoDB refuses the others).
    #[test]
    fn each_table_declares_its_own_indexes() {
        let template = sam_template::Template::workspace()
            .expect("template.yaml")
            .table
            .with_every_index();
        for design in Design::ALL {
            let table = design.table(&template);
            let names: Vec<&str> = table
                .global_indexes
                .iter()
                .map(|i| i.name.as_str())
                .collect();
            let has_gsi1 = names.contains(&"GSI1");
            let has_by_date = names.contains(&OccurrencesByDate::NAME);
            assert_eq!(
                has_gsi1,
                matches!(design, Design::Concatenated | Design::Both),
                "{names:?}"
            );
            assert_eq!(has_by_date, design != Design::Concatenated, "{names:?}");
            for attr in table.attributes.keys() {
                assert!(
                    std::iter::once(&table.key)
                        .chain(table.global_indexes.iter().map(|i| &i.key))
                        .any(|k| k.attributes().any(|a| a == attr)),
                    "{attr} is declared but no key uses it"
                );
            }
        }
    }
}
