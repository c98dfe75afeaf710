//! The table's own limits, beside the partitions': what a new on-demand table serves at once, how
//! fast it grows, the default quotas, and what the template's `WarmThroughput` and
//! `OnDemandThroughput` parameters should then be. AWS's documented figures (on-demand capacity
//! mode and service quotas, as of 2026-11).

use crate::{
    model::Ix,
    sim::{self, Heat, Streams},
    workload::Workload,
};

/// What a new on-demand table (and each new index) serves at once, a second.
pub const NEW_TABLE_RCU: f64 = 12_000.0;
pub const NEW_TABLE_WCU: f64 = 4_000.0;
/// On-demand capacity grows to double the previous peak within about this long.
pub const DOUBLING_MINUTES: f64 = 30.0;
/// The default quota of each of the table and its indexes, read and write request units a second
/// (an increase is asked of AWS Support or Service Quotas).
pub const QUOTA: f64 = 40_000.0;
/// A key at this share of a partition's limit is reported as near it.
pub const NEAR: f64 = 0.8;
/// The cost guard's headroom over the peak: `OnDemandThroughput` throttles past it.
pub const GUARD_HEADROOM: f64 = 1.5;

/// The table's or one index's peak, against the limits.
#[derive(Debug, Clone)]
pub struct Throughput {
    pub index: Ix,
    pub rcu: (f64, usize),
    pub wcu: (f64, usize),
}

impl Throughput {
    /// Minutes a new table (or index) takes to grow to the peak by doubling, unwarmed.
    pub fn warm_up_minutes(&self) -> f64 {
        let doublings = |peak: f64, start: f64| {
            if peak <= start {
                0.0
            } else {
                (peak / start).log2().ceil()
            }
        };
        doublings(self.rcu.0, NEW_TABLE_RCU).max(doublings(self.wcu.0, NEW_TABLE_WCU))
            * DOUBLING_MINUTES
    }

    pub fn over_quota(&self) -> bool {
        self.rcu.0 > QUOTA || self.wcu.0 > QUOTA
    }
}

/// The table first, then each index, at their peaks (everything included: fresh keys, the tail,
/// the stream handlers' coalesced writes).
pub fn throughput(heat: &Heat) -> Vec<Throughput> {
    let indexes = std::iter::once(Ix::TABLE).chain(heat.design.indexes().iter().map(|i| i.index));
    indexes
        .filter_map(|ix| {
            let rcu = heat.rcu.get(&ix).map(sim::peak).unwrap_or((0.0, 0));
            let wcu = heat.wcu.get(&ix).map(sim::peak).unwrap_or((0.0, 0));
            (rcu.0 > 0.0 || wcu.0 > 0.0).then_some(Throughput {
                index: ix,
                rcu,
                wcu,
            })
        })
        .collect()
}

/// One table of a `TableLayout` table-per-context deployment: its context, its logical id, and
/// its peaks (the table first, then each index).
#[derive(Debug, Clone)]
pub struct TableLoad {
    pub context: &'static str,
    pub table: String,
    pub throughput: Vec<Throughput>,
}

/// Each context's table, planned from that context's patterns alone (the consumers' writes
/// follow the patterns whose records they read, so the site-wide counts split as the consumers
/// keep them). A pattern's crossings stay in its own context's table: commerce's checks of an
/// employee and a warehouse, and the reviews' share of the daily counts that `get-daily-stats`
/// reads, count in commerce's (a few units a call).
pub fn per_context(
    w: &Workload,
    streams: &Streams,
    design: crate::model::Design,
) -> Vec<TableLoad> {
    sam_template::layout::CONTEXTS
        .into_iter()
        .filter_map(|context| {
            let patterns: Vec<_> = w
                .patterns
                .iter()
                .filter(|p| catalogue::context(crate::generic::function_of(&p.id)) == Some(context))
                .cloned()
                .collect();
            if patterns.is_empty() {
                return None;
            }
            let only = Workload {
                patterns,
                ..w.clone()
            };
            let heat = sim::run(&only, design, streams, &mut |_, _| {});
            Some(TableLoad {
                context,
                table: sam_template::context_table(context),
                throughput: throughput(&heat),
            })
        })
        .collect()
}

/// What to set the template's table parameters to, from the table's peak.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// `WarmReadUnitsPerSecond` and `WarmWriteUnitsPerSecond`: 0 when a new table serves the
    /// peak at once.
    pub warm_read: u64,
    pub warm_write: u64,
    /// `MaxReadRequestUnits` and `MaxWriteRequestUnits`: the peak with headroom.
    pub max_read: u64,
    pub max_write: u64,
}

/// Rounded up to a thousand.
fn thousands(v: f64) -> u64 {
    ((v / 1000.0).ceil() * 1000.0) as u64
}

pub fn settings(table: &Throughput) -> Settings {
    let warm = table.rcu.0 > NEW_TABLE_RCU || table.wcu.0 > NEW_TABLE_WCU;
    Settings {
        warm_read: if warm {
            thousands(table.rcu.0).max(NEW_TABLE_RCU as u64)
        } else {
            0
        },
        warm_write: if warm {
            thousands(table.wcu.0).max(NEW_TABLE_WCU as u64)
        } else {
            0
        },
        max_read: thousands(table.rcu.0 * GUARD_HEADROOM).max(1000),
        max_write: thousands(table.wcu.0 * GUARD_HEADROOM).max(1000),
    }
}
