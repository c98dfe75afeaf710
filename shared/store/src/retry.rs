//! The one backoff policy of the store: exponential with full jitter, for transactions cancelled
//! by conflicts, writers that lost a race to another writer, and unprocessed batch keys.

use std::time::Duration;

/// The first pause's ceiling.
const BASE_MS: u64 = 2;
/// No pause is longer than this.
const CAP_MS: u64 = 64;

/// A pause before attempt `attempt + 1` (attempts count from 1): a random duration up to
/// `BASE_MS * 2^(attempt-1)`, capped, so that writers that collided spread out.
pub fn pause(attempt: u32) -> Duration {
    let ceiling_us = (BASE_MS << attempt.saturating_sub(1).min(16)).min(CAP_MS) * 1000;
    Duration::from_micros(jitter() % ceiling_us + 100)
}

/// A cheap random number: the clock's nanoseconds (enough to spread retries apart).
fn jitter() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::from(d.subsec_nanos()))
        .unwrap_or(0)
}

/// Sleeps [`pause`]`(attempt)`: what a writer that lost a race does before its next attempt.
pub async fn sleep(attempt: u32) {
    tokio::time::sleep(pause(attempt)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_grow_then_stay_capped() {
        for attempt in 1..40 {
            let ceiling = (BASE_MS << (attempt - 1).min(16)).min(CAP_MS);
            assert!(pause(attempt) <= Duration::from_micros(ceiling * 1000 + 100));
        }
    }
}
