//! Applying counter deltas from stream records, exactly once.
//!
//! A stream handler turns each record into [`Contribution`]s: "add these amounts to that item".
//! [`apply`] coalesces them per target item and writes each target ONCE per batch (a chunk of at
//! most 99 records), in a transaction with one ledger entry per contributing record
//! (`keys::derived::ledger`, `attribute_not_exists`). A replayed batch, a duplicated record or a
//! bisected retry finds its ledger entries: the transaction is cancelled, the records already
//! applied are dropped from the group, and the rest is applied. The ledger is what exactness
//! costs: one small write per record and target, expiring by TTL after the stream's retention.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::{
    AttributeValue, KeysAndAttributes, Put, ReturnConsumedCapacity, TransactWriteItem, Update,
};
use keys::{Id, Key, attr, derived};

use crate::{
    StoreError, Table,
    error::from_sdk,
    item::{Item, key_map, n, s},
    txn,
};

/// Records per transaction: one target update plus at most 99 ledger entries (DynamoDB allows
/// 100 actions).
pub const MAX_RECORDS_PER_WRITE: usize = 99;

/// How long a ledger entry is kept: beyond the stream's 24-hour retention, so every replay that
/// can happen finds it.
pub const LEDGER_TTL_SECONDS: i64 = 48 * 3600;

/// "Add these amounts to that item", from one stream record. A record makes at most one
/// contribution per target (sum the amounts first): a second one with the same `event_id` and
/// target is taken for a duplicate delivery and dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Contribution {
    /// The record's position in its batch: failures are reported by position.
    pub record: usize,
    /// The record's `eventID`: the ledger key.
    pub event_id: Id,
    pub target: Key,
    /// `Type` of the target, set when the update creates it.
    pub target_type: &'static str,
    /// True when the target must already exist (a customer's A record, a book): the update is
    /// conditioned on it. False for counters created on first use (sales and stats shards).
    pub must_exist: bool,
    /// Attribute → amount to add.
    pub adds: BTreeMap<&'static str, i64>,
    /// Attributes that identify a created target (`Sku`, `Date`, `Shard`), set if absent.
    pub labels: BTreeMap<&'static str, AttributeValue>,
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
}

/// Applies contributions, coalesced per target. Never fails as a whole: what could not be written
/// is in [`Applied::failed`].
pub async fn apply(table: &Table, contributions: Vec<Contribution>, now_epoch: i64) -> Applied {
    let mut applied = Applied::default();
    let mut groups: BTreeMap<Key, Vec<Contribution>> = BTreeMap::new();
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
    for (_, group) in groups {
        for chunk in group.chunks(MAX_RECORDS_PER_WRITE) {
            apply_chunk(table, chunk.to_vec(), now_epoch, &mut applied).await;
        }
    }
    applied.failed.sort_unstable();
    applied.failed.dedup();
    applied
}

async fn apply_chunk(table: &Table, mut chunk: Vec<Contribution>, now: i64, applied: &mut Applied) {
    // Each pass either writes, or learns which records were applied before and drops them.
    while !chunk.is_empty() {
        let actions = match actions(table, &chunk, now) {
            Ok(a) => a,
            Err(e) => {
                tracing::error!(error = %e, "cannot build an aggregate update");
                applied.failed.extend(chunk.iter().map(|c| c.record));
                return;
            }
        };
        match txn::transact(table, actions, chunk.len() + 1).await {
            Ok(()) => {
                applied.target_writes += 1;
                applied.ledger_writes += chunk.len();
                return;
            }
            Err(e) if e.cancellation_reason(0) == Some("ConditionalCheckFailed") => {
                // The target must exist and does not: nothing to derive onto.
                tracing::warn!(target = ?chunk[0].target, "derived target missing; records acknowledged");
                applied.missing_targets += chunk.len();
                return;
            }
            Err(e @ StoreError::TransactionCanceled(_)) => {
                let before = chunk.len();
                let mut position = 0;
                chunk.retain(|_| {
                    position += 1;
                    e.cancellation_reason(position) != Some("ConditionalCheckFailed")
                });
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

fn actions(
    table: &Table,
    chunk: &[Contribution],
    now: i64,
) -> Result<Vec<TransactWriteItem>, StoreError> {
    let first = &chunk[0];
    let mut totals: BTreeMap<&'static str, i64> = BTreeMap::new();
    for c in chunk {
        for (attr, v) in &c.adds {
            *totals.entry(attr).or_default() += v;
        }
    }
    let mut names = HashMap::from([("#type".to_owned(), attr::TYPE.to_owned())]);
    let mut values = HashMap::from([(":type".to_owned(), s(first.target_type))]);
    let mut sets = vec!["#type = if_not_exists(#type, :type)".to_owned()];
    for (i, (label, value)) in first.labels.iter().enumerate() {
        names.insert(format!("#l{i}"), (*label).to_owned());
        values.insert(format!(":l{i}"), value.clone());
        sets.push(format!("#l{i} = if_not_exists(#l{i}, :l{i})"));
    }
    let mut adds = Vec::new();
    for (i, (attr, total)) in totals.iter().enumerate() {
        names.insert(format!("#a{i}"), (*attr).to_owned());
        values.insert(format!(":a{i}"), n(total));
        adds.push(format!("#a{i} :a{i}"));
    }
    let mut update = Update::builder()
        .table_name(table.name())
        .set_key(Some(key_map(&first.target)))
        .update_expression(format!("SET {} ADD {}", sets.join(", "), adds.join(", ")))
        .set_expression_attribute_names(Some(names))
        .set_expression_attribute_values(Some(values));
    if first.must_exist {
        update = update.condition_expression("attribute_exists(PK)");
    }
    let mut actions = vec![
        TransactWriteItem::builder()
            .update(
                update
                    .build()
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
            )
            .build(),
    ];
    for c in chunk {
        let mut ledger: Item = key_map(&derived::ledger(&c.event_id, &c.target));
        ledger.insert(attr::TYPE.into(), s(derived::types::LEDGER));
        ledger.insert(attr::EXPIRES_AT.into(), n(now + LEDGER_TTL_SECONDS));
        actions.push(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(table.name())
                        .set_item(Some(ledger))
                        .condition_expression("attribute_not_exists(PK)")
                        .build()
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                )
                .build(),
        );
    }
    Ok(actions)
}

/// Sums numeric attributes over shard items, read in ONE BatchGetItem (unprocessed keys, which
/// DynamoDB may return under load, are asked again). Missing shards count as zero.
pub async fn sum_shards(
    table: &Table,
    shards: &[Key],
    attributes: &[&str],
) -> Result<BTreeMap<String, i64>, StoreError> {
    let mut sums: BTreeMap<String, i64> = attributes.iter().map(|a| ((*a).to_owned(), 0)).collect();
    let mut pending: Vec<Item> = shards.iter().map(key_map).collect();
    let projection = attributes
        .iter()
        .enumerate()
        .map(|(i, _)| format!("#p{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let names: HashMap<String, String> = attributes
        .iter()
        .enumerate()
        .map(|(i, a)| (format!("#p{i}"), (*a).to_owned()))
        .collect();
    let mut attempt = 0u32;
    while !pending.is_empty() {
        attempt += 1;
        let keys_and_attributes = KeysAndAttributes::builder()
            .set_keys(Some(std::mem::take(&mut pending)))
            .projection_expression(&projection)
            .set_expression_attribute_names(Some(names.clone()))
            .build()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let out = table
            .client()
            .batch_get_item()
            .request_items(table.name(), keys_and_attributes)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(from_sdk)?;
        let items = out
            .responses
            .and_then(|mut r| r.remove(table.name()))
            .unwrap_or_default();
        table.meter().record(
            "BatchGetItem",
            out.consumed_capacity.as_deref().unwrap_or_default(),
            items.len(),
        );
        for item in &items {
            for a in attributes {
                if let Some(v) = item.get(*a).and_then(|v| v.as_n().ok()) {
                    let v: i64 = v
                        .parse()
                        .map_err(|_| StoreError::Corrupt(format!("{a} is not an integer: {v}")))?;
                    *sums.entry((*a).to_owned()).or_default() += v;
                }
            }
        }
        pending = out
            .unprocessed_keys
            .and_then(|mut u| u.remove(table.name()))
            .map(|k| k.keys)
            .unwrap_or_default();
        if !pending.is_empty() {
            if attempt >= 8 {
                return Err(StoreError::Throttled(
                    "unprocessed keys after 8 attempts".into(),
                ));
            }
            tokio::time::sleep(std::time::Duration::from_millis(10 << attempt)).await;
        }
    }
    Ok(sums)
}
