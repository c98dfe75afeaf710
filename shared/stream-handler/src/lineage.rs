//! Which shard a shard follows. DynamoDB Streams closes a shard and opens a child in its place
//! every few hours, and splits one in two when its partition splits; Lambda reads a child only
//! once its parent is read to its end and done with. So when a batch of a child is applied, the
//! parent's marks are dead (no record of the parent is delivered again), and the targets the
//! batch writes drop them in the same write (`store::aggregate::apply`): a target keeps about one
//! mark per shard open now, not one per shard of the last 25 hours.
//!
//! The parents come from DynamoDB Streams' `DescribeStream` (the consumers' roles allow it on
//! their stream), read in the background at most once a minute and kept for the process's life:
//! a batch whose shard is not known yet keeps its parent's marks, which a later batch drops.
//! Without them (the call fails, a test's made-up stream), nothing is dropped early: old marks go
//! after 25 hours.

use std::{
    collections::HashMap,
    sync::{Mutex, OnceLock},
    time::{Duration, Instant},
};

/// How often a process may describe its stream again to find a shard it has not seen.
const REFRESH: Duration = Duration::from_secs(60);

#[derive(Default)]
struct Known {
    /// (stream, shard) → its parent, if it has one.
    parents: HashMap<(String, String), Option<String>>,
    /// When each stream was last described.
    described: HashMap<String, Instant>,
}

struct Lineage {
    client: Option<aws_sdk_dynamodbstreams::Client>,
    known: Mutex<Known>,
}

static LINEAGE: OnceLock<Lineage> = OnceLock::new();

fn lineage() -> &'static Lineage {
    LINEAGE.get_or_init(|| Lineage {
        client: None,
        known: Mutex::default(),
    })
}

/// At a consumer's start-up: the client that describes its stream (the SDK's configuration
/// from the environment, as the table's).
pub async fn init() {
    let client = match store::sdk::config().await {
        // Every attempt bounded, as the table's: a DescribeStream that never answers must not
        // leave a task waiting for the process's life.
        Ok(config) => Some(aws_sdk_dynamodbstreams::Client::from_conf(
            aws_sdk_dynamodbstreams::config::Builder::from(&config)
                .timeout_config(store::deadline::attempt_timeouts())
                .build(),
        )),
        Err(e) => {
            tracing::warn!(error = %e, "no DynamoDB Streams client: old marks go by age only");
            None
        }
    };
    let _ = LINEAGE.set(Lineage {
        client,
        known: Mutex::default(),
    });
}

/// Records that `shard` of `stream` follows `parent` (what `DescribeStream` says; tests say it
/// themselves).
pub fn remember(stream: &str, shard: &str, parent: Option<&str>) {
    let mut known = lineage().known.lock().unwrap_or_else(|e| e.into_inner());
    known.parents.insert(
        (stream.to_owned(), shard.to_owned()),
        parent.map(str::to_owned),
    );
}

/// The shard `shard` of `stream` follows, if any and if known.
pub async fn parent(stream: &str, shard: &str) -> Option<String> {
    let key = (stream.to_owned(), shard.to_owned());
    let lineage = lineage();
    {
        let mut known = lineage.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(parent) = known.parents.get(&key) {
            return parent.clone();
        }
        let recent = known
            .described
            .get(stream)
            .is_some_and(|at| at.elapsed() < REFRESH);
        if recent || lineage.client.is_none() {
            return None;
        }
        known.described.insert(stream.to_owned(), Instant::now());
    }
    // Described off the batch's path: a DynamoDB Streams that answers slowly or not at all (a
    // consumer in a VPC with no route to it) never holds a batch up. This batch keeps the
    // parent's marks; a later one drops them, or their age does.
    let client = lineage.client.clone()?;
    let stream = stream.to_owned();
    tokio::spawn(async move {
        match list_shards(&client, &stream).await {
            Ok(shards) => {
                for shard in shards {
                    remember(&stream, &shard.id, shard.parent.as_deref());
                }
            }
            Err(e) => tracing::warn!(error = %e, "DescribeStream failed: old marks go by age only"),
        }
    });
    None
}

/// A shard as `DescribeStream` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardInfo {
    pub id: String,
    pub parent: Option<String>,
    /// It has an ending sequence number: no record will be added.
    pub closed: bool,
}

impl ShardInfo {
    pub fn new(id: &str, parent: Option<&str>, closed: bool) -> ShardInfo {
        ShardInfo {
            id: id.to_owned(),
            parent: parent.map(str::to_owned),
            closed,
        }
    }
}

/// Every shard of the stream (all pages of `DescribeStream`): its parent, and whether it is
/// closed. The local stack's mappings and the tools list shards with it too.
pub async fn list_shards(
    client: &aws_sdk_dynamodbstreams::Client,
    stream: &str,
) -> Result<Vec<ShardInfo>, String> {
    let mut shards = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let out = client
            .describe_stream()
            .stream_arn(stream)
            .set_exclusive_start_shard_id(after.take())
            .send()
            .await
            .map_err(|e| {
                format!(
                    "DescribeStream: {}",
                    aws_sdk_dynamodbstreams::error::DisplayErrorContext(e)
                )
            })?;
        let Some(description) = out.stream_description() else {
            return Ok(shards);
        };
        shards.extend(description.shards().iter().filter_map(|s| {
            Some(ShardInfo {
                id: s.shard_id()?.to_owned(),
                parent: s.parent_shard_id().map(str::to_owned),
                closed: s
                    .sequence_number_range()
                    .and_then(|r| r.ending_sequence_number())
                    .is_some(),
            })
        }));
        match description.last_evaluated_shard_id() {
            Some(last) => after = Some(last.to_owned()),
            None => return Ok(shards),
        }
    }
}
