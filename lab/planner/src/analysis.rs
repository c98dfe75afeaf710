//! What the heat means: which keys throttle, why a split cannot help them, and the shard counts
//! that would, computed by seed 003's formula and checked by planning again at that count.

use crate::{
    model::{Arrival, Design, Ix, Shape},
    sim::{self, Heat, KeyHeat, PARTITION_RCU, PARTITION_WCU, Streams},
    workload::Workload,
};

/// One key past a limit, or one the plan flags.
#[derive(Debug, Clone)]
pub struct Finding {
    pub index: Ix,
    pub pk: String,
    pub label: &'static str,
    /// What is wrong, and when.
    pub problem: String,
    /// What fixes it.
    pub fix: String,
}

/// Seed 003's shard count for O5's OPEN-orders read, and the plan at that count and at 1.
#[derive(Debug, Clone)]
pub struct StatusShards {
    /// Items a second the read needs at its peak (the seed's MaxRequiredIO).
    pub max_required_io: f64,
    pub item_bytes: f64,
    pub items_per_rcu: u64,
    pub partition_max_read_rate: u64,
    /// Shards O5's reads need (seed 003's N).
    pub n_reads: u32,
    /// The peak of every order header's writes to GSI2 (placed, status moved), summed over the
    /// shards, and the fewest shards that keep the fullest under the write limit by the real
    /// hash of real order ids.
    pub peak_wcu: f64,
    pub n_writes: u32,
    /// The larger of the two, and padded.
    pub n: u32,
    pub padded: u32,
    /// The hottest `ORDERS#<shard>` read at N, at the padded count, and with one partition.
    pub hottest_rcu_at_n: f64,
    pub hottest_rcu_padded: f64,
    pub hottest_rcu_at_1: f64,
    /// O5 called less than once a second: each call a pass over every OPEN order, which the
    /// seed's formula reads within a second ("relatively infrequently so that you can use burst
    /// capacity").
    pub pass: Option<Pass>,
}

/// One O5 call over every OPEN order, as seed 003 describes it: rare, read within a second.
#[derive(Debug, Clone, PartialEq)]
pub struct Pass {
    /// Calls an hour at the peak.
    pub per_hour: f64,
    /// Items one pass reads.
    pub items: u64,
    /// Read units one pass takes from each shard's partition at N, and from one partition
    /// unsharded (eventually consistent, as O5 reads).
    pub shard_rcu_at_n: f64,
    pub rcu_at_1: f64,
}

/// Unused provisioned capacity a table keeps for bursts, in seconds of its rate (AWS: up to
/// 300). A partition's own limit still holds: burst capacity lets a rare read exceed the table's
/// provisioned rate, not a partition's 3,000 RCU a second.
pub const BURST_SECONDS: f64 = 300.0;

/// The aggregate shard count that keeps every counter shard under the write limit.
#[derive(Debug, Clone)]
pub struct CounterShards {
    pub current: u32,
    pub hottest_wcu_now: f64,
    pub hottest_key_now: String,
    /// `None` when no count up to the most a key may have is enough.
    pub needed: Option<u32>,
    /// What to set: `needed` padded by 15%, rounded up, for skew the plan cannot see (seed 003
    /// pads its 13 to 15 and gives no percentage).
    pub padded: Option<u32>,
    pub hottest_wcu_at_needed: f64,
    /// What one read of a product's sales (and of a day's stats) then costs.
    pub reader_rcu: f64,
}

/// Padding for anomalies: 15% more, rounded up, which turns seed 003's 13 into its 15.
pub fn pad(n: u32) -> u32 {
    (f64::from(n) * 1.15).ceil() as u32
}

fn hottest<'h>(heat: &'h Heat, label: &str, reads: bool) -> Option<&'h KeyHeat> {
    heat.keys
        .iter()
        .filter(|k| k.label == label)
        .max_by(|a, b| {
            let (x, y) = if reads {
                (a.peak_rcu().0, b.peak_rcu().0)
            } else {
                (a.peak_wcu().0, b.peak_wcu().0)
            };
            x.total_cmp(&y)
        })
}

/// `OrderStatusShards` from both sides: O5 under seed 003's formula (N from the peak items a
/// second its read needs, checked by planning O5 again with N, N padded and 1 shards), and the
/// order headers' writes to GSI2, spread by the real hash of real order ids.
pub fn status_shards(w: &Workload, heat: &Heat, streams: &Streams) -> Option<StatusShards> {
    let o5 = w.patterns.iter().find(|p| p.id == "O5");
    let family: Vec<&KeyHeat> = heat
        .keys
        .iter()
        .filter(|k| k.label == "ORDERS#<shard>")
        .collect();
    if o5.is_none() && family.is_empty() {
        return None;
    }
    let item_bytes = heat.sizes.order_header;
    let items_per_rcu = (4096 / (item_bytes as u64).max(1)).max(1);
    // Items a second: a call's items times calls a second; a call less than once a second is a
    // pass read within a second, as the seed's formula takes it.
    let calls = o5.map_or(0.0, |o5| sim::peak(&heat.rps[&o5.id]).0);
    let o5_items = o5.map_or(0, |o5| crate::model::o5_items(o5, w));
    let max_required_io = if o5.is_some() {
        calls.max(1.0) * o5_items as f64
    } else {
        0.0
    };
    let n_reads = if o5.is_some() {
        keys::shard_count(max_required_io.ceil() as u64, item_bytes as u64)
    } else {
        1
    };
    let hourly: [f64; 24] = std::array::from_fn(|h| family.iter().map(|k| k.wcu[h]).sum());
    let peak_wcu = sim::peak(&hourly).0;
    let orders = w.entities.orders.as_ref().map_or(1_000_000, |o| o.count);
    let fullest = |n: u32| {
        crate::model::spread(orders, n, keys::commerce::order_shard_weight)
            .iter()
            .map(|(_, share)| *share)
            .fold(0.0, f64::max)
    };
    let n_writes = (1..=keys::Shard::MAX_COUNT)
        .find(|n| peak_wcu * fullest(*n) <= PARTITION_WCU)
        .unwrap_or(keys::Shard::MAX_COUNT);
    // The key design takes at most `Shard::MAX_COUNT`: past it, the report says so.
    let n = n_reads.max(n_writes);
    let at = |shards: u32| {
        let shards = shards.min(keys::Shard::MAX_COUNT);
        let Some(o5) = o5 else { return 0.0 };
        let only = Workload {
            patterns: vec![o5.clone()],
            ..w.clone()
        };
        let d = Design {
            order_status_shards: shards,
            ..heat.design
        };
        let h = sim::run(&only, d, streams, &mut |_, _| {});
        hottest(&h, "ORDERS#<shard>", true).map_or(0.0, |k| k.peak_rcu().0)
    };
    Some(StatusShards {
        max_required_io,
        item_bytes,
        items_per_rcu,
        partition_max_read_rate: 3000 * items_per_rcu,
        n_reads,
        peak_wcu,
        n_writes,
        n,
        padded: pad(n).min(keys::Shard::MAX_COUNT),
        hottest_rcu_at_n: at(n),
        hottest_rcu_padded: at(pad(n)),
        hottest_rcu_at_1: at(1),
        pass: (o5.is_some() && calls < 1.0).then(|| {
            // A Query's bill, eventually consistent: the items' sizes summed, by the one meter.
            let rcu =
                |items: f64| devkit::bill::read_units((items * item_bytes).ceil() as usize, false);
            Pass {
                per_hour: calls * 3600.0,
                items: o5_items,
                shard_rcu_at_n: rcu(o5_items as f64 / f64::from(n.max(1))),
                rcu_at_1: rcu(o5_items as f64),
            }
        }),
    })
}

/// The key design parameter that sets the shard count of a sharded key, if one does.
pub fn shard_parameter(label: &str) -> Option<&'static str> {
    match label {
        "ORDERS#<shard>" => Some("OrderStatusShards"),
        "SALES#<sku>#<shard>" | "STATS#<date>#<shard>" => Some("AggregateShards"),
        _ => None,
    }
}

/// The counters' shard count: the fewest aggregate shards under which no `SALES#` or `STATS#`
/// shard is written past the limit. Each counter's records a second do not depend on the count
/// (they are the orders' and reviews'); which stream shards write each counter shard does, as
/// their lanes choose (`Lane::counter_shard`, the real rule over sample shard ids): the hottest
/// counter's records are taken from the plan, and each count is tried by its fullest shard (the
/// most lanes: the most records, writes and marks) and the consumer's coalescing
/// (`sim::coalesced`), without planning the workload again.
pub fn counter_shards(w: &Workload, heat: &Heat, streams: &Streams) -> Option<CounterShards> {
    let (now, key) = heat
        .keys
        .iter()
        .filter(|k| matches!(k.label, "SALES#<sku>#<shard>" | "STATS#<date>#<shard>"))
        .map(|k| (k.peak_wcu().0, k.pk.clone()))
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    // Each counter (a product's sales, a day's stats): its records each hour over all its
    // shards, its item's size without marks, and its consumer.
    struct Counter {
        records: [f64; 24],
        bytes: f64,
        consumer: &'static str,
    }
    let mut counters: std::collections::BTreeMap<String, Counter> = Default::default();
    for k in &heat.keys {
        let bytes = match k.label {
            "SALES#<sku>#<shard>" => heat.sizes.product_sales,
            "STATS#<date>#<shard>" => heat.sizes.daily_stats,
            _ => continue,
        };
        let counter = k.pk.rsplit_once('#').map_or(k.pk.as_str(), |(c, _)| c);
        for item in k.stream_items.values() {
            let c = counters
                .entry(format!("{counter} {}", item.stream.consumer))
                .or_insert(Counter {
                    records: [0.0; 24],
                    bytes,
                    consumer: item.stream.consumer,
                });
            for h in 0..24 {
                c.records[h] += item.records[h];
            }
        }
    }
    let stream_shards = w.stream.shards.max(1);
    let shards = f64::from(stream_shards);
    let at = |count: u32| {
        counters
            .values()
            .map(|c| {
                let lanes = crate::model::lane_spread(c.consumer, stream_shards, count)
                    .iter()
                    .map(|(_, lanes)| *lanes)
                    .fold(0.0, f64::max);
                let all = heat.records.get(c.consumer).copied().unwrap_or([0.0; 24]);
                let consumer = streams.get(c.consumer);
                let per_write = crate::model::counter_write(c.bytes, lanes);
                (0..24)
                    .map(|h| {
                        let r = c.records[h] * lanes / shards;
                        sim::coalesced(r, all[h], shards, Arrival::Lanes(lanes), consumer)
                            * per_write
                    })
                    .fold(0.0, f64::max)
            })
            .fold(0.0, f64::max)
    };
    let current = heat.design.aggregate_shards;
    let (needed, at_needed) = if now <= PARTITION_WCU {
        (Some(current), now)
    } else {
        // Doubling, then halving back: the fewest shards that pass.
        let max = keys::Shard::MAX_COUNT;
        let (mut lo, mut hi) = (current, current);
        let mut found = None;
        while hi < max {
            hi = (hi * 2).min(max);
            let wcu = at(hi);
            if wcu <= PARTITION_WCU {
                found = Some((hi, wcu));
                break;
            }
            lo = hi;
        }
        match found {
            None => (None, at(max)),
            Some((mut best, mut best_wcu)) => {
                while best - lo > 1 {
                    let mid = (lo + best) / 2;
                    let wcu = at(mid);
                    if wcu <= PARTITION_WCU {
                        (best, best_wcu) = (mid, wcu);
                    } else {
                        lo = mid;
                    }
                }
                (Some(best), best_wcu)
            }
        }
    };
    let padded = needed.map(|n| pad(n).min(keys::Shard::MAX_COUNT));
    let shards = padded.unwrap_or(keys::Shard::MAX_COUNT);
    Some(CounterShards {
        current,
        hottest_wcu_now: now,
        hottest_key_now: key,
        needed,
        padded,
        hottest_wcu_at_needed: at_needed,
        reader_rcu: f64::from(shards) * crate::model::rcu(heat.sizes.product_sales, false),
    })
}

/// Every key past a limit, and every ranked item several stream shards rewrite at once.
pub fn findings(heat: &Heat) -> Vec<Finding> {
    let mut out = Vec::new();
    for k in &heat.keys {
        let (rcu, rh) = k.peak_rcu();
        let (wcu, wh) = k.peak_wcu();
        let hours = k.throttled_hours();
        let when = describe_hours(&hours);
        if wcu > PARTITION_WCU {
            let n = (wcu / PARTITION_WCU).ceil() as u32;
            let (problem, fix) = match (k.shape, k.label) {
                (_, "ORDERS#<shard>") => (
                    format!(
                        "a status shard written {wcu:.0} WCU/s at {wh:02}:00 UTC, past \
                         {PARTITION_WCU:.0} ({when})"
                    ),
                    "raise `OrderStatusShards` (O5 already queries every shard): see O5's \
                     status shards below, which counts the writes too"
                        .to_owned(),
                ),
                (_, "SALES#<sku>#<shard>" | "STATS#<date>#<shard>") => (
                    format!(
                        "a counter shard written {wcu:.0} WCU/s at {wh:02}:00 UTC, past \
                         {PARTITION_WCU:.0} ({when})"
                    ),
                    "raise `AggregateShards`: see the counters' shard count below".to_owned(),
                ),
                (Shape::Increasing, _) => (
                    format!(
                        "{wcu:.0} WCU/s at {wh:02}:00 UTC on one partition key whose writes all \
                         take the newest sort key ({when}): a split for heat cannot help, every \
                         write still lands on the last partition"
                    ),
                    format!(
                        "write-shard the partition key by a hash of the written item's id \
                         (`{}#<shard>`, at least {n} shards, {} padded) and have its readers \
                         query every shard in parallel and merge, as O5 does",
                        k.label.trim_end_matches('#'),
                        pad(n)
                    ),
                ),
                (Shape::Item, _) => (
                    format!(
                        "one item written {wcu:.0} WCU/s at {wh:02}:00 UTC ({when}): no split \
                         can divide one item"
                    ),
                    format!(
                        "write-shard it ({n} shards, {} padded) and sum the shards on read",
                        pad(n)
                    ),
                ),
                (Shape::Collection, _) => (
                    format!("{wcu:.0} WCU/s at {wh:02}:00 UTC ({when})"),
                    format!(
                        "a split by sort-key range may absorb it if the writes spread over the \
                         collection; if not, write-shard the key ({n} shards, {} padded)",
                        pad(n)
                    ),
                ),
            };
            out.push(Finding {
                index: k.index,
                pk: k.pk.clone(),
                label: k.label,
                problem,
                fix,
            });
        }
        if rcu > PARTITION_RCU {
            let fix = if k.label.contains("<shard>") {
                // A sharded read: seed 003's formula over the whole read, every shard of it.
                let family: Vec<&KeyHeat> = heat
                    .keys
                    .iter()
                    .filter(|f| f.index == k.index && f.label == k.label)
                    .collect();
                let items: f64 = family.iter().map(|f| f.items[rh]).sum();
                let bytes = bytes_per_item(&family, rh);
                let n = keys::shard_count(items.ceil() as u64, bytes.max(1.0) as u64);
                format!(
                    "seed 003's formula for the {items:.0} items/s of {bytes:.0} bytes read \
                     across every `{}` at that hour: N = {n} shards ({} padded); it has {}",
                    k.label,
                    pad(n),
                    family.len()
                )
            } else {
                let n = (rcu / PARTITION_RCU).ceil() as u32;
                format!(
                    "one partition key read {n} times what a partition serves: a split cannot \
                     divide reads of the same items; cache them (DAX, or in the function for a \
                     few seconds) or keep {n} copies and read one at random"
                )
            };
            out.push(Finding {
                index: k.index,
                pk: k.pk.clone(),
                label: k.label,
                problem: format!(
                    "{rcu:.0} RCU/s at {rh:02}:00 UTC, past {PARTITION_RCU:.0} ({when})"
                ),
                fix,
            });
        }
        let contended = k
            .contended
            .as_ref()
            .map(|(sk, w)| (sk, sim::peak(w)))
            .filter(|(_, w)| w.0 > 1.0);
        if let Some((sk, writers)) = contended {
            out.push(Finding {
                index: k.index,
                pk: k.pk.clone(),
                label: k.label,
                problem: format!(
                    "item `{sk}` rewritten by about {:.1} stream batches at once at {:02}:00 \
                     UTC (every stream shard holds orders of it): each is a read-modify-write \
                     of its total, so they race, retry and fail batches",
                    writers.0, writers.1
                ),
                fix: "keep per-shard partial totals (one item per stream shard or hash \
                      shard) and rank from their periodic sum, or let one writer own the \
                      item"
                    .to_owned(),
            });
        }
    }
    out
}

/// The average size of the items read from `keys` at hour `h`, from the units they cost (eventually
/// consistent: half a unit per 4 KB), as the seed's AvgItemSize.
fn bytes_per_item(keys: &[&KeyHeat], h: usize) -> f64 {
    let items: f64 = keys.iter().map(|k| k.items[h]).sum();
    let rcu: f64 = keys.iter().map(|k| k.rcu[h]).sum();
    if items == 0.0 {
        return 4096.0;
    }
    rcu * 2.0 * 4096.0 / items
}

/// "14:00–16:00 UTC" for the hours a key runs past a limit.
pub fn describe_hours(hours: &[usize]) -> String {
    if hours.is_empty() {
        return "never".to_owned();
    }
    if hours.len() == 24 {
        return "all day".to_owned();
    }
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &h in hours {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == h => *end = h,
            _ => runs.push((h, h)),
        }
    }
    runs.iter()
        .map(|(a, b)| format!("{a:02}:00–{:02}:00 UTC", b + 1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A key at or over [`crate::limits::NEAR`] of a limit at its peak, but not past it: several
/// such keys can share a partition until DynamoDB splits it for heat (minutes), and a little
/// more traffic puts them past.
#[derive(Debug, Clone)]
pub struct NearLimit {
    pub index: Ix,
    pub pk: String,
    pub label: &'static str,
    /// The larger of its peak reads and writes as a share of their limits.
    pub share: f64,
    pub hour: usize,
}

pub fn near_limit(heat: &Heat) -> Vec<NearLimit> {
    heat.keys
        .iter()
        .filter(|k| (crate::limits::NEAR..=1.0).contains(&k.pressure()))
        .map(|k| {
            let (r, rh) = k.peak_rcu();
            let (w, wh) = k.peak_wcu();
            let hour = if r / PARTITION_RCU >= w / PARTITION_WCU {
                rh
            } else {
                wh
            };
            NearLimit {
                index: k.index,
                pk: k.pk.clone(),
                label: k.label,
                share: k.pressure(),
                hour,
            }
        })
        .collect()
}

/// A pattern whose writes to a throttled key fail: every write of the request goes into one
/// transaction or one request, so a throttled index key (back-pressure) or table key fails the
/// whole call, at the share of the key's writes past the limit.
#[derive(Debug, Clone)]
pub struct FailingWrite {
    pub index: Ix,
    pub pk: String,
    pub pattern: String,
    /// Its calls a second that write the key, at the key's peak hour, and how many of them fail.
    pub calls: f64,
    pub failing: f64,
    pub hour: usize,
}

pub fn failing_writes(heat: &Heat) -> Vec<FailingWrite> {
    let mut out = Vec::new();
    for k in &heat.keys {
        let (wcu, h) = k.peak_wcu();
        if wcu <= PARTITION_WCU {
            continue;
        }
        let past = 1.0 - PARTITION_WCU / wcu;
        for (pattern, calls) in &k.writers {
            out.push(FailingWrite {
                index: k.index,
                pk: k.pk.clone(),
                pattern: pattern.clone(),
                calls: calls[h],
                failing: calls[h] * past,
                hour: h,
            });
        }
    }
    out.sort_by(|a, b| b.failing.total_cmp(&a.failing));
    out
}
