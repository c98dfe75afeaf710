//! What a mapping has done so far, and whether it has caught up with the stream: the JSON of
//! `GET /_local/streams`.

use std::{collections::BTreeMap, time::Instant};

use serde_json::{Value, json};

/// Counts are of records, except `invocations` and `retries` (invocations that re-sent records
/// after a failure).
#[derive(Debug, Default)]
pub struct MappingState {
    /// Records sent to the function, re-sends included.
    pub delivered: u64,
    pub filtered_out: u64,
    pub succeeded: u64,
    /// Records given up on (to the on-failure destination if there is one).
    pub failed_to_destination: u64,
    pub retries: u64,
    pub invocations: u64,
    pub last_error: Option<String>,
    pub shards: BTreeMap<String, ShardState>,
    /// When the last complete listing of the shards started.
    pub listed_at: Option<Instant>,
}

#[derive(Debug, Default)]
pub struct ShardState {
    /// Records read and not yet done with, those in flight included.
    pub pending: usize,
    pub in_flight: bool,
    /// Read to the end of a closed shard and done with every record.
    pub finished: bool,
    /// When the last GetRecords that found nothing new started, if nothing is pending since.
    pub caught_up_at: Option<Instant>,
}

impl MappingState {
    pub fn in_flight(&self) -> bool {
        self.shards.values().any(|s| s.in_flight)
    }

    pub fn pending(&self) -> usize {
        self.shards.values().map(|s| s.pending).sum()
    }

    /// Busy: certainly not drained, whatever happens next.
    pub fn busy(&self) -> bool {
        self.in_flight() || self.pending() > 0
    }

    /// Everything written before `since` has been dealt with: the shards were listed after it,
    /// and every shard is finished, or found nothing new after it with nothing pending.
    pub fn drained_since(&self, since: Instant) -> bool {
        self.listed_at.is_some_and(|t| t >= since)
            && self.shards.values().all(|s| {
                s.finished
                    || (s.pending == 0
                        && !s.in_flight
                        && s.caught_up_at.is_some_and(|t| t >= since))
            })
    }

    pub fn to_json(&self, drained: bool) -> Value {
        json!({
            "delivered": self.delivered,
            "filteredOut": self.filtered_out,
            "succeeded": self.succeeded,
            "failedToDestination": self.failed_to_destination,
            "retries": self.retries,
            "invocations": self.invocations,
            "inFlight": self.in_flight(),
            "pendingRecords": self.pending(),
            "shards": self.shards.len(),
            "lastError": self.last_error,
            "drained": drained,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn drained_needs_fresh_observations() {
        let before = Instant::now();
        let mut state = MappingState::default();
        assert!(!state.drained_since(before), "never listed");
        state.listed_at = Some(before + Duration::from_millis(1));
        assert!(state.drained_since(before), "no shard at all");
        state.shards.insert("a".into(), ShardState::default());
        assert!(!state.drained_since(before), "never caught up");
        state.shards.insert(
            "a".into(),
            ShardState {
                caught_up_at: Some(before + Duration::from_millis(2)),
                ..ShardState::default()
            },
        );
        assert!(state.drained_since(before));
        assert!(
            !state.drained_since(before + Duration::from_millis(3)),
            "stale"
        );
        state.shards.insert(
            "b".into(),
            ShardState {
                finished: true,
                ..ShardState::default()
            },
        );
        assert!(state.drained_since(before));
        if let Some(a) = state.shards.get_mut("a") {
            a.pending = 1;
        }
        assert!(state.busy());
        assert!(!state.drained_since(before));
    }
}
