//! One event source mapping (a function's `DynamoDB` event): its settings, its counters, and
//! what it does with records it gives up on. The task that follows its shards is in
//! [`follow`](super::follow); each shard's processing in [`worker`](super::worker).

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use aws_sdk_dynamodbstreams::Client;
use tokio::sync::Notify;

use super::{
    clock::Clock,
    destination::{self, Destination, Source},
    filter::Filters,
    queue::{Condition, Entry, Limits},
    shard::Start,
    status::MappingState,
};
use crate::{lambda::Stack, sync::lock};

/// How often things happen; the defaults suit people and tests alike.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Between reads of a shard that had nothing new.
    pub poll_interval: Duration,
    /// Between listings of the shards (also done when a shard ends or the status is asked for).
    pub list_interval: Duration,
    /// The first wait before a retry; it doubles on each failure in a row, up to `backoff_max`.
    pub backoff_first: Duration,
    pub backoff_max: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            poll_interval: Duration::from_millis(250),
            list_interval: Duration::from_secs(1),
            backoff_first: Duration::from_millis(100),
            backoff_max: Duration::from_secs(2),
        }
    }
}

pub struct Mapping {
    /// The key in the status: the function's name (with `/<event>` if it has several).
    pub name: String,
    pub function: String,
    pub function_arn: String,
    pub settings: sam_template::StreamMapping,
    pub start: Start,
    pub filters: Filters,
    pub limits: Limits,
    pub stack: Arc<Stack>,
    pub client: Client,
    pub stream_arn: String,
    pub destination: Destination,
    pub timing: Timing,
    /// What record ages are measured by.
    pub clock: Clock,
    pub state: Mutex<MappingState>,
    /// Asks the shard-following task to list the shards now.
    pub wake: Notify,
}

impl Mapping {
    pub fn update<T>(&self, f: impl FnOnce(&mut MappingState) -> T) -> T {
        f(&mut lock(&self.state))
    }

    pub fn set_pending(&self, shard: &str, pending: usize) {
        self.update(|s| s.shards.entry(shard.to_owned()).or_default().pending = pending);
    }

    /// Records the error for the status, without a log line (the caller writes a better one).
    pub fn note_error(&self, message: &str) {
        self.update(|s| s.last_error = Some(message.to_owned()));
    }

    pub fn error(&self, message: String) {
        eprintln!("stream {}: {message}", self.name);
        self.update(|s| s.last_error = Some(message));
    }

    /// Gives up on `entries`: to the on-failure destination if there is one.
    pub fn discard(&self, shard: &str, condition: Condition, entries: &[Entry]) {
        let source = Source {
            function_arn: &self.function_arn,
            shard_id: shard,
            stream_arn: &self.stream_arn,
        };
        let record = destination::record(&source, condition, entries, self.clock.now());
        let gone_to = match self.destination.write(&record) {
            Ok(Some(path)) => path.display().to_string(),
            Ok(None) => "dropped (no on-failure destination)".to_owned(),
            Err(e) => {
                self.error(e);
                "lost (the destination file cannot be written)".to_owned()
            }
        };
        self.update(|s| s.failed_to_destination += entries.len() as u64);
        let n = entries.len();
        eprintln!(
            "stream {}: {n} record{} {} -> {gone_to}",
            self.name,
            if n == 1 { "" } else { "s" },
            condition.as_str()
        );
    }
}
