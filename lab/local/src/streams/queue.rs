//! One shard's records between reading and completion, and what Lambda's retry rules make of
//! them: which records form the next batch, where a bisected batch's halves end, how many times
//! each record failed, and which ones may not be sent again.
//!
//! Pure state, no I/O: the shard worker drives it, the tests below check the rules.

use std::{
    cmp::Ordering,
    collections::VecDeque,
    time::{Duration, SystemTime},
};

use super::event::{Record, compare_sequence_numbers};

/// `MaximumRetryAttempts` and `MaximumRecordAgeInSeconds`; `None` is -1, unlimited.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    pub max_retries: Option<u32>,
    pub max_age: Option<Duration>,
}

/// Why records went to the on-failure destination (the names are Lambda's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    RetryAttemptsExhausted,
    RecordAgeExceeded,
}

impl Condition {
    pub fn as_str(self) -> &'static str {
        match self {
            Condition::RetryAttemptsExhausted => "RetryAttemptsExhausted",
            Condition::RecordAgeExceeded => "RecordAgeExceeded",
        }
    }
}

/// How an invocation failed, for the on-failure record's `responseContext`.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub status_code: u16,
    /// `Unhandled` for a function error, a timeout or a crash; `None` when the function answered
    /// but reported failed items.
    pub function_error: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub record: Record,
    /// Failures that count towards `MaximumRetryAttempts`.
    pub failures: u32,
    /// How many invocations it was part of.
    pub invocations: u32,
    pub last_failure: Option<Failure>,
}

/// What a whole-batch failure led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// Bisected: the halves go next, first half first.
    Split(usize, usize),
    /// The same records go again.
    Retry,
}

#[derive(Debug, Default)]
pub struct Queue {
    entries: VecDeque<Entry>,
    /// The last sequence number of each pending half of a bisected batch, innermost on top: the
    /// next batch stops at the top one. Sequence numbers rather than counts, so records leaving
    /// for the destination do not shift the boundaries.
    splits: Vec<String>,
}

impl Queue {
    pub fn push(&mut self, record: Record) {
        self.entries.push_back(Entry {
            record,
            failures: 0,
            invocations: 0,
            last_failure: None,
        });
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// True when the next batch is a retry or a half of a bisected batch: it goes as soon as the
    /// backoff allows, without waiting for the batching window.
    pub fn is_retrying(&self) -> bool {
        !self.splits.is_empty() || self.entries.front().is_some_and(|e| e.invocations > 0)
    }

    /// Takes the leading records that may not be sent again, all for the same reason; `None`
    /// when the first record may go.
    pub fn take_expired(
        &mut self,
        limits: &Limits,
        now: SystemTime,
    ) -> Option<(Condition, Vec<Entry>)> {
        let condition = expired(self.entries.front()?, limits, now)?;
        let count = self
            .entries
            .iter()
            .take_while(|e| expired(e, limits, now) == Some(condition))
            .count();
        let taken = self.entries.drain(..count).collect();
        self.drop_finished_splits();
        Some((condition, taken))
    }

    /// How many records from the front make the next batch: at most `batch_size`, within the
    /// current half of a bisected batch, under `max_bytes` of records (always at least one), and
    /// before any record that may not be sent again.
    pub fn next_batch(
        &self,
        batch_size: usize,
        max_bytes: usize,
        limits: &Limits,
        now: SystemTime,
    ) -> usize {
        let end = self.splits.last();
        let mut bytes = 0;
        let mut count = 0;
        for entry in self.entries.iter().take(batch_size.max(1)) {
            let past_split = end.is_some_and(|end| {
                compare_sequence_numbers(&entry.record.sequence_number, end) == Ordering::Greater
            });
            bytes += entry.record.bytes + 1;
            if count > 0
                && (past_split || bytes > max_bytes || expired(entry, limits, now).is_some())
            {
                break;
            }
            count += 1;
        }
        count
    }

    /// The first `n` records.
    pub fn batch(&self, n: usize) -> impl Iterator<Item = &Entry> {
        self.entries.iter().take(n)
    }

    /// The first `n` records were sent to the function.
    pub fn sent(&mut self, n: usize) {
        self.entries
            .iter_mut()
            .take(n)
            .for_each(|e| e.invocations += 1);
    }

    /// The first `n` records are done.
    pub fn succeed(&mut self, n: usize) -> Vec<Entry> {
        let done = self.entries.drain(..n.min(self.entries.len())).collect();
        self.drop_finished_splits();
        done
    }

    /// The batch of the first `n` records failed as a whole. With bisection a batch of two or
    /// more is split, which Lambda does not count as a retry; otherwise each record has failed
    /// once more.
    pub fn fail(&mut self, n: usize, bisect: bool, failure: &Failure) -> AfterFailure {
        let n = n.min(self.entries.len());
        for entry in self.entries.iter_mut().take(n) {
            entry.last_failure = Some(failure.clone());
        }
        if bisect && n > 1 {
            let first = n.div_ceil(2);
            self.splits
                .push(self.entries[n - 1].record.sequence_number.clone());
            self.splits
                .push(self.entries[first - 1].record.sequence_number.clone());
            return AfterFailure::Split(first, n - first);
        }
        for entry in self.entries.iter_mut().take(n) {
            entry.failures += 1;
        }
        AfterFailure::Retry
    }

    /// The function reported the records at `failed` (indexes in the batch) as failed: those
    /// before the first of them (the checkpoint) are done, the others stay for the retry. Only
    /// the reported records count a failure, so a record the function keeps rejecting reaches
    /// the destination on its own.
    pub fn fail_partially(
        &mut self,
        checkpoint: usize,
        failed: &[usize],
        failure: &Failure,
    ) -> Vec<Entry> {
        for &i in failed {
            if let Some(entry) = self.entries.get_mut(i) {
                entry.failures += 1;
                entry.last_failure = Some(failure.clone());
            }
        }
        self.succeed(checkpoint)
    }

    fn drop_finished_splits(&mut self) {
        while let Some(end) = self.splits.last() {
            let finished = match self.entries.front() {
                None => true,
                Some(front) => {
                    compare_sequence_numbers(end, &front.record.sequence_number) == Ordering::Less
                }
            };
            if !finished {
                break;
            }
            self.splits.pop();
        }
    }
}

fn expired(entry: &Entry, limits: &Limits, now: SystemTime) -> Option<Condition> {
    if limits.max_retries.is_some_and(|max| entry.failures > max) {
        return Some(Condition::RetryAttemptsExhausted);
    }
    let age = now.duration_since(entry.record.arrived).unwrap_or_default();
    if limits.max_age.is_some_and(|max| age > max) {
        return Some(Condition::RecordAgeExceeded);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const UNHANDLED: Failure = Failure {
        status_code: 200,
        function_error: None,
    };

    fn queue(n: u64) -> Queue {
        let mut q = Queue::default();
        let now = SystemTime::now();
        for i in 1..=n {
            let seq = format!("{i:021}");
            q.push(Record::new(json!({"n": i}), seq, now, now));
        }
        q
    }

    fn seqs(q: &Queue, n: usize) -> Vec<u64> {
        q.batch(n)
            .map(|e| e.record.sequence_number.parse().unwrap())
            .collect()
    }

    fn next(q: &Queue, batch_size: usize) -> Vec<u64> {
        seqs(
            q,
            q.next_batch(
                batch_size,
                usize::MAX,
                &Limits::default(),
                SystemTime::now(),
            ),
        )
    }

    #[test]
    fn batches_respect_size_and_bytes() {
        let q = queue(5);
        assert_eq!(next(&q, 3), [1, 2, 3]);
        assert_eq!(next(&q, 10), [1, 2, 3, 4, 5]);
        let one = q.batch(1).next().unwrap().record.bytes;
        let now = SystemTime::now();
        assert_eq!(q.next_batch(10, 2 * (one + 1), &Limits::default(), now), 2);
        // A record larger than the limit still goes, alone.
        assert_eq!(q.next_batch(10, 1, &Limits::default(), now), 1);
    }

    #[test]
    fn bisection_sends_each_half_first_half_first_down_to_single_records() {
        let mut q = queue(5);
        assert_eq!(q.fail(5, true, &UNHANDLED), AfterFailure::Split(3, 2));
        assert!(q.is_retrying());
        // New records do not join a half.
        q.push(Record::new(
            json!({}),
            format!("{:021}", 6),
            SystemTime::now(),
            SystemTime::now(),
        ));
        assert_eq!(next(&q, 10), [1, 2, 3]);
        assert_eq!(q.fail(3, true, &UNHANDLED), AfterFailure::Split(2, 1));
        assert_eq!(next(&q, 10), [1, 2]);
        q.succeed(2);
        assert_eq!(next(&q, 10), [3]);
        assert_eq!(q.fail(1, true, &UNHANDLED), AfterFailure::Retry);
        assert_eq!(next(&q, 10), [3]);
        q.succeed(1);
        assert_eq!(
            next(&q, 10),
            [4, 5],
            "then the second half of the first split"
        );
        q.succeed(2);
        assert!(!q.is_retrying());
        assert_eq!(next(&q, 10), [6]);
        // Splitting does not count as a retry; the single record's failure does.
        assert!(q.batch(1).all(|e| e.failures == 0));
    }

    #[test]
    fn without_bisection_the_same_batch_goes_again_and_counts() {
        let mut q = queue(3);
        q.sent(3);
        assert_eq!(q.fail(3, false, &UNHANDLED), AfterFailure::Retry);
        assert_eq!(next(&q, 10), [1, 2, 3]);
        assert!(q.batch(3).all(|e| e.failures == 1 && e.invocations == 1));
    }

    #[test]
    fn a_partial_failure_checkpoints_at_the_first_reported_record() {
        let mut q = queue(5);
        q.sent(5);
        let done = q.fail_partially(2, &[4, 2], &UNHANDLED);
        assert_eq!(done.len(), 2);
        assert_eq!(next(&q, 10), [3, 4, 5]);
        let failures: Vec<u32> = q.batch(3).map(|e| e.failures).collect();
        assert_eq!(failures, [1, 0, 1]);
        assert!(q.is_retrying());
    }

    #[test]
    fn exhausted_records_leave_and_the_rest_goes_on() {
        let limits = Limits {
            max_retries: Some(1),
            max_age: None,
        };
        let now = SystemTime::now();
        let mut q = queue(3);
        for _ in 0..2 {
            assert_eq!(q.take_expired(&limits, now).map(|(c, _)| c), None);
            q.sent(1);
            q.fail_partially(0, &[0], &UNHANDLED);
        }
        // Failed twice: more than one retry.
        let (condition, gone) = q.take_expired(&limits, now).unwrap();
        assert_eq!(condition, Condition::RetryAttemptsExhausted);
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].invocations, 2);
        assert_eq!(next(&q, 10), [2, 3]);
    }

    #[test]
    fn an_exhausted_record_inside_the_batch_ends_it() {
        let limits = Limits {
            max_retries: Some(0),
            max_age: None,
        };
        let mut q = queue(4);
        q.fail_partially(0, &[2], &UNHANDLED);
        assert_eq!(
            seqs(&q, q.next_batch(10, usize::MAX, &limits, SystemTime::now())),
            [1, 2]
        );
    }

    #[test]
    fn old_records_expire_by_age() {
        let limits = Limits {
            max_retries: None,
            max_age: Some(Duration::from_secs(60)),
        };
        let mut q = queue(2);
        let later = SystemTime::now() + Duration::from_secs(61);
        let (condition, gone) = q.take_expired(&limits, later).unwrap();
        assert_eq!(condition, Condition::RecordAgeExceeded);
        assert_eq!(gone.len(), 2);
        assert!(q.is_empty());
    }

    #[test]
    fn leaving_records_close_a_split_half() {
        let limits = Limits {
            max_retries: Some(0),
            max_age: None,
        };
        let mut q = queue(4);
        assert_eq!(q.fail(4, true, &UNHANDLED), AfterFailure::Split(2, 2));
        assert_eq!(q.fail(2, true, &UNHANDLED), AfterFailure::Split(1, 1));
        assert_eq!(q.fail(1, true, &UNHANDLED), AfterFailure::Retry);
        let (_, gone) = q.take_expired(&limits, SystemTime::now()).unwrap();
        assert_eq!(gone.len(), 1);
        assert_eq!(next(&q, 10), [2]);
        q.succeed(1);
        assert_eq!(next(&q, 10), [3, 4]);
    }
}
