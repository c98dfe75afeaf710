//! The two key designs as the bench sees them: which indexes each table declares, what each
//! design writes into an entity's item, and the key condition of each read in each design.
//!
//! - concatenated (the seeds'): GSI1 and GSI2, one string attribute per key part, built by the keys
//!   crate's `Composite` (tags, `#` after each attribute, padding, escaping);
//! - multi-attribute: one index per pattern family, up to four typed attributes per key part, over
//!   attributes the items carry as themselves (no key strings at all);
//! - both: the table during a move from one to the other (every index; items carry both).

use aws_sdk_dynamodb::types::{AttributeValue, ScalarAttributeType};
use keys::{
    Gsi1, Gsi2, Id, KeyCondition, Shard, SortableId,
    commerce::{
        DEFAULT_ORDER_STATUS_SHARDS, customer_orders_in_status, order_status_range,
        rep_orders_in_status,
    },
    indexes::{
        self, AccountRepId, CourseKey, CustomerId, CustomerOrdersByStatus, EntityType, LocationKey,
        Month, OccurrencesByDate, OrderId, RepOrdersByStatus, Status, Year,
    },
    learning::{Course, Location, Period, occurrences, occurrences_at},
    multi::{
        AttrType, AttrValue, Attribute, Index, IndexCondition, IndexDeclaration, KeyAttribute,
        KeyValue,
    },
};
use model::Item;

use crate::{data, loc};

/// An index as a design declares it: its partition attributes and its ordered sort attributes,
/// each with its type.
#[derive(Debug, Clone)]
pub struct IndexDef {
    pub name: &'static str,
    pub partition: Vec<(&'static str, ScalarAttributeType)>,
    pub sort: Vec<(&'static str, ScalarAttributeType)>,
}

use ScalarAttributeType::S;

fn index(
    name: &'static str,
    partition: &[(&'static str, ScalarAttributeType)],
    sort: &[(&'static str, ScalarAttributeType)],
) -> IndexDef {
    IndexDef {
        name,
        partition: partition.to_vec(),
        sort: sort.to_vec(),
    }
}

/// The seeds' two overloaded indexes, as `template.yaml` declares them.
pub fn concatenated_indexes() -> Vec<IndexDef> {
    vec![
        index("GSI1", &[("GSI1PK", S)], &[("GSI1SK", S)]),
        index("GSI2", &[("GSI2PK", S)], &[("GSI2SK", S)]),
    ]
}

/// O5's status index with the shard as a partition attribute: not in the template (the API reads
/// O5 from GSI2), declared here to measure sharding in the multi-attribute design. Only order
/// headers record their shard, so only they stand in it.
pub struct OrdersByShardAndStatus;

impl Index for OrdersByShardAndStatus {
    const NAME: &'static str = "OrdersByShardAndStatus";
    type Partition = (StatusShard,);
    type Sort = (Status, OrderId);
}

/// An order header's `StatusShard` (a number, as the header writes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusShard(pub Shard);

impl Attribute for StatusShard {
    const NAME: &'static str = model::commerce::Order::STATUS_SHARD;
    type Value = StatusShard;
}

impl AttrValue for StatusShard {
    const TYPE: AttrType = AttrType::N;
    fn key_value(&self) -> KeyValue {
        KeyValue::N(self.0.number().into())
    }
}

fn declared(d: &IndexDeclaration) -> IndexDef {
    let typed = |attrs: &[KeyAttribute]| -> Vec<(&'static str, ScalarAttributeType)> {
        attrs
            .iter()
            .map(|a| (a.name, ScalarAttributeType::from(a.ty.as_str())))
            .collect()
    };
    IndexDef {
        name: d.name,
        partition: typed(d.partition),
        sort: typed(d.sort),
    }
}

/// The multi-attribute indexes: the template's (as the keys crate declares them), and the sharded
/// one above.
pub fn multi_indexes() -> Vec<IndexDef> {
    indexes::ALL
        .iter()
        .chain([&OrdersByShardAndStatus::DECLARATION])
        .map(declared)
        .collect()
}

/// The attributes only the concatenated design writes.
const CONCATENATED_ONLY: &[&str] = &["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"];

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
    Concatenated,
    Multi,
    Both,
}

impl Design {
    pub const ALL: [Design; 3] = [Design::Concatenated, Design::Multi, Design::Both];

    pub fn name(self) -> &'static str {
        match self {
            Design::Concatenated => "concatenated",
            Design::Multi => "multi-attribute",
            Design::Both => "both (during a move)",
        }
    }

    /// A short name for its table.
    pub fn slug(self) -> &'static str {
        match self {
            Design::Concatenated => "concatenated",
            Design::Multi => "multi",
            Design::Both => "both",
        }
    }

    pub fn indexes(self) -> Vec<IndexDef> {
        match self {
            Design::Concatenated => concatenated_indexes(),
            Design::Multi => multi_indexes(),
            Design::Both => [concatenated_indexes(), multi_indexes()].concat(),
        }
    }

    /// The item this design writes for an entity: the model's item without the other design's
    /// key attributes.
    pub fn shape(self, mut item: Item) -> Item {
        let drop = match self {
            Design::Concatenated => multi_only(),
            Design::Multi => CONCATENATED_ONLY.to_vec(),
            Design::Both => Vec::new(),
        };
        for attr in drop {
            item.remove(attr);
        }
        item
    }

    /// The key attributes this design adds to an entity's item.
    pub fn key_attributes(self) -> Vec<&'static str> {
        match self {
            Design::Concatenated => CONCATENATED_ONLY.to_vec(),
            Design::Multi => multi_only(),
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
}

/// Every read of the comparison, in both designs.
pub fn reads() -> Vec<Read> {
    let course = Course::parse(data::COURSE).expect("a course");
    let key = course.key();
    let by_date = || OccurrencesByDate::key((CourseKey(key.clone()),));
    let day = data::date(data::BUSY_DAY);
    let (year, month, dd) = indexes::ymd(day);
    let prefix = Location::parse(data::LOCATION_PREFIX).expect("a location");
    let occurrences_of = |period| Condition::Gsi1(occurrences(key, period).expect("a period"));
    let month_of_year = Month::new(data::MONTH).expect("a month");
    let mut reads = vec![
        Read {
            id: "L2",
            what: format!("every occurrence of {}", data::COURSE),
            concatenated: vec![occurrences_of(Period::Any)],
            multi: vec![Condition::Multi(by_date().build())],
        },
        Read {
            id: "L3",
            what: format!("its occurrences in {}", data::YEAR),
            concatenated: vec![occurrences_of(Period::Year(data::YEAR))],
            multi: vec![Condition::Multi(by_date().eq(Year(data::YEAR)).build())],
        },
        Read {
            id: "L4",
            what: format!("in {}-{:02}", data::YEAR, data::MONTH),
            concatenated: vec![occurrences_of(Period::Month(data::YEAR, data::MONTH))],
            multi: vec![Condition::Multi(
                by_date().eq(Year(data::YEAR)).eq(month_of_year).build(),
            )],
        },
        Read {
            id: "L5",
            what: format!("on {}", day.iso()),
            concatenated: vec![occurrences_of(Period::Day(day))],
            multi: vec![Condition::Multi(
                by_date()
                    .eq(year.clone())
                    .eq(month.clone())
                    .eq(dd.clone())
                    .build(),
            )],
        },
        Read {
            id: "L6",
            what: format!("on {} at `{}...`", day.iso(), data::LOCATION_PREFIX),
            concatenated: vec![Condition::Gsi1(occurrences_at(key, day, &prefix))],
            multi: vec![Condition::Multi(
                by_date()
                    .eq(year)
                    .eq(month)
                    .eq(dd)
                    .begins_with(LocationKey(prefix.clone())),
            )],
        },
    ];
    let (from, to) = (data::date(data::FROM), data::date(data::TO));
    let lo = || OrderId(SortableId::floor(from.start_ms() as u64));
    let hi = || OrderId(SortableId::ceiling(to.end_ms() as u64));
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
            CustomerOrdersByStatus::key((CustomerId(customer), EntityType::ORDER_HEADER))
                .eq(Status(data::STATUS))
                .between(lo(), hi()),
        )],
    });
    reads.push(Read {
        id: "O10",
        what: format!("{}'s {range} (one status)", data::REP),
        concatenated: vec![Condition::Gsi1(
            rep_orders_in_status(&rep, data::STATUS, from, to).expect("a range"),
        )],
        multi: vec![Condition::Multi(
            RepOrdersByStatus::key((AccountRepId(rep), EntityType::ORDER_SUMMARY))
                .eq(Status(data::STATUS))
                .between(lo(), hi()),
        )],
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
    });
    reads
}

/// The multi-attribute design's attributes of a course occurrence, until the model writes them.
pub fn occurrence_attributes(
    o: &model::learning::CourseOccurrence,
) -> Vec<(&'static str, AttributeValue)> {
    let (year, month, day) = indexes::ymd(o.start_date);
    OccurrencesByDate::item_key(
        (CourseKey(o.course_name.key().clone()),),
        (year, month, day, LocationKey(o.location.clone())),
    )
    .attributes()
    .iter()
    .map(|(name, v)| (*name, value(v)))
    .collect()
}

/// A key value as DynamoDB takes it.
pub fn value(v: &KeyValue) -> AttributeValue {
    match v {
        KeyValue::S(s) => AttributeValue::S(s.clone()),
        KeyValue::N(n) => AttributeValue::N(n.to_string()),
    }
}

/// The key code of each design for the patterns compared: the declarations and conditions of
/// its indexes, then the machinery under them (key strings or typed attributes, and the
/// expression `store` renders).
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
                        "enum Period ",
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
        Design::Multi | Design::Both => [
            vec![File("shared/keys/src/indexes.rs")],
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
