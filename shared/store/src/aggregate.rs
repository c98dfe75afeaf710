//! Applying counter deltas from stream records, exactly once.
//!
//! A stream handler turns each record into [`Contribution`]s: "add these amounts to that item".
//! [`apply`] coalesces them per target item and writes each target ONCE per batch, in one
//! `UpdateItem`, the targets of a batch concurrently ([`TARGETS_IN_FLIGHT`]).
//!
//! Exactly once, by a watermark on the target: a batch comes from one stream shard, whose records
//! Lambda hands over in order, one batch at a time. The target keeps, in an attribute of the
//! shard's [`Lane`] (the consumer, the stream and the shard, as a short digest: `Mark_<lane>`),
//! the last sequence number of that shard it has applied: its *mark*. A write adds the batch's
//! amounts and moves the mark to its last record, on condition that the mark is below its first
//! record. A replayed batch, a record delivered again, a bisected or partial retry meets a mark at
//! or past some of its records: the condition fails, DynamoDB returns the item as it is, the
//! records at or below the mark are dropped and the rest is written. What it costs: no write but
//! the target's own, and 37 bytes on the target ([`MARK_BYTES`]) per shard that wrote to it in the
//! last [`MARK_KEPT_SECONDS`]; a mark older than that is removed (no record that old can be delivered
//! again: the stream keeps records 24 hours).
//!
//! What it relies on, and what breaks it: one batch at a time per shard and consumer, in order
//! (an event source mapping without `ParallelizationFactor`: two lanes of one shard would share a
//! mark and skip each other's records), and the shard named in the event (Lambda names it with a
//! tumbling window, `TumblingWindowInSeconds`). Each consumer has marks of its own: two
//! consumers of one stream write one target (a day's stats) at their own pace.
//!
//! A target [`Ranked`] by one of its totals (O14's rep sales) also carries a GSI1 key made from
//! that total, which `ADD` cannot compute: its write is a read-modify-write instead. The target
//! is read (strongly consistent), the new total and its key are written on condition that the
//! total is still what was read, and a lost race reads again. The key then always matches the
//! total it is written with, whoever writes concurrently. Its marks are kept aside, one item per
//! lane (`keys::derived::lane_mark`), written in the same transaction: every stream shard writes
//! a rep's quarter, and its item is copied whole to GSI1, where the marks of every shard would
//! make each write and each read of the ranking several units.

use std::{collections::BTreeMap, sync::Arc};

use base64::Engine as _;
use futures::StreamExt;
use sha2::{Digest, Sha256};

use aws_sdk_dynamodb::types::AttributeValue;
use keys::{Gsi1Key, KeyError, PrimaryKey, Shard};
use model::{Item, attr, n, s};

use crate::{Condition, Read, StoreError, Table, Update, Updated};

/// What a mark's attribute name starts with; a lane's digest follows.
pub const MARK_PREFIX: &str = "Mark_";

/// A mark's size in an item as DynamoDB counts it: its name (`Mark_` and 11 characters) and its
/// value (17 bytes of sequence number and 4 of time).
pub const MARK_BYTES: usize = 16 + 21;

/// How long a lane's mark is kept after its last write: past the stream's 24-hour retention, so
/// no record at or below it can be delivered again, even to a mapping made anew at
/// `TRIM_HORIZON`.
pub const MARK_KEPT_SECONDS: i64 = 25 * 3600;

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

/// "Add these amounts to that item", from one stream record. A record makes at most one
/// contribution per target (sum the amounts first): a second one with the same sequence number
/// and target is taken for a duplicate delivery and dropped.
#[derive(Debug, Clone)]
pub struct Contribution {
    /// The record's position in its batch: failures are reported by position.
    pub record: usize,
    /// The record's sequence number: what the target's mark is compared with.
    pub sequence: Sequence,
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
    /// Record `record` (sequence number `sequence`) adding `adds` to `target`, an item of type
    /// `target_type` created on first use, without labels, unranked; what differs is set with
    /// [`Contribution::to_existing`], [`Contribution::labelled`] and [`Contribution::ranked`].
    pub fn new(
        record: usize,
        sequence: Sequence,
        target: PrimaryKey,
        target_type: &'static str,
        adds: impl IntoIterator<Item = (&'static str, i64)>,
    ) -> Contribution {
        Contribution {
            record,
            sequence,
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
    /// Target items written (one per target).
    pub target_writes: usize,
    /// Contributions skipped because the target's mark covered them (replays and duplicates).
    pub already_applied: usize,
    /// Marks older than [`MARK_KEPT_SECONDS`] removed from the targets written.
    pub marks_removed: usize,
    /// Contributions whose target did not exist (nothing to derive onto).
    pub missing_targets: usize,
    /// Positions of records no retry can write (their sums overflow), and why: poison.
    pub unwritable: Vec<(usize, String)>,
}

/// The marks of `lanes` lanes, as a target holds them (the bytes, not the values, are what they
/// are): what a capacity plan sizes a target's writes with.
pub fn sample_marks(lanes: usize) -> Vec<(String, AttributeValue)> {
    let sequence = Sequence::parse("4421584500000000017450439091").expect("a sequence number");
    (0..lanes)
        .map(|i| {
            let lane = Lane::new("consumer", "stream", &format!("shardId-{i}"));
            (lane.attribute(), mark(sequence, 1_795_860_000))
        })
        .collect()
}

/// When a consumer last wrote `item` (epoch seconds, the consumer's clock): its newest mark;
/// `None` for an item no consumer has written since marks were kept.
pub fn last_marked(item: &Item) -> Option<i64> {
    marks(item).map(|(_, _, at)| at).max()
}

/// `item` with each of its marks stamped `at` instead: a record of the table that must read the
/// same whenever it is made (the workbench model).
pub fn marks_as_of(item: &mut Item, at: i64) {
    for value in item
        .iter_mut()
        .filter(|(name, _)| is_mark(name))
        .map(|(_, v)| v)
    {
        if let Some((sequence, _)) = read_mark(value) {
            *value = mark(sequence, at);
        }
    }
}

impl Applied {
    /// Adds what another part of the batch did.
    fn add(&mut self, other: Applied) {
        self.failed.extend(other.failed);
        self.target_writes += other.target_writes;
        self.already_applied += other.already_applied;
        self.missing_targets += other.missing_targets;
        self.marks_removed += other.marks_removed;
        self.unwritable.extend(other.unwritable);
    }
}

/// One stream shard as one consumer reads it: the key of its mark on a target. A digest (8 bytes
/// of SHA-256, 11 characters): a shard id is about 60 characters, a stream ARN 100, and every
/// target keeps one mark per lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    name: String,
    weight: u64,
}

impl Lane {
    pub fn new(consumer: &str, stream_arn: &str, shard_id: &str) -> Lane {
        let digest = Sha256::digest(format!("{consumer}\n{stream_arn}\n{shard_id}"));
        let bytes: [u8; 8] = digest[..8].try_into().expect("8 bytes of a digest");
        Lane {
            name: base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
            weight: u64::from_be_bytes(bytes),
        }
    }

    /// The attribute that holds its mark on a target.
    pub fn attribute(&self) -> String {
        format!("{MARK_PREFIX}{}", self.name)
    }

    /// Its name: the digest its marks are named by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where its consumer's position on its shard is kept (`stream_handler::position`).
    pub fn position(&self) -> PrimaryKey {
        keys::derived::stream_position(&self.name)
    }

    /// Where its mark on `target` is kept aside (a ranked target's, [`Ranked`]).
    pub fn mark_aside(&self, target: &PrimaryKey) -> PrimaryKey {
        keys::derived::lane_mark(target, &self.name)
    }

    /// The write shard, of `count`, of the sharded counters this lane adds to (a day's stats, a
    /// product's sales). Chosen by the lane, not by the record: every stream shard writes a
    /// day's stats, and a target keeps a mark per lane that writes it, so a counter shard that
    /// every lane wrote would carry every lane's mark and take every lane's writes. Chosen by the
    /// lane, a shard takes the writes and the marks of its share of the lanes. A record is always
    /// read from the same stream shard, so its retries land on the same counter shard.
    pub fn counter_shard(&self, count: u32) -> Shard {
        Shard::of_weight(self.weight, count)
    }
}

/// A stream record's sequence number, ordered by value: a decimal of up to 40 digits (DynamoDB
/// Streams' bound), held in 17 bytes, big-endian, so that the bytes order as the numbers do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sequence([u8; 17]);

impl Sequence {
    pub fn parse(digits: &str) -> Result<Sequence, String> {
        if digits.is_empty() || digits.len() > 40 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{digits:?} is not a sequence number"));
        }
        let mut bytes = [0u8; 17];
        for d in digits.bytes() {
            let mut carry = u32::from(d - b'0');
            for byte in bytes.iter_mut().rev() {
                let v = u32::from(*byte) * 10 + carry;
                *byte = (v & 0xff) as u8;
                carry = v >> 8;
            }
        }
        Ok(Sequence(bytes))
    }
}

/// A lane's mark: the last sequence number applied, then when (seconds since the epoch, 4
/// bytes), in one binary value. Marks compare by their sequence number first: a mark is below
/// `floor(first)` exactly when its sequence number is below `first`.
pub fn mark(sequence: Sequence, at: i64) -> AttributeValue {
    let mut bytes = sequence.0.to_vec();
    bytes.extend_from_slice(&u32::try_from(at.max(0)).unwrap_or(u32::MAX).to_be_bytes());
    AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(bytes))
}

pub fn floor(sequence: Sequence) -> AttributeValue {
    mark(sequence, 0)
}

/// A stored mark's sequence number and time; `None` for anything this code does not write.
fn read_mark(value: &AttributeValue) -> Option<(Sequence, i64)> {
    let bytes = value.as_b().ok()?.as_ref();
    let (sequence, at) = bytes.split_at_checked(17)?;
    Some((
        Sequence(sequence.try_into().ok()?),
        i64::from(u32::from_be_bytes(at.try_into().ok()?)),
    ))
}

/// The mark of `lane` on `item`, if it has one.
fn mark_of(item: &Item, lane: &Lane) -> Option<Sequence> {
    read_mark(item.get(&lane.attribute())?).map(|(sequence, _)| sequence)
}

/// Every mark of `item`: its attribute, and the time it was written.
fn marks(item: &Item) -> impl Iterator<Item = (&String, &AttributeValue, i64)> {
    item.iter()
        .filter(|(name, _)| name.starts_with(MARK_PREFIX))
        .filter_map(|(name, value)| Some((name, value, read_mark(value)?.1)))
}

/// Whether an attribute is a consumer's mark (bookkeeping, not the item's data).
pub fn is_mark(attribute: &str) -> bool {
    attribute.starts_with(MARK_PREFIX)
}

/// Applies contributions of one batch, read from `lane`, coalesced per target. Never fails as a
/// whole: what could not be written is in [`Applied::failed`].
pub async fn apply(
    table: &Table,
    lane: &Lane,
    parent: Option<&Lane>,
    contributions: Vec<Contribution>,
    now_epoch: i64,
) -> Applied {
    let mut applied = Applied::default();
    let mut groups: BTreeMap<PrimaryKey, Vec<Contribution>> = BTreeMap::new();
    for c in contributions {
        if c.adds.values().all(|v| *v == 0) {
            continue;
        }
        groups.entry(c.target.clone()).or_default().push(c);
    }
    // Targets are independent items: written concurrently, a batch takes about as long as its
    // slowest target's write rather than the sum of them all.
    let writes = groups.into_values().map(|mut group| async move {
        let mut applied = Applied::default();
        group.sort_by_key(|c| c.sequence);
        // The same record twice in one batch (a duplicate delivery) counts once.
        let before = group.len();
        group.dedup_by_key(|c| c.sequence);
        applied.already_applied += before - group.len();
        apply_group(table, lane, parent, group, now_epoch, &mut applied).await;
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
    telemetry::Metric::RecordsAlreadyApplied.add(applied.already_applied as f64);
    applied
}

/// Writes one target's contributions (sorted by sequence number, one per record).
async fn apply_group(
    table: &Table,
    lane: &Lane,
    parent: Option<&Lane>,
    mut group: Vec<Contribution>,
    now: i64,
    applied: &mut Applied,
) {
    let mut attempts = 0;
    // Each pass either writes, or learns the target's mark and drops what it covers, or (a
    // ranked target) finds its total changed since it was read and reads it again.
    while !group.is_empty() {
        attempts += 1;
        if attempts > RANKED_ATTEMPTS + 2 {
            tracing::error!(target = %group[0].target, "aggregate target kept changing");
            applied.failed.extend(group.iter().map(|c| c.record));
            return;
        }
        if group[0].ranked.is_some() {
            match apply_ranked(table, lane, &mut group, now, applied).await {
                Pass::Done => return,
                Pass::Again => continue,
            }
        }
        let (update, condition) = match write_of(&group, Some((lane, parent, now)), None) {
            Ok(w) => w,
            Err(_) if group.len() > 1 => {
                // A sum of the group overflows: applied one record at a time, in order, the
                // record that does not fit fails alone, never the records batched with it.
                for one in group {
                    Box::pin(apply_group(table, lane, parent, vec![one], now, applied)).await;
                }
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot build an aggregate update");
                return unwritable(group, &e, applied);
            }
        };
        let target = group[0].target.clone();
        match table.update_or_current(&target, &update, condition).await {
            Ok(Updated::Written(item)) => {
                applied.target_writes += 1;
                forget_old_marks(table, &target, &item, now, applied).await;
                return;
            }
            Ok(Updated::Refused(None)) => {
                // The target must exist and does not: nothing to derive onto.
                tracing::warn!(%target, "derived target missing; records acknowledged");
                applied.missing_targets += group.len();
                return;
            }
            Ok(Updated::Refused(Some(item))) => {
                // The mark covers some records (a replay): drop what is covered and go again.
                drop_covered(&mut group, mark_of(&item, lane), applied);
            }
            Err(e) if e.is_permanent() => {
                // Refused as it is (an item grown past 400 KB...): no retry can write it.
                tracing::error!(error = %e, %target, "aggregate update refused");
                return unwritable(group, &e, applied);
            }
            Err(e) => {
                tracing::error!(error = %e, "aggregate update failed");
                applied.failed.extend(group.iter().map(|c| c.record));
                return;
            }
        }
    }
}

/// Drops the contributions at or below `mark`: their records were applied before.
fn drop_covered(group: &mut Vec<Contribution>, mark: Option<Sequence>, applied: &mut Applied) {
    let Some(mark) = mark else { return };
    let before = group.len();
    group.retain(|c| c.sequence > mark);
    applied.already_applied += before - group.len();
}

fn unwritable(group: Vec<Contribution>, e: &StoreError, applied: &mut Applied) {
    let why = e.to_string();
    applied
        .unwritable
        .extend(group.iter().map(|c| (c.record, why.clone())));
}

/// What one pass over a ranked target left to do.
enum Pass {
    Done,
    Again,
}

/// One pass of a ranked target's read-modify-write, its mark kept aside: every stream shard
/// writes a rep's quarter, and its item is copied whole to GSI1 (the ranking), so its marks would
/// weigh on every write and every read of the ranking. The target and its lane's mark item are
/// read (strongly consistent), the records the mark covers dropped, and the rest written in one
/// transaction: the target's new totals and ranking key on condition that its total is still
/// the one read, and the mark item moved on condition that it is still the one read. A lost race
/// (either condition, a conflicting transaction) reads again.
async fn apply_ranked(
    table: &Table,
    lane: &Lane,
    group: &mut Vec<Contribution>,
    now: i64,
    applied: &mut Applied,
) -> Pass {
    let target = group[0].target.clone();
    let aside = lane.mark_aside(&target);
    let Some(ranked) = group[0].ranked.clone() else {
        return Pass::Done;
    };
    let (item, mark_item) = futures::join!(
        table.get_item(&target, Read::Strong, None),
        table.get_item(&aside, Read::Strong, None)
    );
    let (item, mark_item) = match (item, mark_item) {
        (Ok(i), Ok(m)) => (i, m),
        (Err(e), _) | (_, Err(e)) if e.is_permanent() => {
            unwritable(std::mem::take(group), &e, applied);
            return Pass::Done;
        }
        (Err(e), _) | (_, Err(e)) => {
            tracing::error!(error = %e, "cannot read a ranked target");
            applied.failed.extend(group.iter().map(|c| c.record));
            return Pass::Done;
        }
    };
    let held = mark_item.as_ref().and_then(|m| m.get(MARK_ASIDE)).cloned();
    drop_covered(
        group,
        held.as_ref().and_then(read_mark).map(|(s, _)| s),
        applied,
    );
    if group.is_empty() {
        return Pass::Done;
    }
    if group[0].must_exist && item.is_none() {
        tracing::warn!(%target, "derived target missing; records acknowledged");
        applied.missing_targets += group.len();
        group.clear();
        return Pass::Done;
    }
    let total = match item.as_ref().and_then(|i| i.get(ranked.by)) {
        None => None,
        Some(raw) => match raw.as_n().ok().and_then(|v| v.parse::<i64>().ok()) {
            Some(v) if v >= 0 => Some(v),
            _ => {
                let e = StoreError::Corrupt(format!("{} of {target} is {raw:?}", ranked.by));
                unwritable(std::mem::take(group), &e, applied);
                return Pass::Done;
            }
        },
    };
    let (update, condition) = match write_of(group, None, Some(total)) {
        Ok(w) => w,
        Err(_) if group.len() > 1 => {
            // A sum overflows: one record at a time, in order; the one that does not fit fails
            // alone.
            let rest = group.split_off(1);
            let mut one = std::mem::replace(group, rest);
            for _ in 0..RANKED_ATTEMPTS {
                let pass = Box::pin(apply_ranked(table, lane, &mut one, now, applied)).await;
                if matches!(pass, Pass::Done) {
                    break;
                }
            }
            applied.failed.extend(one.iter().map(|c| c.record));
            return Pass::Again;
        }
        Err(e) => {
            tracing::error!(error = %e, "cannot build an aggregate update");
            unwritable(std::mem::take(group), &e, applied);
            return Pass::Done;
        }
    };
    let last = group.last().map_or(group[0].sequence, |c| c.sequence);
    let mut tx = table.transaction();
    let written = (|| {
        tx.update(&target, &update, Some(condition))?;
        let mark_item = mark_aside_item(&aside, last, now);
        let unchanged = match &held {
            Some(v) => Condition::NamedEquals(MARK_ASIDE.to_owned(), v.clone()),
            None => Condition::Absent,
        };
        tx.put_item(mark_item, Some(unchanged))?;
        Ok::<(), StoreError>(())
    })();
    if let Err(e) = written {
        unwritable(std::mem::take(group), &e, applied);
        return Pass::Done;
    }
    match tx.send().await {
        Ok(()) => {
            applied.target_writes += 1;
            group.clear();
            Pass::Done
        }
        // Another batch wrote the total or the mark since the read (or the records were applied
        // meanwhile): read again.
        Err(StoreError::TransactionCanceled(reasons))
            if reasons.iter().all(|r| {
                matches!(
                    r.as_str(),
                    "None" | "ConditionalCheckFailed" | "TransactionConflict"
                )
            }) =>
        {
            Pass::Again
        }
        Err(e) if e.is_permanent() => {
            tracing::error!(error = %e, %target, "aggregate update refused");
            unwritable(std::mem::take(group), &e, applied);
            Pass::Done
        }
        Err(e) => {
            tracing::error!(error = %e, "aggregate update failed");
            applied.failed.extend(group.iter().map(|c| c.record));
            group.clear();
            Pass::Done
        }
    }
}

/// The attribute of a mark kept aside that holds it.
const MARK_ASIDE: &str = "Mark";

/// A lane's mark kept aside at `key`: its record moved to `sequence`, expiring by TTL when no
/// record at or below it can be delivered again (a capacity plan sizes its writes with it).
pub fn mark_aside_item(key: &PrimaryKey, sequence: Sequence, now: i64) -> Item {
    [
        (keys::attr::PK.to_owned(), s(key.pk())),
        (keys::attr::SK.to_owned(), s(key.sk())),
        (attr::TYPE.to_owned(), s(keys::derived::types::LANE_MARK)),
        (MARK_ASIDE.to_owned(), mark(sequence, now)),
        (attr::EXPIRES_AT.to_owned(), n(now + MARK_KEPT_SECONDS)),
    ]
    .into_iter()
    .collect()
}

/// Of a mark kept aside: its target, named `<PK>#<SK>` (each escaped, as its key names it), and
/// when a consumer moved it; `None` for any other item.
pub fn aside_mark(item: &Item) -> Option<(String, i64)> {
    if model::type_of(item) != Some(keys::derived::types::LANE_MARK) {
        return None;
    }
    let pk = item.get(keys::attr::PK)?.as_s().ok()?;
    let target = pk
        .strip_prefix(keys::derived::tag::MARK)?
        .strip_prefix('#')?;
    let (_, at) = read_mark(item.get(MARK_ASIDE)?)?;
    Some((target.to_owned(), at))
}

/// The target's update (the group's amounts summed) and its condition: the target exists if it
/// must and, with `marked` (the lane, the lane its shard follows, now), its lane's mark is below
/// the group's first record, which the update moves to its last (removing the parent's). For a
/// ranked target, `current` is its total as read: the update also writes the ranking key of the
/// new total, on condition that the total is still `current`.
fn write_of(
    group: &[Contribution],
    marked: Option<(&Lane, Option<&Lane>, i64)>,
    current: Option<Option<i64>>,
) -> Result<(Update, Condition), StoreError> {
    let first = &group[0];
    let last = group.last().unwrap_or(first);
    let mut totals: BTreeMap<&'static str, i64> = BTreeMap::new();
    for c in group {
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
    let mut and = |c: Condition| {
        condition = Some(match condition.take() {
            Some(before) => before.and(c),
            None => c,
        });
    };
    if let Some((lane, _, _)) = marked {
        let mark_name = lane.attribute();
        and(Condition::NamedAbsent(mark_name.clone())
            .or(Condition::NamedBelow(mark_name, floor(first.sequence))));
    }
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
        and(match current {
            Some(c) => Condition::Equals(ranked.by, n(c)),
            None => Condition::AttributeAbsent(ranked.by),
        });
    }
    for (attr, total) in totals {
        update = update.add(attr, total);
    }
    if let Some((lane, parent, now)) = marked {
        update = update.set_named(lane.attribute(), mark(last.sequence, now));
        if let Some(parent) = parent {
            // Its shard is done with: no record of it comes again.
            update = update.remove_named(parent.attribute());
        }
    }
    let condition = condition.unwrap_or(Condition::Exists.or(Condition::Absent));
    Ok((update, condition))
}

/// Removes the marks of `item` (as just written) older than [`MARK_KEPT_SECONDS`], each on
/// condition that it is still the mark read. A failure here loses nothing: the mark stays and is
/// removed by a later write.
async fn forget_old_marks(
    table: &Table,
    target: &PrimaryKey,
    item: &Item,
    now: i64,
    applied: &mut Applied,
) {
    let old: Vec<(&String, &AttributeValue)> = marks(item)
        .filter(|(_, _, at)| *at < now - MARK_KEPT_SECONDS)
        .map(|(name, value, _)| (name, value))
        .collect();
    if old.is_empty() {
        return;
    }
    let mut update = Update::new();
    let mut condition: Option<Condition> = None;
    for (name, value) in &old {
        update = update.remove_named((*name).clone());
        let same = Condition::NamedEquals((*name).clone(), (*value).clone());
        condition = Some(match condition {
            Some(c) => c.and(same),
            None => same,
        });
    }
    let Some(condition) = condition else { return };
    match table.update_or_current(target, &update, condition).await {
        Ok(Updated::Written(_)) => applied.marks_removed += old.len(),
        Ok(Updated::Refused(_)) => {}
        Err(e) => tracing::warn!(error = %e, %target, "old marks not removed; a later write will"),
    }
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
