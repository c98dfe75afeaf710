//! The workload through the model, aggregated by rates: for each pattern, the top of each
//! population one by one (exact shares), the tail as strata of ranks (exact shares; a shared key
//! such as a shard gets the stratum's share, a key of one subject only the most any tail subject
//! can have); hour by hour over the day; then the stream handlers' writes coalesced per batch.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::{
    model::{self, Also, Arrival, Design, Ix, Shape, Sizes, StreamWrite, Touch},
    popularity::Distribution,
    workload::{PatternLoad, Workload},
};

/// DynamoDB's documented per-partition limits, for the table and each GSI alike.
pub const PARTITION_RCU: f64 = 3_000.0;
pub const PARTITION_WCU: f64 = 1_000.0;

/// Ranks enumerated one by one.
pub const TOP: u64 = 2_000;
/// Strata of the tail.
pub const STRATA: u64 = 2_000;
/// Subjects drawn from each stratum where a shared key depends on the subject (a hash shard):
/// 2,000 strata of one gave the fullest of 20 uniform shards 21.5% too much; of 32, under 5%.
pub const SUBJECTS_PER_STRATUM: u64 = 32;

pub use crate::inputs::BatchTime;

/// How one stream consumer's batches form: its event source mapping's `BatchSize` and
/// `MaximumBatchingWindowInSeconds` (`template.yaml`, or the workload's what-if), and how long a
/// batch takes.
#[derive(Debug, Clone)]
pub struct Consumer {
    pub batch_size: u32,
    pub window_s: f64,
    /// How long a full batch takes.
    pub batch: BatchTime,
    /// `MaximumRecordAgeInSeconds`: a record older is given up (`None`: the stream's 24 hours).
    pub max_record_age_s: Option<f64>,
}

impl Consumer {
    /// Batches a second one stream shard hands the consumer when `records` a second arrive on
    /// it: full batches when they fill within the window, else one per window (plus the batch's
    /// own time), never more than one per record, and one at a time (no `ParallelizationFactor`:
    /// the marks need it).
    pub fn batches(&self, records: f64) -> f64 {
        if records <= 0.0 {
            return 0.0;
        }
        let t = (self.batch.ms / 1000.0).max(1e-6);
        let full = records / f64::from(self.batch_size.max(1));
        let windowed = 1.0 / (self.window_s + t);
        full.max(windowed.min(records)).min(1.0 / t)
    }

    /// Records a second one stream shard's consumer can take: a full batch per batch time.
    pub fn capacity(&self) -> f64 {
        f64::from(self.batch_size) * 1000.0 / self.batch.ms.max(1e-3)
    }

    /// How one shard's consumer fares over the day when `per_shard[h]` records a second arrive
    /// on the shard in hour `h`: the day repeated until its backlog settles.
    pub fn lag(&self, per_shard: &[f64; 24]) -> Lag {
        let capacity = self.capacity();
        let (peak, hour) = peak(per_shard);
        let daily: f64 = per_shard.iter().sum::<f64>() * 3600.0;
        let mut backlog = 0.0f64;
        let mut worst = 0.0f64;
        for day in 0..2 {
            for rate in per_shard {
                backlog = (backlog + (rate - capacity) * 3600.0).max(0.0);
                if day == 1 {
                    worst = worst.max(backlog);
                }
            }
        }
        Lag {
            capacity,
            peak,
            hour,
            behind_by: (peak - capacity).max(0.0),
            age_growth: if peak > capacity {
                1.0 - capacity / peak
            } else {
                0.0
            },
            never_catches_up: daily > capacity * 86_400.0,
            oldest_s: worst / capacity.max(1e-9),
            max_age_s: self.max_record_age_s.unwrap_or(24.0 * 3600.0),
            speedup: peak / capacity.max(1e-9),
        }
    }
}

/// How far one shard's consumer falls behind ([`Consumer::lag`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Lag {
    /// Records a second it drains.
    pub capacity: f64,
    /// The busiest hour's records a second on the shard, and the hour.
    pub peak: f64,
    pub hour: usize,
    /// Records a second more than it drains, at the peak.
    pub behind_by: f64,
    /// Seconds `IteratorAge` grows a second at the peak.
    pub age_growth: f64,
    /// The day brings more than it can drain in a day: the backlog grows day after day.
    pub never_catches_up: bool,
    /// The age of the oldest record waiting at the day's worst, in seconds.
    pub oldest_s: f64,
    /// `MaximumRecordAgeInSeconds`, or the stream's 24 hours.
    pub max_age_s: f64,
    /// How many times faster a batch must be to drain the peak.
    pub speedup: f64,
}

impl Lag {
    pub fn keeps_up(&self) -> bool {
        self.behind_by == 0.0
    }

    /// What the plan says of it.
    pub fn describe(&self) -> String {
        if self.keeps_up() {
            return "yes".to_owned();
        }
        let h = |s: f64| format!("{:.1} h", s / 3600.0);
        let fate = if self.never_catches_up {
            format!(
                "the day brings more than a day drains: the backlog grows day after day, and \
                 records reach {} and go to the failure queue",
                h(self.max_age_s)
            )
        } else if self.oldest_s > self.max_age_s {
            format!(
                "at the day's worst the oldest record waits {}, past {}: records go to the \
                 failure queue",
                h(self.oldest_s),
                h(self.max_age_s)
            )
        } else {
            format!(
                "the backlog drains later in the day; at worst the oldest record waits {}",
                h(self.oldest_s)
            )
        };
        // Not `ParallelizationFactor`: two batches of one shard at once would share its marks
        // and skip each other's records (`store::aggregate`).
        let set = format!(
            "make a batch {:.1} times faster: a larger `BatchSize` (a batch's targets are written \
             at once, so a fuller batch takes little longer), more memory, or more writes in \
             flight (`STREAM_WRITES_IN_FLIGHT`); not `ParallelizationFactor`, as the marks that \
             count each record once need a shard's batches one at a time",
            self.speedup
        );
        format!(
            "no: falls behind by {:.0} records/s a shard at {:02}:00; `IteratorAge` grows {:.2} \
             s a second; {fate}. {set}",
            self.behind_by, self.hour, self.age_growth
        )
    }
}

/// Every stream consumer the plan coalesces writes for, by name.
#[derive(Debug, Clone)]
pub struct Streams {
    pub consumers: BTreeMap<&'static str, Consumer>,
}

impl Streams {
    /// The consumers as deployed: each one's mapping from `template.yaml` (the workload's
    /// `stream.batch_size` and `stream.batching_window_seconds` instead, where it gives them)
    /// and its own batch time (`durations`).
    pub fn of(w: &Workload, durations: &crate::inputs::Durations) -> Streams {
        let template = crate::inputs::template();
        let consumers = crate::fanout::CONSUMERS
            .iter()
            .map(|name| {
                let mapping = template
                    .and_then(|t| t.function(name))
                    .and_then(|f| f.streams.first().cloned());
                let batch_size = w
                    .stream
                    .batch_size
                    .or(mapping.as_ref().map(|m| m.batch_size))
                    .unwrap_or(100);
                let batch = match w.lambda.durations_ms.get(*name) {
                    Some(ms) => BatchTime {
                        ms: *ms,
                        source: "the workload's, a full batch".to_owned(),
                    },
                    None => durations.full_batch(name, batch_size),
                };
                let consumer = Consumer {
                    batch_size,
                    window_s: w.stream.batching_window_seconds.unwrap_or_else(|| {
                        mapping
                            .as_ref()
                            .map_or(0.0, |m| f64::from(m.maximum_batching_window_seconds))
                    }),
                    batch,
                    max_record_age_s: mapping
                        .as_ref()
                        .and_then(|m| m.maximum_record_age_seconds)
                        .filter(|s| *s > 0)
                        .map(|s| s as f64),
                };
                (*name, consumer)
            })
            .collect();
        Streams { consumers }
    }

    /// Every consumer alike: batches of `batch_size` within `window_s`, taking `ms` each.
    pub fn uniform(batch_size: u32, window_s: f64, ms: f64, source: &str) -> Streams {
        Streams {
            consumers: crate::fanout::CONSUMERS
                .iter()
                .map(|name| {
                    let batch = BatchTime {
                        ms,
                        source: source.to_owned(),
                    };
                    (
                        *name,
                        Consumer {
                            batch_size,
                            window_s,
                            batch,
                            max_record_age_s: Some(72_000.0),
                        },
                    )
                })
                .collect(),
        }
    }

    pub fn get(&self, consumer: &str) -> &Consumer {
        self.consumers
            .get(consumer)
            .unwrap_or_else(|| panic!("{consumer}: not a stream consumer of fanout::CONSUMERS"))
    }
}

/// One partition key's heat over the day.
#[derive(Debug, Clone)]
pub struct KeyHeat {
    pub index: Ix,
    pub pk: String,
    pub label: &'static str,
    pub shape: Shape,
    pub rcu: [f64; 24],
    pub wcu: [f64; 24],
    pub items: [f64; 24],
    pub patterns: BTreeSet<String>,
    /// Items of this key a stream handler writes, by sort key: their records per second
    /// (before coalescing) and the writes those records make.
    pub stream_items: Few<StreamItem>,
    /// Calls a second of each pattern that write this key, each hour: what fails when it is
    /// throttled (a throttled index throttles the table writes that feed it).
    pub writers: Few<[f64; 24]>,
    /// The ranked item with the most writers at once (Little's law: writes per second × batch
    /// time), and that many each hour.
    pub contended: Option<(String, [f64; 24])>,
    /// Some of its heat is the tail's, estimated from subjects sampled because the key depends
    /// on the subject (a shard by a hash of its id): [`SUBJECTS_PER_STRATUM`].
    pub sampled: bool,
}

/// A small map by name: a key has a stream item or two and a writer or two, and a BTreeMap's
/// every node has room for eleven (kilobytes a key, hundreds of megabytes a plan).
#[derive(Debug, Clone)]
pub struct Few<V>(pub Vec<(String, V)>);

impl<V> Default for Few<V> {
    fn default() -> Self {
        Few(Vec::new())
    }
}

impl<V> Few<V> {
    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn or_insert_with(&mut self, key: &str, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.0.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.0.push((key.to_owned(), make()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl<V> IntoIterator for Few<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, V> IntoIterator for &'a Few<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, V)>,
        fn(&'a (String, V)) -> (&'a String, &'a V),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

/// A stream handler's target item.
#[derive(Debug, Clone)]
pub struct StreamItem {
    pub stream: StreamWrite,
    pub records: [f64; 24],
    pub wcu: [f64; 24],
    pub also: Option<Also>,
}

impl KeyHeat {
    fn new(index: Ix, pk: String, label: &'static str, shape: Shape) -> KeyHeat {
        KeyHeat {
            index,
            pk,
            label,
            shape,
            rcu: [0.0; 24],
            wcu: [0.0; 24],
            items: [0.0; 24],
            patterns: BTreeSet::new(),
            stream_items: Few::default(),
            writers: Few::default(),
            contended: None,
            sampled: false,
        }
    }

    pub fn peak_rcu(&self) -> (f64, usize) {
        peak(&self.rcu)
    }
    pub fn peak_wcu(&self) -> (f64, usize) {
        peak(&self.wcu)
    }
    /// How far past its limits the key runs at its peak (1 = at a limit).
    pub fn pressure(&self) -> f64 {
        (self.peak_rcu().0 / PARTITION_RCU).max(self.peak_wcu().0 / PARTITION_WCU)
    }
    /// The hours in which it runs past a limit.
    pub fn throttled_hours(&self) -> Vec<usize> {
        (0..24)
            .filter(|h| self.rcu[*h] > PARTITION_RCU || self.wcu[*h] > PARTITION_WCU)
            .collect()
    }
}

pub fn peak(v: &[f64; 24]) -> (f64, usize) {
    v.iter().enumerate().fold(
        (0.0, 0),
        |(m, mh), (h, x)| if *x > m { (*x, h) } else { (m, mh) },
    )
}

/// The most any key of the tail of a population gets.
#[derive(Debug, Clone)]
pub struct Tail {
    pub index: Ix,
    pub label: &'static str,
    pub pattern: String,
    pub keys: u64,
    pub peak_rcu: f64,
    pub peak_wcu: f64,
}

/// What the plan found.
#[derive(Debug, Clone)]
pub struct Heat {
    pub keys: Vec<KeyHeat>,
    pub tails: Vec<Tail>,
    /// Units per hour of the day, per index, everything included (fresh keys too).
    pub rcu: BTreeMap<Ix, [f64; 24]>,
    pub wcu: BTreeMap<Ix, [f64; 24]>,
    /// Requests per second per pattern and hour.
    pub rps: BTreeMap<String, [f64; 24]>,
    /// Stream records per second per consumer and hour.
    pub records: BTreeMap<&'static str, [f64; 24]>,
    pub design: Design,
    pub sizes: Sizes,
}

impl Heat {
    /// The hottest keys first.
    pub fn hottest(&self) -> impl Iterator<Item = &KeyHeat> {
        self.keys.iter()
    }

    pub fn key(&self, index: Ix, pk: &str) -> Option<&KeyHeat> {
        self.keys.iter().find(|k| k.index == index && k.pk == pk)
    }
}

#[derive(Default)]
struct Acc {
    /// Boxed: a KeyHeat is large, and the map moves its values as it grows.
    keys: HashMap<(Ix, String), Box<KeyHeat>>,
    tails: BTreeMap<(Ix, &'static str, String), Tail>,
    rcu: BTreeMap<Ix, [f64; 24]>,
    wcu: BTreeMap<Ix, [f64; 24]>,
    /// The touches being added are a sample of the tail's subjects ([`KeyHeat::sampled`]).
    sampling: bool,
}

impl Acc {
    /// Adds a touch to its index's totals only: what it costs, not which key it heats.
    fn total(&mut self, t: &Touch, rate: f64, curve: &[f64; 24]) {
        let (rcu, wcu) = (
            self.rcu.entry(t.index).or_insert([0.0; 24]),
            self.wcu.entry(t.index).or_insert([0.0; 24]),
        );
        for h in 0..24 {
            rcu[h] += rate * curve[h] * t.rcu;
            wcu[h] += rate * curve[h] * t.wcu;
        }
    }

    /// One call's touches at `rate`: each heats its key (`add`), or, where `heats` says not,
    /// only costs (`total`); and each key the call writes counts the call once among its
    /// writers, however many of the key's items it writes (at the largest share of them).
    fn add_call(
        &mut self,
        touches: &[Touch],
        pattern: &str,
        rate: f64,
        curve: &[f64; 24],
        heats: impl Fn(&Touch) -> bool,
    ) {
        let mut written: Vec<(Ix, &str, f64)> = Vec::new();
        for t in touches {
            if !heats(t) {
                self.total(t, rate, curve);
                continue;
            }
            self.add(t, pattern, rate, curve);
            // A request's own write (not a stream handler's, which is retried, not failed).
            if t.wcu > 0.0 && !t.handler && !t.fresh {
                match written
                    .iter_mut()
                    .find(|(ix, pk, _)| *ix == t.index && *pk == t.pk)
                {
                    Some(w) => w.2 = w.2.max(t.share),
                    None => written.push((t.index, &t.pk, t.share)),
                }
            }
        }
        if rate == 0.0 {
            return;
        }
        for (ix, pk, share) in written {
            let k = self
                .keys
                .get_mut(&(ix, pk.to_owned()))
                .expect("added above");
            let w = k.writers.or_insert_with(pattern, || [0.0; 24]);
            for (h, m) in curve.iter().enumerate() {
                w[h] += rate * m * share;
            }
        }
    }

    fn add(&mut self, t: &Touch, pattern: &str, rate: f64, curve: &[f64; 24]) {
        if rate == 0.0 {
            return;
        }
        self.total(t, rate, curve);
        if t.fresh {
            return;
        }
        // Looked up before inserting: most touches hit a key already there, and a plan makes
        // millions of them.
        let id = (t.index, t.pk.clone());
        let k = match self.keys.get_mut(&id) {
            Some(k) => k,
            None => self
                .keys
                .entry(id)
                .or_insert_with(|| Box::new(KeyHeat::new(t.index, t.pk.clone(), t.label, t.shape))),
        };
        if !k.patterns.contains(pattern) {
            k.patterns.insert(pattern.to_owned());
        }
        k.sampled |= self.sampling;
        // One item while every request touches only that item; ever-increasing once anything
        // writes at the newest sort key; a collection otherwise.
        k.shape = match (k.shape, t.shape) {
            (Shape::Increasing, _) => Shape::Increasing,
            (_, Shape::Increasing) if t.wcu > 0.0 => Shape::Increasing,
            (Shape::Item, Shape::Item) => Shape::Item,
            _ => Shape::Collection,
        };
        let mut item = t.stream.map(|stream| {
            k.stream_items.or_insert_with(&t.sk, || StreamItem {
                stream,
                records: [0.0; 24],
                wcu: [0.0; 24],
                also: t.also.clone(),
            })
        });
        for (h, m) in curve.iter().enumerate() {
            let r = rate * m;
            k.rcu[h] += r * t.rcu;
            k.items[h] += r * t.items;
            match item.as_mut() {
                Some(i) => {
                    i.records[h] += r * t.share;
                    i.wcu[h] += r * t.wcu;
                }
                None => k.wcu[h] += r * t.wcu,
            }
        }
    }

    /// Adds another part's heat to this one's.
    fn merge(&mut self, other: Acc) {
        let add = |a: &mut [f64; 24], b: &[f64; 24]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        for (ix, v) in other.rcu {
            add(self.rcu.entry(ix).or_insert([0.0; 24]), &v);
        }
        for (ix, v) in other.wcu {
            add(self.wcu.entry(ix).or_insert([0.0; 24]), &v);
        }
        for (id, k) in other.keys {
            let Some(mine) = self.keys.get_mut(&id) else {
                self.keys.insert(id, k);
                continue;
            };
            add(&mut mine.rcu, &k.rcu);
            add(&mut mine.wcu, &k.wcu);
            add(&mut mine.items, &k.items);
            mine.patterns.extend(k.patterns);
            mine.sampled |= k.sampled;
            mine.shape = match (mine.shape, k.shape) {
                (Shape::Increasing, _) | (_, Shape::Increasing) => Shape::Increasing,
                (Shape::Item, Shape::Item) => Shape::Item,
                _ => Shape::Collection,
            };
            for (sk, item) in k.stream_items {
                match mine.stream_items.get_mut(&sk) {
                    Some(m) => {
                        add(&mut m.records, &item.records);
                        add(&mut m.wcu, &item.wcu);
                    }
                    None => mine.stream_items.0.push((sk, item)),
                }
            }
            for (pattern, w) in k.writers {
                add(mine.writers.or_insert_with(&pattern, || [0.0; 24]), &w);
            }
        }
        for (id, t) in other.tails {
            match self.tails.get_mut(&id) {
                Some(m) => {
                    m.peak_rcu = m.peak_rcu.max(t.peak_rcu);
                    m.peak_wcu = m.peak_wcu.max(t.peak_wcu);
                }
                None => {
                    self.tails.insert(id, t);
                }
            }
        }
    }

    fn tail(&mut self, t: &Touch, pattern: &str, keys: u64, rate: f64, curve: &[f64; 24]) {
        let peak = curve.iter().copied().fold(0.0, f64::max) * rate;
        let e = self
            .tails
            .entry((t.index, t.label, pattern.to_owned()))
            .or_insert(Tail {
                index: t.index,
                label: t.label,
                pattern: pattern.to_owned(),
                keys,
                peak_rcu: 0.0,
                peak_wcu: 0.0,
            });
        e.peak_rcu = e.peak_rcu.max(peak * t.rcu);
        e.peak_wcu = e.peak_wcu.max(peak * t.wcu);
    }
}

/// The template's defaults for what the workload leaves out.
pub fn design(w: &Workload) -> Design {
    Design {
        order_status_shards: w
            .design
            .order_status_shards
            .unwrap_or_else(|| crate::inputs::parameter_default("OrderStatusShards").unwrap_or(15)),
        aggregate_shards: w
            .design
            .aggregate_shards
            .unwrap_or_else(|| crate::inputs::parameter_default("AggregateShards").unwrap_or(10)),
        index_design: w
            .design
            .index_design
            .unwrap_or_else(crate::inputs::index_design_default),
    }
}

/// Runs the workload. `progress` hears the share done, pattern by pattern.
pub fn run(
    w: &Workload,
    d: Design,
    streams: &Streams,
    progress: &mut dyn FnMut(f64, &str),
) -> Heat {
    let sizes = Sizes::of(w, d);
    let mut rps = BTreeMap::new();
    let mut records: BTreeMap<&'static str, [f64; 24]> = BTreeMap::new();
    for p in &w.patterns {
        let curve = w.curve(p);
        rps.insert(p.id.clone(), std::array::from_fn(|h| p.rps * curve[h]));
        for (consumer, per_call) in crate::model::records_per_call(p) {
            let r = records.entry(consumer).or_insert([0.0; 24]);
            for h in 0..24 {
                r[h] += p.rps * curve[h] * per_call;
            }
        }
    }
    // The patterns are independent until their heat is added up: each core takes every n-th,
    // and the parts are merged in a fixed order, so a plan is the same run after run.
    let cores = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(w.patterns.len().max(1));
    let mut parts: Vec<Acc> = std::thread::scope(|scope| {
        let sizes = &sizes;
        let handles: Vec<_> = (1..cores)
            .map(|c| {
                scope.spawn(move || {
                    let mut acc = Acc::default();
                    for p in w.patterns.iter().skip(c).step_by(cores) {
                        plan_pattern(&mut acc, p, w, d, sizes);
                    }
                    acc
                })
            })
            .collect();
        let mut first = Acc::default();
        for (i, p) in w.patterns.iter().enumerate().step_by(cores) {
            progress(i as f64 / w.patterns.len() as f64, &p.id);
            plan_pattern(&mut first, p, w, d, sizes);
        }
        std::iter::once(first)
            .chain(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a planning thread")),
            )
            .collect()
    });
    let mut acc = parts.remove(0);
    for part in parts {
        acc.merge(part);
    }
    progress(1.0, "");
    // In key order, not the map's: coalescing subtracts from the totals, and floating-point sums
    // in another order differ in their last digits from one run to the next.
    let mut ids: Vec<_> = acc.keys.into_iter().collect();
    ids.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut keys: Vec<KeyHeat> = ids.into_iter().map(|(_, k)| *k).collect();
    coalesce(&mut keys, w, &records, streams, &mut acc.wcu);
    // Sorted by a cached key: a KeyHeat is large, and a comparison sort would move each many
    // times.
    keys.sort_by_cached_key(|k| {
        (
            std::cmp::Reverse(Ordered(k.pressure())),
            k.pk.clone(),
            k.index,
        )
    });
    Heat {
        keys,
        tails: acc.tails.into_values().collect(),
        rcu: acc.rcu,
        wcu: acc.wcu,
        rps,
        records,
        design: d,
        sizes,
    }
}

/// Writes a second of one stream target: `r` records a second for it, on the stream shards it
/// `arrives` on, while the consumer's `shards` carry `all` records a second.
pub fn coalesced(r: f64, all: f64, shards: f64, arrives: Arrival, consumer: &Consumer) -> f64 {
    if r <= 0.0 {
        return 0.0;
    }
    // The shards this target's records arrive on, and the batches each hands over.
    let on = match arrives {
        Arrival::Every => shards,
        Arrival::One => 1.0,
        Arrival::Lanes(n) => n.clamp(1.0, shards),
    };
    let batches = consumer.batches((all / shards).max(r / on));
    (on * batches * (1.0 - (-r / (on * batches)).exp())).min(r)
}

/// An f64 ordered by `total_cmp`, for sort keys: equality and order agree (a derived
/// `PartialOrd` would order by `partial_cmp`, which disagrees on NaN and on -0.0).
struct Ordered(f64);
impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// One pattern's draws, into `acc`: the top of each population one by one, the tail by strata.
fn plan_pattern(acc: &mut Acc, p: &PatternLoad, w: &Workload, d: Design, sizes: &Sizes) {
    let curve = w.curve(p);
    for draw in model::draws(p, w, d, sizes) {
        let rate = p.rps * draw.per_call;
        let every = |_: &Touch| true;
        let shared = |t: &Touch| !t.own || t.fresh;
        let Some(e) = draw.from else {
            acc.add_call(&(draw.touches)(0), &p.id, rate, &curve, every);
            continue;
        };
        let n = w.population(e).count;
        let dist = Distribution::new(n, w.popularity(p, e));
        let top = n.min(TOP);
        for k in 1..=top {
            let m = dist.mass(k);
            acc.add_call(&(draw.touches)(k), &p.id, rate * m, &curve, every);
        }
        if n > top {
            // Keys of one subject: the most any tail subject gets (rank top + 1's share).
            let first = top + 1;
            for t in (draw.touches)(first).iter().filter(|t| t.own && !t.fresh) {
                acc.tail(t, &p.id, n - top, rate * dist.mass(first), &curve);
            }
            // Shared keys and fresh ones: each stratum's share, on its middle subject's keys.
            let strata = (n - top).min(STRATA);
            let width = (n - top) as f64 / strata as f64;
            // A draw whose keys are all its subject's own or new ones heats no shared key: the
            // tail only costs, the same units a subject, so its whole share is added at once.
            let sample = (draw.touches)(first);
            if sample.iter().all(|t| t.own || t.fresh) {
                let m = dist.range(first, n);
                acc.add_call(&sample, &p.id, rate * m, &curve, shared);
                continue;
            }
            // A shared key that depends on the subject (a shard by a hash of its id) is
            // estimated from the subjects sampled: more of them a stratum, so that the fullest
            // shard comes out within a few percent ([`SUBJECTS_PER_STRATUM`]).
            let keyed = |k: u64| -> Vec<(Ix, String)> {
                (draw.touches)(k)
                    .into_iter()
                    .filter(|t| !t.own && !t.fresh)
                    .map(|t| (t.index, t.pk))
                    .collect()
            };
            let base = keyed(first);
            let varies = (1..8).any(|i| first + i <= n && keyed(first + i) != base);
            let per = if varies { SUBJECTS_PER_STRATUM } else { 1 };
            acc.sampling = varies;
            for j in 0..strata {
                let from = first + (j as f64 * width) as u64;
                let to = (first + ((j + 1) as f64 * width) as u64 - 1).min(n);
                let m = dist.range(from, to);
                // Keys of one tail subject are each below the most reported above, but every
                // one of them costs: their units go to the totals.
                let span = to - from + 1;
                let per = per.min(span);
                for i in 0..per {
                    let subject = from + (span * (2 * i + 1)) / (2 * per);
                    let touches = (draw.touches)(subject);
                    acc.add_call(&touches, &p.id, rate * m / per as f64, &curve, shared);
                }
            }
            acc.sampling = false;
        }
    }
}

/// A stream handler writes each target item once per batch that holds a record for it, per
/// stream shard (and its position once per batch): `records` per second arriving on `shards` shards that each hand the consumer
/// `batches` batches a second ([`Consumer::batches`], Poisson arrivals) make
/// `shards × batches × (1 − e^(−records / (shards × batches)))` writes a second.
fn coalesce(
    keys: &mut Vec<KeyHeat>,
    w: &Workload,
    records: &BTreeMap<&'static str, [f64; 24]>,
    streams: &Streams,
    totals: &mut BTreeMap<Ix, [f64; 24]>,
) {
    let shards = f64::from(w.stream.shards.max(1));
    let mut also: BTreeMap<(Ix, String), (&'static str, [f64; 24])> = BTreeMap::new();
    for k in keys.iter_mut() {
        for (sk, item) in &k.stream_items {
            let s = item.stream;
            let consumer = streams.get(s.consumer);
            let t = consumer.batch.ms / 1000.0;
            let all = records.get(s.consumer).copied().unwrap_or([0.0; 24]);
            let mut writers = [0.0; 24];
            for h in 0..24 {
                let r = item.records[h];
                if r == 0.0 {
                    continue;
                }
                let writes = coalesced(r, all[h], shards, s.arrives, consumer);
                let target_wcu = writes * item.wcu[h] / r;
                k.wcu[h] += target_wcu;
                writers[h] = writes * t;
                if let Some(total) = totals.get_mut(&k.index) {
                    total[h] -= item.wcu[h] - target_wcu;
                }
                if let Some(a) = &item.also {
                    let e = also
                        .entry((a.index, a.pk.clone()))
                        .or_insert((a.label, [0.0; 24]));
                    e.1[h] += writes * a.wcu;
                    *totals
                        .entry(a.index)
                        .or_insert([0.0; 24])
                        .get_mut(h)
                        .expect("an hour") += writes * a.wcu;
                }
            }
            let busiest =
                |c: &Option<(String, [f64; 24])>| c.as_ref().map_or(0.0, |c| peak(&c.1).0);
            if s.ranked && peak(&writers).0 > busiest(&k.contended) {
                k.contended = Some((sk.clone(), writers));
            }
        }
    }
    for ((index, pk), (label, wcu)) in also {
        let pos = keys.iter().position(|k| k.index == index && k.pk == pk);
        let k = match pos {
            Some(p) => &mut keys[p],
            None => {
                keys.push(KeyHeat::new(index, pk, label, Shape::Collection));
                keys.last_mut().expect("just pushed")
            }
        };
        for (total, w) in k.wcu.iter_mut().zip(wcu) {
            *total += w;
        }
    }
    // Each consumer's position, once a batch on each stream shard (`stream_handler::position`):
    // an item of its own per shard, written at most once per batch time, never hot.
    let table = totals.entry(Ix::TABLE).or_insert([0.0; 24]);
    for (name, all) in records {
        let consumer = streams.get(name);
        for h in 0..24 {
            table[h] += shards * consumer.batches(all[h] / shards) * POSITION_WCU;
        }
    }
}

/// A consumer's position write: an item of about 100 bytes, one unit.
pub const POSITION_WCU: f64 = 1.0;
