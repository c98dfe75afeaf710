//! Development-only helpers shared by the local stack, the tests, the benchmarks and the
//! maintenance commands. Nothing here is deployed: in AWS, CloudFormation creates the table from
//! `template.yaml`.
//!
//! - [`client`], [`create_table`]: DynamoDB Local, and the table as the template declares it;
//! - [`table`] and the rest of [`scratch`]: a throwaway table, filled fast, read whole;
//! - [`stream_record`] / [`stream_event`]: DynamoDB Streams records made from items;
//! - [`item_size`] and [`bill`]: DynamoDB's sizes, and what it bills a request (the one meter);
//! - [`cancelled`]: a cancelled transaction as DynamoDB answers it, for `aws-smithy-mocks`.
//!
//! Each context's fixtures (the seeds' entities, written through its own writes) are its
//! crate's: `functions/<context>/src/fixtures.rs`.

pub mod bill;
pub mod json;
pub mod own_local;
pub mod profile;
pub mod scratch;
pub mod size;
pub mod stream;
pub mod svg;

pub use bill::{
    Billed, billed, check_units, item_write_units, query_read_units, read_units,
    request_read_units, touched_write_units, write_units,
};
pub use scratch::{
    TABLE_PREFIXES, TEST_CURSOR_KEY, TEST_SHARDS, all_items, batch_put, deps, table,
};
pub use size::{deployed_indexes, index_entry_size, item_size};
pub use stream::{
    Change, TEST_SHARD, TEST_STREAM_ARN, next_sequence, stream_event, stream_event_of,
    stream_record,
};

use std::time::Duration;

use aws_sdk_dynamodb::{
    Client,
    config::{Credentials, Region},
    types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType,
        TimeToLiveSpecification,
    },
};

/// Where DynamoDB Local listens unless `AWS_ENDPOINT_URL_DYNAMODB` says otherwise.
pub const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:8000";

pub fn endpoint() -> String {
    std::env::var("AWS_ENDPOINT_URL_DYNAMODB").unwrap_or_else(|_| DEFAULT_ENDPOINT.to_owned())
}

/// The workspace's debug build directory, `target/debug` (under `CARGO_TARGET_DIR` when it is
/// set): where `cargo build` puts the function binaries the local stack runs.
pub fn debug_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| sam_template::workspace_root().join("target"))
        .join("debug")
}

/// The port of [`endpoint`] (DynamoDB Local listens on 127.0.0.1).
pub fn endpoint_port() -> u16 {
    let endpoint = endpoint();
    endpoint
        .rsplit(':')
        .next()
        .and_then(|p| p.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("no port in {endpoint}"))
}

/// A client for DynamoDB Local. It accepts any credentials; fixed ones keep a developer's real
/// AWS profile out of the way, and the same region everywhere keeps one database file.
pub fn client() -> Client {
    client_at(&endpoint())
}

/// A client for the DynamoDB Local at `endpoint`, with the same fixed credentials and region.
pub fn client_at(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "dev"))
        .endpoint_url(endpoint)
        .build();
    Client::from_conf(config)
}

/// The environment a process needs to reach DynamoDB Local through the SDK's standard settings.
pub fn local_aws_env() -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL_DYNAMODB", endpoint()),
        // DynamoDB Local serves its streams on the same endpoint.
        ("AWS_ENDPOINT_URL_DYNAMODB_STREAMS", endpoint()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_ACCESS_KEY_ID", "local".into()),
        ("AWS_SECRET_ACCESS_KEY", "local".into()),
    ]
}

#[derive(Debug, thiserror::Error)]
pub enum DevError {
    #[error(transparent)]
    Template(#[from] sam_template::TemplateError),
    #[error("DynamoDB: {0}")]
    Dynamo(String),
}

fn dynamo(e: impl std::fmt::Display) -> DevError {
    DevError::Dynamo(e.to_string())
}

/// Every key attribute of `k` in order: its `HASH` attributes, then its `RANGE` attributes (a
/// multi-attribute GSI key has up to four of each).
fn key_schema(k: &sam_template::KeySchema) -> Vec<KeySchemaElement> {
    let element = |name: &String, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .expect("complete")
    };
    k.partition
        .iter()
        .map(|a| element(a, KeyType::Hash))
        .chain(k.sort.iter().map(|a| element(a, KeyType::Range)))
        .collect()
}

/// A global secondary index as the template declares it, for CreateTable (or, its key schema and
/// projection, for an UpdateTable that adds it).
pub fn global_index(index: &sam_template::Index) -> Result<GlobalSecondaryIndex, DevError> {
    GlobalSecondaryIndex::builder()
        .index_name(&index.name)
        .set_key_schema(Some(key_schema(&index.key)))
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::from(index.projection.as_str()))
                .set_non_key_attributes(
                    (!index.non_key_attributes.is_empty())
                        .then(|| index.non_key_attributes.clone()),
                )
                .build(),
        )
        .build()
        .map_err(dynamo)
}

/// Creates `name` exactly as the template's table resource declares it (keys, indexes, stream,
/// TTL), and waits until it is active. Returns `false` if it already existed.
pub async fn create_table(
    client: &Client,
    name: &str,
    table: &sam_template::Table,
) -> Result<bool, DevError> {
    let mut req = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .set_key_schema(Some(key_schema(&table.key)));
    for (attr, ty) in &table.attributes {
        req = req.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(attr)
                .attribute_type(ScalarAttributeType::from(ty.as_str()))
                .build()
                .map_err(dynamo)?,
        );
    }
    for index in &table.global_indexes {
        req = req.global_secondary_indexes(global_index(index)?);
    }
    if let Some(view) = &table.stream_view_type {
        req = req.stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::from(view.as_str()))
                .build()
                .map_err(dynamo)?,
        );
    }
    match req.send().await {
        Ok(_) => {}
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_in_use_exception()) =>
        {
            return Ok(false);
        }
        Err(e) => return Err(dynamo(aws_sdk_dynamodb::error::DisplayErrorContext(e))),
    }
    wait_active(client, name).await?;
    if let Some(attr) = &table.ttl_attribute {
        client
            .update_time_to_live()
            .table_name(name)
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .attribute_name(attr)
                    .enabled(true)
                    .build()
                    .map_err(dynamo)?,
            )
            .send()
            .await
            .map_err(|e| dynamo(aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
    }
    Ok(true)
}

async fn wait_active(client: &Client, name: &str) -> Result<(), DevError> {
    for _ in 0..100 {
        let d = client
            .describe_table()
            .table_name(name)
            .send()
            .await
            .map_err(|e| dynamo(aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
        let status = d.table().and_then(|t| t.table_status()).cloned();
        if status == Some(aws_sdk_dynamodb::types::TableStatus::Active) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(DevError::Dynamo(format!(
        "table {name} did not become active"
    )))
}

/// Creates the table of this repository's `template.yaml` under `name`.
pub async fn create_workspace_table(client: &Client, name: &str) -> Result<bool, DevError> {
    let template = sam_template::Template::workspace()?;
    create_table(client, name, &template.table).await
}

/// A name for a throwaway test table, `<prefix>-<pid>-<unique>`: the process that made it is in
/// the name, so a later process can tell the tables of finished processes ([`reap_test_tables`]).
pub fn test_table_name(prefix: &str, unique: &str) -> String {
    format!("{prefix}-{}-{unique}", std::process::id())
}

/// The process that made a [`test_table_name`] table, if `name` is one.
fn test_table_owner(name: &str, prefixes: &[&str]) -> Option<u32> {
    let (prefix, rest) = name.split_once('-')?;
    if !prefixes.contains(&prefix) {
        return None;
    }
    rest.split_once('-')?.0.parse().ok()
}

/// Deletes the test tables (`prefixes`) of processes that are no longer running, once per
/// process. DynamoDB Local slows down with every table it holds (each new table costs more than
/// the last: the tests crate took 890 s after the workspace's other tests had left their tables,
/// 330-380 s on a fresh instance), and test binaries run one after the other, so each cleans up
/// after the ones before it. Tables of live processes (tests running in parallel) are left alone.
pub async fn reap_test_tables(client: &Client, prefixes: &[&str]) {
    static REAPED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    REAPED
        .get_or_init(|| async {
            let alive = |pid: u32| std::path::Path::new(&format!("/proc/{pid}")).exists();
            let mut dead = Vec::new();
            let mut start = None;
            loop {
                let Ok(page) = client
                    .list_tables()
                    .set_exclusive_start_table_name(start)
                    .send()
                    .await
                else {
                    return; // Not fatal: the test creating its table will say what is wrong.
                };
                dead.extend(
                    page.table_names()
                        .iter()
                        .filter(|name| {
                            test_table_owner(name, prefixes).is_some_and(|pid| !alive(pid))
                        })
                        .cloned(),
                );
                start = page.last_evaluated_table_name;
                if start.is_none() {
                    break;
                }
            }
            // A few at a time: DynamoDB Local does them one by one anyway.
            let mut deleting = tokio::task::JoinSet::new();
            for name in dead {
                if deleting.len() >= 4 {
                    deleting.join_next().await;
                }
                let delete = client.delete_table().table_name(name);
                deleting.spawn(async move { delete.send().await.ok() });
            }
            deleting.join_all().await;
        })
        .await;
}

/// A TransactionCanceledException with these reason codes, as the SDK parses DynamoDB's answer:
/// what `aws-smithy-mocks` rules answer where DynamoDB Local cannot be made to cancel on cue.
pub fn cancelled(
    codes: &[&str],
) -> aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError {
    use aws_sdk_dynamodb::types::{CancellationReason, error::TransactionCanceledException};
    aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(
        TransactionCanceledException::builder()
            .set_cancellation_reasons(Some(
                codes.iter().map(|c| CancellationReason::builder().code(*c).build()).collect(),
            ))
            .build(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_table_names_its_process() {
        let name = test_table_name("test", "01abc");
        assert_eq!(test_table_owner(&name, &["test"]), Some(std::process::id()));
        assert_eq!(test_table_owner(&name, &["e2e"]), None);
        for other in ["local-table", "test-x-1", "test", "bench-12-x"] {
            assert_eq!(test_table_owner(other, &["test", "e2e"]), None, "{other}");
        }
    }
}
