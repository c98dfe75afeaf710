//! Applying counter deltas from stream records, exactly once.
//!
//! A stream handler turns each record into [`Contribution`]s: "add these amounts to that item".
//! [`apply`] coalesces them per target item and writes each target ONCE per batch (a chunk of at
//! most 99 records; the targets of a batch concurrently, [`targets_in_flight`]), in a transaction
//! with one ledger entry per contributing record (`keys::derived::ledger`,
//! `attribute_not_exists`). A replayed batch, a duplicated record or a
//! bisected retry finds its ledger entries: the transaction is cancelled, the records already
//! applied are dropped from the group, and the rest is applied. The ledger is what exactness
//! costs: one small write per record and target, expiring by TTL after the stream's retention.
//!
//! A target [`Ranked`] by one of its totals (O14's rep sales) also carries a GSI1 key made from
//! that total, which `ADD` cannot compute: its write is a read-modify-write instead. The target
//! is read (strongly consistent), the new total and its key are written on condition that the
//! total is still what was read, and a lost race reads again. The key then always matches the
//! total it is written with, whoever writes concurrently.

use std::{collections::BTreeMap, sync::Arc};

use futures::StreamExt;

use aws_sdk_dynamodb::types::AttributeValue;
use keys::{Gsi1Key, Id, KeyError, PrimaryKey};
use model::{attr, derived::Ledger, n, s};

use crate::{Condition, Read, StoreError, Table, Update};

/// Tries of a ranked target's read-modify-write before its records are reported failed (and
/// retried by the stream).
const RANKED_ATTEMPTS: u32 = 5;

/// A target listed in GSI1 by one of its totals (a rep's sales in a period, ranked by order
/// total): the total, and the function its context gives that makes the target's GSI1 key from
/// that total.
#[derive(Clone)]
pub struct Ranked {
    /// The total the ranking key is made of (one of the contribution's `adds`).
    pub by: &'static str,
    key: Arc<dyn Fn(u64) -> Result<Gsi1Key, KeyError> + Send + Sync>,
}

impl Ranked {
    /// A target ranked by its total `by`, listed at `key(total)`.
    pub fn new(
        by: &'static str,
        key: impl Fn(u64) -> Result<Gsi1Key, KeyError> + Send + Sync + 'static,
    ) -> Ranked {
        Ranked {
            by,
            key: Arc::new(key),
        }
    }

    /// The ranking key of the target at `total`.
    pub fn key(&self, total: u64) -> Result<Gsi1Key, KeyError> {
        (self.key)(total)
    }
}

impl std::fmt::Debug for Ranked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranked")
            .field("by", &self.by)
            .finish_non_exhaustive()
    }
}

/// Writes in flight at once for one batch (targets of the aggregates, orders of the status
/// projection). DynamoDB answers a request in milliseconds, not microseconds: one write after
/// another, a batch of 80 targets takes 80 round trips, and a busy shard outruns its consumer.
/// Each write is to another item, so they cannot conflict with each other; 32 keeps a batch to
/// a few round trips without opening more connections than a warm instance keeps
/// (`make bench-streams` measures it).
pub const TARGETS_IN_FLIGHT: usize = 32;

/// [`TARGETS_IN_FLIGHT`], unless `STREAM_WRITES_IN_FLIGHT` says otherwise: the local stack
/// lowers it, as DynamoDB Local on one core answers one request at a time and 64 writes of two
/// consumers queued ahead of the API's requests held them past their timeout.
pub fn targets_in_flight() -> usize {
    static IN_FLIGHT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *IN_FLIGHT.get_or_init(|| {
        std::env::var("STREAM_WRITES_IN_FLIGHT")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(TARGETS_IN_FLIGHT)
    })
}

/// Records per transaction: one target update plus at most 99 ledger entries (DynamoDB allows
/// 100 actions).
pub const MAX_RECORDS_PER_WRITE: usize = 99;

/// How long a ledger entry is kept: beyond the stream's 24-hour retention, so every replay that
/// can happen finds it.
pub const LEDGER_TTL_SECONDS: i64 = 48 * 3600;

/// "Add these amounts to that item", from one stream record. A record makes at most one
/// contribution per target (sum the amounts first): a second one with the same `event_id` and
/// target is taken for a duplicate delivery and dropped.
#[derive(Debug, Clone)]
pub struct Contribution {
    /// The record's position in its batch: failures are reported by position.
    pub record: usize,
    /// The record's `eventID`: the ledger key.
    pub event_id: Id,
    pub target: PrimaryKey,
    /// `Type` of the target, set when the update creates it.
    pub target_type: &'static str,
    /// True when the target must already exist (a customer's A record, a book): the update is
    /// conditioned on it. False for counters created on first use (sales and stats shards).
    pub must_exist: bool,
    /// Attribute → amount to add.
    pub adds: BTreeMap<&'static str, i64>,
    /// Attributes that identify a created target (`Sku`, `Date`, `Shard`), set if absent.
    pub labels: BTreeMap<&'static str, AttributeValue>,
    /// Set when the target is ranked by one of its totals (the same for every contribution to
    /// that target).
    pub ranked: Option<Ranked>,
}

impl Contribution {
    /// Record `record` (its `eventID`, `event_id`) adding `adds` to `target`, an item of type
    /// `target_type` created on first use, without labels, unranked; what differs is set with
    /// [`Contribution::to_existing`], [`Contribution::labelled`] and [`Contribution::ranked`].
    pub fn new(
        record: usize,
        event_id: Id,
        target: PrimaryKey,
        target_type: &'static str,
        adds: impl IntoIterator<Item = (&'static str, i64)>,
    ) -> Contribution {
        Contribution {
            record,
            event_id,
            target,
            target_type,
            must_exist: false,
            adds: adds.into_iter().collect(),
            labels: BTreeMap::new(),
            ranked: None,
        }
    }

    /// The contribution to a target that must already exist: the update is conditioned on it.
    pub fn to_existing(self) -> Contribution {
        Contribution {
            must_exist: true,
            ..self
        }
    }

    /// The contribution with `labels`, set on the target if absent.
    pub fn labelled(
        self,
        labels: impl IntoIterator<Item = (&'static str, AttributeValue)>,
    ) -> Contribution {
        let labels = labels.into_iter().collect();
        Contribution { labels, ..self }
    }

    /// The contribution to a target ranked by one of its totals.
    pub fn ranked(self, ranked: Ranked) -> Contribution {
        let ranked = Some(ranked);
        Contribution { ranked, ..self }
    }
}

/// What [`apply`] did, for the handler's response, its logs and the benchmark.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Applied {
    /// Positions of records whose contributions could not be written: report them, never
    /// acknowledge them.
    pub failed: Vec<usize>,
    /// Target items written (one per target and chunk).
    pub target_writes: usize,
    /// Ledger entries written.
    pub ledger_writes: usize,
    /// Contributions skipped because their ledger entry existed (replays and duplicates).
    pub already_applied: usize,
    /// Contributions whose target did not exist (nothing to derive onto).
    pub missing_targets: usize,
    /// Positions of records no retry can write (their sums overflow), and why: poison.
    pub unwritable: Vec<(usize, String)>,
}

impl Applied {
    /// Adds what another part of the batch did.
    fn add(&mut self, other: Applied) {
        self.failed.extend(other.failed);
        self.target_writes += other.target_writes;
        self.ledger_writes += other.ledger_writes;
        self.already_applied += other.already_applied;
        self.missing_targets += other.missing_targets;
        self.unwritable.extend(other.unwritable);
    }
}

/// Applies contributions, coalesced per target. Never fails as a whole: what could not be written
/// is in [`Applied::failed`].
pub async fn apply(table: &Table, contributions: Vec<Contribution>, now_epoch: i64) -> Applied {
    let mut applied = Applied::default();
    let mut groups: BTreeMap<PrimaryKey, Vec<Contribution>> = BTreeMap::new();
    for c in contributions {
        if c.adds.values().all(|v| *v == 0) {
            continue;
        }
        let group = groups.entry(c.target.clone()).or_default();
        // The same record twice in one batch (a duplicate delivery) counts once: one transaction
        // cannot touch one ledger item twice anyway.
        if group.iter().any(|g| g.event_id == c.event_id) {
            applied.already_applied += 1;
            continue;
        }
        group.push(c);
    }
    // Targets are independent items: written concurrently, a batch takes about as long as its
    // slowest target's write rather than the sum of them all. A target's chunks stay in order.
    let writes = groups.into_values().map(|group| async move {
        let mut applied = Applied::default();
        for chunk in group.chunks(MAX_RECORDS_PER_WRITE) {
            apply_chunk(table, chunk.to_vec(), now_epoch, &mut applied).await;
        }
        applied
    });
    // Collected first: a stream over a borrowing iterator's closures is not provably `Send`.
    let writes: Vec<_> = writes.collect();
    let mut writes = futures::stream::iter(writes).buffer_unordered(targets_in_flight());
    while let Some(part) = writes.next().await {
        applied.add(part);
    }
    applied.failed.sort_unstable();
    applied.failed.dedup();
    telemetry::Metric::LedgerDuplicatesSkipped.add(applied.already_applied as f64);
    applied
}

async fn apply_chunk(table: &Table, mut chunk: Vec<Contribution>, now: i64, applied: &mut Applied) {
    let mut lost_races = 0;
    // Each pass either writes, or learns which records were applied before and drops them, or
    // (a ranked target) finds its total changed since it was read and reads it again.
    while !chunk.is_empty() {
        let current = match &chunk[0].ranked {
            None => None,
            Some(r) => match current_total(table, &chunk[0].target, r.by).await {
                Ok(total) => Some(total),
                Err(e) if e.is_permanent() => {
                    let why = e.to_string();
                    applied
                        .unwritable
                        .extend(chunk.iter().map(|c| (c.record, why.clone())));
                    return;
                }
                Err(e) => {
                    tracing::error!(error = %e, "cannot read a ranked target");
                    applied.failed.extend(chunk.iter().map(|c| c.record));
                    return;
                }
            },
        };
        let (tx, target, ledgers) = match transaction(table, &chunk, now, current) {
            Ok(t) => t,
            Err(_) if chunk.len() > 1 => {
                // A sum of the chunk overflows: applied one record at a time, the record that
                // does not fit fails alone, never the records batched with it.
                for one in chunk {
                    Box::pin(apply_chunk(table, vec![one], now, applied)).await;
                }
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot build an aggregate update");
                let why = e.to_string();
                applied
                    .unwritable
                    .extend(chunk.iter().map(|c| (c.record, why.clone())));
                return;
            }
        };
        match tx.send().await {
            Ok(()) => {
                applied.target_writes += 1;
                applied.ledger_writes += chunk.len();
                return;
            }
            Err(e) if target.failed(&e) && current.is_some() => {
                // A ranked target's total changed since it was read: read it again.
                lost_races += 1;
                if lost_races >= RANKED_ATTEMPTS {
                    tracing::error!(target = %chunk[0].target, "ranked target kept changing");
                    applied.failed.extend(chunk.iter().map(|c| c.record));
                    return;
                }
            }
            Err(e) if target.failed(&e) => {
                // The target must exist and does not: nothing to derive onto.
                tracing::warn!(target = %chunk[0].target, "derived target missing; records acknowledged");
                applied.missing_targets += chunk.len();
                return;
            }
            Err(e) if e.is_permanent() => {
                // Refused as it is (an item grown past 400 KB...): no retry can write it.
                tracing::error!(error = %e, target = %chunk[0].target, "aggregate update refused");
                let why = e.to_string();
                applied
                    .unwritable
                    .extend(chunk.iter().map(|c| (c.record, why.clone())));
                return;
            }
            Err(e @ StoreError::TransactionCanceled(_)) => {
                let before = chunk.len();
                let mut ledger = ledgers.iter();
                chunk.retain(|_| !ledger.next().is_some_and(|part| part.failed(&e)));
                if chunk.len() == before {
                    tracing::error!(error = %e, "aggregate update cancelled");
                    applied.failed.extend(chunk.iter().map(|c| c.record));
                    return;
                }
                applied.already_applied += before - chunk.len();
            }
            Err(e) => {
                tracing::error!(error = %e, "aggregate update failed");
                applied.failed.extend(chunk.iter().map(|c| c.record));
                return;
            }
        }
    }
}

/// A ranked target's total as stored now (`None`: not yet there). Anything but a non-negative
/// integer is drift no retry can fix.
async fn current_total(
    table: &Table,
    target: &PrimaryKey,
    by: &'static str,
) -> Result<Option<i64>, StoreError> {
    let item = table.get_item(target, Read::Strong, Some(&[by])).await?;
    let Some(raw) = item.as_ref().and_then(|i| i.get(by)) else {
        return Ok(None);
    };
    raw.as_n()
        .ok()
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|v| *v >= 0)
        .map(Some)
        .ok_or_else(|| StoreError::Corrupt(format!("{by} of {target} is {raw:?}")))
}

/// One transaction: the target's update (the chunk's amounts summed), then one ledger entry per
/// record, each on condition that it is new. For a ranked target, `current` is its total as
/// read: the update also writes the ranking key of the new total, on condition that the total
/// is still `current`.
fn transaction<'t>(
    table: &'t Table,
    chunk: &[Contribution],
    now: i64,
    current: Option<Option<i64>>,
) -> Result<(crate::Transaction<'t>, crate::Part, Vec<crate::Part>), StoreError> {
    let first = &chunk[0];
    let mut totals: BTreeMap<&'static str, i64> = BTreeMap::new();
    for c in chunk {
        for (attr, v) in &c.adds {
            let total = totals.entry(attr).or_default();
            // Checked: a wrapped sum would be written as if it were right.
            *total = total
                .checked_add(*v)
                .ok_or_else(|| StoreError::Corrupt(format!("{attr}: the batch's sum overflows")))?;
        }
    }
    let mut update = Update::new().set_if_absent(attr::TYPE, s(first.target_type));
    for (label, value) in &first.labels {
        update = update.set_if_absent(label, value.clone());
    }
    let mut condition = first.must_exist.then_some(Condition::Exists);
    if let (Some(ranked), Some(current)) = (&first.ranked, current) {
        let sum = totals.get(ranked.by).copied().unwrap_or(0);
        let total = current
            .unwrap_or(0)
            .checked_add(sum)
            .and_then(|t| u64::try_from(t).ok())
            .ok_or_else(|| {
                StoreError::Corrupt(format!("{}: the new total is out of range", ranked.by))
            })?;
        update = update.set_key(&ranked.key(total)?);
        let unchanged = match current {
            Some(c) => Condition::Equals(ranked.by, n(c)),
            None => Condition::AttributeAbsent(ranked.by),
        };
        condition = Some(match condition {
            Some(c) => c.and(unchanged),
            None => unchanged,
        });
    }
    for (attr, total) in totals {
        update = update.add(attr, total);
    }
    let mut tx = table.transaction();
    let target = tx.update(&first.target, &update, condition)?;
    let mut ledgers = Vec::with_capacity(chunk.len());
    for c in chunk {
        let entry = Ledger {
            event_id: c.event_id.clone(),
            expires_at: now + LEDGER_TTL_SECONDS,
        };
        let item = model::derived::ledger_item(&entry, &c.target)?;
        ledgers.push(tx.put_item(item, Some(Condition::Absent))?);
    }
    Ok((tx, target, ledgers))
}

/// Sums numeric attributes over shard items, read in ONE BatchGetItem. Missing shards count as
/// zero. A sum is `Derived(Err)` when a shard holds something a sum cannot use (text, a fraction,
/// a negative value: drift) or the sum overflows: the reader shows it drifted rather than failing.
pub async fn sum_shards(
    table: &Table,
    shards: &[PrimaryKey],
    attributes: &[&'static str],
) -> Result<BTreeMap<&'static str, model::Derived>, StoreError> {
    let mut sums: BTreeMap<&'static str, Result<i64, String>> =
        attributes.iter().map(|a| (*a, Ok(0))).collect();
    for item in table
        .batch_get(shards, attributes, crate::Read::Eventual)
        .await?
    {
        for a in attributes {
            let Some(raw) = item.get(*a) else { continue };
            let shard = raw
                .as_n()
                .ok()
                .and_then(|v| v.parse::<i64>().ok())
                .filter(|v| *v >= 0)
                .ok_or_else(|| format!("{raw:?}"));
            let sum = sums.entry(a).or_insert(Ok(0));
            *sum = match (&*sum, shard) {
                (Ok(total), Ok(v)) => total.checked_add(v).ok_or_else(|| "overflow".to_owned()),
                (Err(e), _) => Err(e.clone()),
                (_, Err(e)) => Err(e),
            };
        }
    }
    Ok(sums
        .into_iter()
        .map(|(a, sum)| (a, model::Derived(sum)))
        .collect())
}
