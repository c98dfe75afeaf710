//! What the planner adds up: one request's share on one partition key of the table or an index
//! ([`Touch`]), the draws a call makes of them ([`Draw`]), and the capacity units of a read or
//! write of so many bytes. The hand models (`model`) and the profiled routes (`generic`) both
//! build these.

use keys::Gsi1Key;

use crate::entity::Entity;

/// The table or one of its global secondary indexes, by name (`template.yaml`'s `IndexName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ix(pub &'static str);

impl Ix {
    pub const TABLE: Ix = Ix("table");
    pub const GSI1: Ix = Ix("GSI1");
    pub const GSI2: Ix = Ix("GSI2");

    pub fn name(self) -> &'static str {
        self.0
    }
}

/// What a partition key holds, for what a split can and cannot do for its heat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// One item: a split cannot divide one item's traffic.
    Item,
    /// An item collection whose writes go to the newest sort key (ULIDs, timestamps): a split
    /// leaves every write on the last partition.
    Increasing,
    /// An item collection read or written across its sort keys.
    Collection,
}

/// One request's share on one partition key.
#[derive(Debug, Clone, PartialEq)]
pub struct Touch {
    pub index: Ix,
    pub pk: String,
    /// The sort key of the item written, for a stream handler's target (coalesced per item).
    pub sk: String,
    /// What each coalesced write of a stream target also writes elsewhere (a ranking key moved
    /// in GSI1: a delete and a put).
    pub also: Option<Also>,
    /// The key's shape as the catalogue writes it (`PRODUCT#<sku>`), for the report.
    pub label: &'static str,
    pub shape: Shape,
    pub rcu: f64,
    pub wcu: f64,
    /// Items read (for seed 003's items-per-second arithmetic).
    pub items: f64,
    /// Written by a stream handler: what it writes per source record, before coalescing.
    pub stream: Option<StreamWrite>,
    /// Written by a stream handler (a coalesced target, a status moved): retried
    /// when throttled, not failed back to a client.
    pub handler: bool,
    /// Whether the key belongs to the drawn subject alone (a customer's partition) or is shared by
    /// many (a shard, a ranking): the tail of a population is sampled for shared keys.
    pub own: bool,
    /// A key new with each call (a new order's partition, an idempotency record): it costs, but never
    /// heats up; the report counts it without listing it.
    pub fresh: bool,
    /// The share of a draw this touch stands for (a shard's share of a spread).
    pub share: f64,
}

/// An index write that goes with each write of a stream target.
#[derive(Debug, Clone, PartialEq)]
pub struct Also {
    pub index: Ix,
    pub pk: String,
    pub label: &'static str,
    pub wcu: f64,
}

/// A stream handler's write to a target: coalesced per batch and stream shard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamWrite {
    pub consumer: &'static str,
    /// The stream shards whose batches write this target.
    pub arrives: Arrival,
    /// A read-modify-write (a ranked target): concurrent writers race.
    pub ranked: bool,
}

/// The stream shards whose batches write a target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Every one: its source items are spread over the table (a rep's orders, a user's reviews).
    Every,
    /// One: every source item is in one partition (a customer's orders, a book's reviews).
    One,
    /// This many: a counter shard, which the stream shards whose lane chooses it write
    /// (`Lane::counter_shard`, [`lane_spread`]).
    Lanes(f64),
}

/// One population a call draws from, `per_call` times, and what each draw touches.
pub struct Draw<'a> {
    pub from: Option<Entity>,
    pub per_call: f64,
    pub touches: Box<dyn Fn(u64) -> Vec<Touch> + 'a>,
}

/// Write units of one write of an item of `bytes`: 1 per KB, rounded up.
pub fn wcu(bytes: f64) -> f64 {
    (bytes / 1024.0).ceil().max(1.0)
}

/// Read units of reading `bytes` in one request: 1 per 4 KB rounded up, half when eventually
/// consistent.
pub fn rcu(bytes: f64, consistent: bool) -> f64 {
    let units = (bytes / 4096.0).ceil().max(1.0);
    if consistent { units } else { units / 2.0 }
}

pub fn touch(index: Ix, pk: &str, label: &'static str, shape: Shape) -> Touch {
    Touch {
        index,
        pk: pk.to_owned(),
        sk: String::new(),
        also: None,
        label,
        shape,
        rcu: 0.0,
        wcu: 0.0,
        items: 0.0,
        stream: None,
        handler: false,
        own: true,
        fresh: false,
        share: 1.0,
    }
}

impl Touch {
    pub(crate) fn read(mut self, rcu: f64, items: f64) -> Touch {
        self.rcu += rcu;
        self.items += items;
        self
    }
    pub(crate) fn write(mut self, wcu: f64) -> Touch {
        self.wcu += wcu;
        self
    }
    pub fn shared(mut self) -> Touch {
        self.own = false;
        self
    }
    /// A partition each call makes anew: it costs, never heats up.
    pub fn fresh(mut self) -> Touch {
        self.fresh = true;
        self.own = false;
        self
    }
    pub fn by_stream(mut self, s: StreamWrite) -> Touch {
        self.stream = Some(s);
        self.handler = true;
        self
    }
    /// Written by a stream handler, once per record (not coalesced).
    pub fn by_handler(mut self) -> Touch {
        self.handler = true;
        self
    }
    /// Each coalesced write of this stream target also writes `wcu` on `k` of GSI1.
    pub(crate) fn moving(mut self, k: &Gsi1Key, label: &'static str, wcu: f64) -> Touch {
        self.also = Some(Also {
            index: Ix::GSI1,
            pk: k.pk().to_owned(),
            label,
            wcu,
        });
        self
    }
    /// Its writes `f` times over, each a write of the same item (a delete beside a put).
    pub(crate) fn times_wcu(mut self, f: f64) -> Touch {
        self.wcu *= f;
        self
    }
    /// A stream target written once per call for `n` records (coalesced in one batch).
    pub(crate) fn records(mut self, n: f64) -> Touch {
        self.share = n;
        self
    }
    /// The same touch `f` times over (a share of a spread).
    pub fn times(mut self, f: f64) -> Touch {
        self.rcu *= f;
        self.wcu *= f;
        self.items *= f;
        self.share *= f;
        self
    }
}
