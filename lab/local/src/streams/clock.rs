//! The time the mappings go by: the system's, or the system's moved forward by a test, so that
//! records reach `MaximumRecordAgeInSeconds` when the test says rather than when a minute has
//! passed.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, SystemTime},
};

/// The mappings' clock. Cloning shares it: a test keeps a clone and [`advance`](Clock::advance)s
/// the one the mappings read.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    /// How far ahead of the system's time, in milliseconds.
    ahead_ms: Arc<AtomicU64>,
}

impl Clock {
    pub fn now(&self) -> SystemTime {
        SystemTime::now() + self.ahead()
    }

    /// Moves the time forward by `by` (to the millisecond), for the mappings and for the
    /// records they read from now on.
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.ahead_ms.fetch_add(ms, Ordering::SeqCst);
    }

    /// A time DynamoDB Local stamped, on this clock: its clock is the system's, so a change made
    /// after the clock moved forward is as far ahead as the clock, and as young as it was.
    pub fn stamped(&self, by_dynamodb: SystemTime) -> SystemTime {
        by_dynamodb + self.ahead()
    }

    fn ahead(&self) -> Duration {
        Duration::from_millis(self.ahead_ms.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_moves_with_the_clock_and_so_do_dynamodbs_stamps() {
        let clock = Clock::default();
        let test = clock.clone();
        let stamp = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(clock.stamped(stamp), stamp);
        test.advance(Duration::from_secs(61));
        assert_eq!(clock.stamped(stamp), stamp + Duration::from_secs(61));
        let before = SystemTime::now();
        assert!(clock.now() >= before + Duration::from_secs(61));
    }
}
