//! A request to a route as the code sends it, for the capacity planner (a pattern's example, a
//! function's sample, a route's worst case): the DynamoDB requests it made on DynamoDB Local,
//! with the partitions each read and wrote and the units each cost, then its stream handlers'
//! requests. The tests crate's `samples` measures them into `lab/planner/profiles.json` and
//! `lab/planner/worst-profiles.json` (`make cost`, checked against the code on every run); the planner
//! reads them (`planner::profile`). Declared here, where both the measuring and the planning
//! reach them early in the build.

use serde::{Deserialize, Serialize};

/// One request of a function, as a pattern's example or a route's worst case, and what it sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub function: String,
    /// The catalogue's ID of the pattern the request exercises, or `—`.
    pub pattern: String,
    /// The route it went to: `GET /customers/{customerId}`.
    #[serde(default)]
    pub route: String,
    /// `GET /customers/123?orders=2`.
    pub request: String,
    /// The function's sample (`events/<function>.json`), which the cost table shows and the
    /// hand-modelled patterns are held to; the other profiles are the other patterns' examples.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sample: bool,
    /// `worst`: the route's declared worst case (after its setup), not an example.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
    /// The template's `IndexDesign` the sample ran in (its table, its function's
    /// `INDEX_DESIGN`), where it is not the default deployment's: a function whose requests
    /// differ between the designs is profiled in each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
    pub requests: Vec<Sent>,
    /// Its requests one after another ([`round_trips`]): what its duration waits for.
    #[serde(default)]
    pub round_trips: usize,
    /// What the stream handlers sent for its changes, until they made no more.
    pub fanout: Vec<Sent>,
}

/// One DynamoDB request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sent {
    pub operation: String,
    /// `table`, or the index a Query read.
    pub index: String,
    pub consistent: bool,
    /// Items read or written.
    pub items: usize,
    /// Read units as DynamoDB bills them (`devkit::bill`: a read that found nothing at its
    /// minimum).
    pub read_units: f64,
    /// The forms of the partitions it read ([`form`]), sorted.
    pub reads: Vec<String>,
    /// What it wrote: each item's write on the table and on every index it stands in.
    pub writes: Vec<Written>,
}

/// One item's write on the table or an index, billed as `devkit::bill` bills it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Written {
    pub index: String,
    /// The partition's form ([`form`]).
    pub pk: String,
    pub units: f64,
    /// `put` (a new item), `update` (an item replaced or changed), `delete`, `check` (a
    /// transaction's ConditionCheck), or `refused` (a write its condition refused).
    pub action: String,
}

/// How many of `requests` were sent while no other awaited its answer: the round trips a call
/// waits for, one after another (requests sent at once, as parallel Queries of a sharded
/// partition or a Query and a GetItem joined, are one).
pub fn round_trips(requests: &[store::Request]) -> usize {
    requests.iter().filter(|r| !r.concurrent).count()
}

impl Sent {
    /// A recorded request (`Table::recording_touched`), billed by the one meter
    /// ([`crate::bill`]).
    pub fn of(r: &store::Request, indexes: &[sam_template::Index]) -> Sent {
        let text = |item: &Option<model::Item>, attr: &str| {
            item.as_ref().and_then(|i| i.get(attr)).map(key_text)
        };
        let index_of = |name: &str| indexes.iter().find(|i| i.name == name);
        let mut writes = Vec::new();
        for t in &r.touched {
            for (index, units) in crate::bill::request_touched_units(r, t, indexes) {
                let pk = match index {
                    None => {
                        text(&t.after, keys::attr::PK).or_else(|| text(&t.before, keys::attr::PK))
                    }
                    Some(name) => {
                        let index = indexes.iter().find(|i| i.name == name).expect("an index");
                        let key = |image| {
                            index
                                .key
                                .partition
                                .iter()
                                .map(|a| text(image, a))
                                .collect::<Option<Vec<_>>>()
                                .map(|v| v.join(", "))
                        };
                        key(&t.after).or_else(|| key(&t.before))
                    }
                };
                writes.push(Written {
                    index: index.unwrap_or("table").to_owned(),
                    pk: form(index.and_then(index_of), &pk.unwrap_or_default()),
                    units,
                    action: match (&t.before, &t.after) {
                        _ if r.refused => "refused",
                        _ if t.checked => "check",
                        (None, _) => "put",
                        (Some(_), Some(_)) => "update",
                        (Some(_), None) => "delete",
                    }
                    .to_owned(),
                });
            }
        }
        let read_index = r.index.and_then(index_of);
        let mut reads: Vec<String> = r.partitions.iter().map(|pk| form(read_index, pk)).collect();
        reads.sort();
        writes.sort_by(|a, b| {
            (&a.index, &a.pk, &a.action)
                .cmp(&(&b.index, &b.pk, &b.action))
                .then(a.units.total_cmp(&b.units))
        });
        Sent {
            operation: r.operation.to_owned(),
            index: r.index.unwrap_or("table").to_owned(),
            consistent: r.consistent,
            items: r.items,
            read_units: crate::bill::request_read_units(r),
            reads,
            writes,
        }
    }

    /// Requests in an order that does not depend on which of parallel ones came back first.
    pub fn sorted(mut sent: Vec<Sent>) -> Vec<Sent> {
        sent.sort_by(|a, b| {
            (&a.operation, &a.index, &a.reads, a.items)
                .cmp(&(&b.operation, &b.index, &b.reads, b.items))
                .then(a.read_units.total_cmp(&b.read_units))
                .then(a.write_units().total_cmp(&b.write_units()))
                .then_with(|| format!("{:?}", a.writes).cmp(&format!("{:?}", b.writes)))
        });
        sent
    }

    pub fn write_units(&self) -> f64 {
        self.writes.iter().map(|w| w.units).sum()
    }
}

/// A key attribute's value as text: a string's, or a number's digits.
pub fn key_text(v: &aws_sdk_dynamodb::types::AttributeValue) -> String {
    match v {
        aws_sdk_dynamodb::types::AttributeValue::S(s) => s.clone(),
        aws_sdk_dynamodb::types::AttributeValue::N(n) => n.clone(),
        other => format!("{other:?}"),
    }
}

/// A partition key's form, the same for every sample run (`CUSTOMER#<customerId>`, not
/// `CUSTOMER#123`; new ids and dates are values of a form too): the registry's form of the
/// table's, GSI1's and GSI2's keys, and another index's key attribute names
/// (`<CustomerId>, <Type>`).
pub fn form(index: Option<&sam_template::Index>, pk: &str) -> String {
    // The registry knows the table's, GSI1's and GSI2's keys; other indexes key on attributes.
    let registered = |i: &sam_template::Index| {
        keys::registry::KINDS
            .iter()
            .any(|k| k.space.index() == Some(i.name.as_str()))
    };
    match index {
        Some(i) if !registered(i) => i
            .key
            .partition
            .iter()
            .map(|a| format!("<{a}>"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => keys::registry::partition_form(index.map(|i| i.name.as_str()), pk)
            .unwrap_or_else(|| format!("unregistered: {pk}")),
    }
}
