//! `make move-index`: moves C4 by status and O10 from GSI1's concatenated keys
//! (`CUSTOMER#<id>` / `REP#<id>`, `<STATUS>#<orderId>`) to the multi-attribute indexes
//! `CustomerOrdersByStatus` and `RepOrdersByStatus`, on a live table, online.
//!
//! Order headers and summaries already carry every attribute those indexes key on (`CustomerId`,
//! `AccountRepId`, `Type`, `Status`, `OrderId`), so no item is rewritten to fill them: DynamoDB
//! backfills a new index itself. The steps, each safe to run again:
//!
//! 1. **declare** each index missing from the table, as `template.yaml` declares it for
//!    `OrderStatusKeys=multi-attribute` (read through `sam-template`), one UpdateTable per index
//!    (DynamoDB creates one GSI per request); on a stack, CloudFormation does it, one index per
//!    update (`OrderStatusKeys=moving-1`, then `moving-2`);
//! 2. **wait** until it is `ACTIVE`, reporting `IndexStatus`, `Backfilling` and `ItemCount`;
//! 3. **switch**: a deployment, not this tool (`OrderStatusKeys=multi-attribute`): the readers
//!    read the indexes (from `moving-2` on, each once it is `ACTIVE`), the writers stop writing
//!    the orders' GSI1 keys;
//! 4. **clean up** (`--cleanup`, only once every reader reads the new indexes and the writers no
//!    longer write the orders' GSI1 keys): remove `GSI1PK`/`GSI1SK` from order headers
//!    (`CUSTOMER#…`) and order summaries (`REP#…`), and from nothing else: customers, order lines,
//!    inventories and the rest keep their GSI1 keys. The items to clean are found by scanning
//!    `CustomerOrdersByStatus`, which holds exactly the headers and summaries, not the table.

use std::{
    collections::BTreeMap,
    time::{Duration, Instant},
};

use aws_sdk_dynamodb::{
    Client,
    error::DisplayErrorContext,
    types::{
        AttributeDefinition, AttributeValue, CreateGlobalSecondaryIndexAction,
        DeleteGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate, IndexStatus,
        ReturnConsumedCapacity, ScalarAttributeType, TableStatus,
    },
};
use futures::{StreamExt, TryStreamExt, stream};
use keys::{
    Composite, Index,
    commerce::{tag, types},
    indexes::{CustomerOrdersByStatus, RepOrdersByStatus},
};
use store::StoreError;

/// The indexes the move declares, in the order it declares them.
pub const INDEXES: [&str; 2] = [CustomerOrdersByStatus::NAME, RepOrdersByStatus::NAME];

/// The template deployed with the design the move ends in: the indexes it declares.
pub fn template() -> Result<sam_template::Template, StoreError> {
    let keys = commerce::data::StatusKeys::MultiAttribute;
    sam_template::Template::workspace_with(&[(
        commerce::data::StatusKeys::PARAMETER,
        keys.as_str(),
    )])
    .map_err(|e| StoreError::Config(e.to_string()))
}

/// How often the wait asks DynamoDB how an index is doing.
pub const POLL: Duration = Duration::from_millis(500);

/// Concurrent UpdateItems of the cleanup.
const CLEANUP_WRITERS: usize = 8;

fn sdk(e: impl std::error::Error) -> StoreError {
    StoreError::Dynamo(DisplayErrorContext(e).to_string())
}

/// An index as DescribeTable reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexState {
    pub name: String,
    /// `CREATING`, `ACTIVE`, ...; `None`: the table has no such index.
    pub status: Option<String>,
    /// Only while DynamoDB fills an index added to a table (absent for indexes created with it).
    pub backfilling: Option<bool>,
    /// DynamoDB's count (refreshed about every six hours on AWS; at once on DynamoDB Local).
    pub item_count: Option<i64>,
}

impl IndexState {
    pub fn is_active(&self) -> bool {
        self.status.as_deref() == Some(IndexStatus::Active.as_str())
    }
}

impl std::fmt::Display for IndexState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            self.name,
            self.status.as_deref().unwrap_or("absent")
        )?;
        if let Some(b) = self.backfilling {
            write!(f, ", backfilling {b}")?;
        }
        if let Some(n) = self.item_count {
            write!(f, ", {n} items")?;
        }
        Ok(())
    }
}

/// The table's status and the state of the index `name`.
pub async fn describe(
    client: &Client,
    table: &str,
    name: &str,
) -> Result<(Option<TableStatus>, IndexState), StoreError> {
    let out = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(sdk)?;
    let t = out
        .table
        .ok_or_else(|| StoreError::Corrupt(format!("DescribeTable of {table}: no table")))?;
    let index = t
        .global_secondary_indexes()
        .iter()
        .find(|i| i.index_name() == Some(name));
    let state = IndexState {
        name: name.to_owned(),
        status: index
            .and_then(|i| i.index_status())
            .map(|s| s.as_str().to_owned()),
        backfilling: index.and_then(|i| i.backfilling()),
        item_count: index.and_then(|i| i.item_count()),
    };
    Ok((t.table_status, state))
}

/// Step 1: creates index `name` as the template's table declares it, unless the table has it
/// already (`false`). Waits first for the table to be `ACTIVE`: DynamoDB refuses an UpdateTable
/// while another index is being created.
pub async fn declare(
    client: &Client,
    table: &str,
    template: &sam_template::Table,
    name: &str,
) -> Result<bool, StoreError> {
    let declared = template
        .global_indexes
        .iter()
        .find(|i| i.name == name)
        .ok_or_else(|| StoreError::Config(format!("template.yaml declares no index {name}")))?;
    loop {
        let (status, state) = describe(client, table, name).await?;
        if state.status.is_some() {
            return Ok(false);
        }
        if status == Some(TableStatus::Active) {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    let index = devkit::global_index(declared).map_err(|e| StoreError::Config(e.to_string()))?;
    let mut definitions = Vec::new();
    for attribute in index.key_schema().iter().map(|k| k.attribute_name()) {
        let ty = template.attributes.get(attribute).ok_or_else(|| {
            StoreError::Config(format!("{attribute} is not in AttributeDefinitions"))
        })?;
        definitions.push(
            AttributeDefinition::builder()
                .attribute_name(attribute)
                .attribute_type(ScalarAttributeType::from(ty.as_str()))
                .build()
                .map_err(sdk)?,
        );
    }
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name(name)
        .set_key_schema(Some(index.key_schema().to_vec()))
        .set_projection(index.projection().cloned())
        .build()
        .map_err(sdk)?;
    client
        .update_table()
        .table_name(table)
        .set_attribute_definitions(Some(definitions))
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder().create(create).build(),
        )
        .send()
        .await
        .map_err(sdk)?;
    Ok(true)
}

/// Step 2: waits until index `name` is `ACTIVE`, telling `progress` each state it sees.
pub async fn wait_active(
    client: &Client,
    table: &str,
    name: &str,
    mut progress: impl FnMut(&IndexState),
) -> Result<IndexState, StoreError> {
    loop {
        let (_, state) = describe(client, table, name).await?;
        progress(&state);
        if state.is_active() {
            return Ok(state);
        }
        if state.status.is_none() {
            return Err(StoreError::Config(format!("{table} has no index {name}")));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// How long each index took to be declared and filled.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    pub name: String,
    /// `false`: the table had it already.
    pub created: bool,
    /// From the UpdateTable to `ACTIVE`.
    pub backfill: Duration,
    pub item_count: Option<i64>,
}

/// Steps 1 and 2 for every index of [`INDEXES`], one after the other, as the move's two stack
/// updates do: `declared(i)` hears when the `i`th has been asked for (a stack update then
/// deploys its functions), `progress` each state seen while waiting for it.
pub async fn declare_all(
    client: &Client,
    table: &str,
    template: &sam_template::Table,
    mut declared: impl FnMut(usize),
    mut progress: impl FnMut(&IndexState),
) -> Result<Vec<Declared>, StoreError> {
    let mut done = Vec::new();
    for (i, name) in INDEXES.into_iter().enumerate() {
        let started = Instant::now();
        let created = declare(client, table, template, name).await?;
        declared(i);
        let state = wait_active(client, table, name, &mut progress).await?;
        done.push(Declared {
            name: name.to_owned(),
            created,
            backfill: started.elapsed(),
            item_count: state.item_count,
        });
    }
    Ok(done)
}

/// What the cleanup did (or, dry, would do).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cleanup {
    /// Headers and summaries read from `CustomerOrdersByStatus` that still had GSI1 keys.
    pub found: usize,
    /// Headers whose `CUSTOMER#` GSI1 keys were removed.
    pub headers: usize,
    /// Summaries whose `REP#` GSI1 keys were removed.
    pub summaries: usize,
    /// Changed meanwhile so that the condition no longer held (nothing written).
    pub skipped: usize,
    /// Write units DynamoDB reported for the UpdateItems: on the table, and on each index (GSI1:
    /// an entry deleted; the indexes that project ALL: the entry rewritten without the keys).
    pub table_write_units: f64,
    pub index_write_units: BTreeMap<String, f64>,
    /// Read units of the index scan.
    pub read_units: f64,
}

/// The GSI1 partition prefix each entity stands under for the pattern that moved: headers under
/// their customer (C4 by status), summaries under their rep (O10).
fn moved_prefix(entity: &str) -> Option<String> {
    let tag = match entity {
        types::ORDER_HEADER => tag::CUSTOMER,
        types::ORDER_SUMMARY => tag::REP,
        _ => return None,
    };
    Some(Composite::new().lit(tag).build_delimited())
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// Step 4: removes `GSI1PK`/`GSI1SK` from every order header under `CUSTOMER#` and every order
/// summary under `REP#`, each in one UpdateItem conditioned on its `Type` and that prefix (an
/// item changed meanwhile is skipped, never damaged). `dry`: only counts. `progress` is told
/// after every page of the scan.
pub async fn cleanup(
    client: &Client,
    table: &str,
    dry: bool,
    mut progress: impl FnMut(&Cleanup),
) -> Result<Cleanup, StoreError> {
    let (gsi1pk, gsi1sk, ty) = (keys::attr::GSI1PK, keys::attr::GSI1SK, model::attr::TYPE);
    let mut done = Cleanup::default();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .index_name(CustomerOrdersByStatus::NAME)
            .filter_expression("attribute_exists(#pk)")
            .projection_expression("PK, SK, #t, #pk")
            .expression_attribute_names("#pk", gsi1pk)
            .expression_attribute_names("#t", ty)
            .set_exclusive_start_key(start)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(sdk)?;
        done.read_units += page
            .consumed_capacity()
            .and_then(|c| c.capacity_units())
            .unwrap_or(0.0);
        let mut work = Vec::new();
        for item in page.items() {
            let text = |a: &str| item.get(a).and_then(|v| v.as_s().ok()).cloned();
            let (Some(entity), Some(pk)) = (text(ty), text(gsi1pk)) else {
                continue;
            };
            let Some(prefix) = moved_prefix(&entity) else {
                continue;
            };
            if !pk.starts_with(&prefix) {
                continue;
            }
            done.found += 1;
            let (pk, sk) = (keys::attr::PK, keys::attr::SK);
            let key = [(pk, item.get(pk)), (sk, item.get(sk))]
                .into_iter()
                .map(|(n, v)| v.cloned().map(|v| (n.to_owned(), v)))
                .collect::<Option<std::collections::HashMap<_, _>>>()
                .ok_or_else(|| StoreError::Corrupt("an index item without its key".into()))?;
            work.push((entity, prefix, key));
        }
        if !dry {
            let results: Vec<_> = stream::iter(work)
                .map(|(entity, prefix, key)| async move {
                    let out = client
                        .update_item()
                        .table_name(table)
                        .set_key(Some(key))
                        .update_expression("REMOVE #pk, #sk")
                        .condition_expression("#t = :t AND begins_with(#pk, :prefix)")
                        .expression_attribute_names("#pk", gsi1pk)
                        .expression_attribute_names("#sk", gsi1sk)
                        .expression_attribute_names("#t", ty)
                        .expression_attribute_values(":t", s(&entity))
                        .expression_attribute_values(":prefix", s(&prefix))
                        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                        .send()
                        .await;
                    match out {
                        Ok(out) => {
                            let c = out.consumed_capacity;
                            let table_units = c
                                .as_ref()
                                .and_then(|c| c.table())
                                .and_then(|t| t.capacity_units())
                                .unwrap_or(0.0);
                            let index_units: Vec<(String, f64)> = c
                                .as_ref()
                                .and_then(|c| c.global_secondary_indexes())
                                .into_iter()
                                .flatten()
                                .map(|(n, u)| (n.clone(), u.capacity_units().unwrap_or(0.0)))
                                .collect();
                            Ok(Some((entity, table_units, index_units)))
                        }
                        Err(e)
                            if e.as_service_error()
                                .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
                        {
                            Ok(None)
                        }
                        Err(e) => Err(sdk(e)),
                    }
                })
                .buffer_unordered(CLEANUP_WRITERS)
                .try_collect()
                .await?;
            for result in results {
                match result {
                    Some((entity, table_units, index_units)) => {
                        if entity == types::ORDER_HEADER {
                            done.headers += 1;
                        } else {
                            done.summaries += 1;
                        }
                        done.table_write_units += table_units;
                        for (index, units) in index_units {
                            *done.index_write_units.entry(index).or_default() += units;
                        }
                    }
                    None => done.skipped += 1,
                }
            }
        }
        progress(&done);
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok(done);
        }
    }
}

/// Write units per index, as a sentence: `1.0 on GSI1, 2.0 on RepOrdersByStatus`.
pub fn units(by_index: &BTreeMap<String, f64>) -> String {
    let parts: Vec<_> = by_index
        .iter()
        .map(|(index, units)| format!("{units:.1} on {index}"))
        .collect();
    if parts.is_empty() {
        "none on an index".into()
    } else {
        parts.join(", ")
    }
}

/// Deletes index `name` and waits until the table no longer has it: a table as it was before the
/// move, to rehearse the move on (`--rehearse`, the tests). Nothing if it is absent.
pub async fn remove(client: &Client, table: &str, name: &str) -> Result<(), StoreError> {
    let (_, state) = describe(client, table, name).await?;
    if state.status.is_some() {
        let delete = DeleteGlobalSecondaryIndexAction::builder()
            .index_name(name)
            .build()
            .map_err(sdk)?;
        client
            .update_table()
            .table_name(table)
            .global_secondary_index_updates(
                GlobalSecondaryIndexUpdate::builder().delete(delete).build(),
            )
            .send()
            .await
            .map_err(sdk)?;
    }
    loop {
        let (status, state) = describe(client, table, name).await?;
        if state.status.is_none() && status == Some(TableStatus::Active) {
            return Ok(());
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Creates table `name` as `template.yaml` declares it for `OrderStatusKeys=concatenated`: a
/// table as it is before the move, to rehearse the move on (the tests). DynamoDB Local deletes
/// an index slowly under load, so this is faster and surer than [`remove`].
pub async fn create_table_before(client: &Client, name: &str) -> Result<(), StoreError> {
    let keys = commerce::data::StatusKeys::Concatenated;
    let template = sam_template::Template::workspace_with(&[(
        commerce::data::StatusKeys::PARAMETER,
        keys.as_str(),
    )])
    .map_err(|e| StoreError::Config(e.to_string()))?;
    devkit::create_table(client, name, &template.table)
        .await
        .map_err(|e| StoreError::Config(e.to_string()))?;
    Ok(())
}
