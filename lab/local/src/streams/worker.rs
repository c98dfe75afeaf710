//! One mapping's processing of one shard, in order, one batch in flight: read, filter, batch,
//! invoke, then complete, retry, bisect or give up on records by the mapping's settings.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::Value;

use super::{
    event::{self, Record},
    mapping::Mapping,
    queue::{AfterFailure, Failure, Queue},
    response::{self, Outcome},
    shard::ShardReader,
};
use crate::lambda::runtime_api::MAX_EVENT_BYTES;

/// Room for `{"Records":[]}` around the records.
const MAX_BATCH_BYTES: usize = MAX_EVENT_BYTES - 64;
/// After a failed GetRecords.
const READ_ERROR_PAUSE: Duration = Duration::from_secs(1);

/// Runs until the shard is closed and done with, or the stack shuts down.
pub async fn run(mapping: Arc<Mapping>, mut reader: ShardReader) {
    let shard = reader.shard_id().to_owned();
    let batch_size = mapping.settings.batch_size.max(1) as usize;
    let window = Duration::from_secs(mapping.settings.maximum_batching_window_seconds.into());
    let mut queue = Queue::default();
    // The tumbling window the last answer was in, and the state it gave.
    let mut tumbling = None;
    let mut backoff = Backoff::new(mapping.timing.backoff_first, mapping.timing.backoff_max);
    let mut next_read = Instant::now();
    let mut retry_at = Instant::now();
    // When the batch being gathered started waiting: the window counts from there.
    let mut window_start: Option<Instant> = None;

    loop {
        while let Some((condition, entries)) =
            queue.take_expired(&mapping.limits, mapping.clock.now())
        {
            mapping.discard(&shard, condition, &entries);
            mapping.set_pending(&shard, queue.len());
        }

        let now = Instant::now();
        let n = queue.next_batch(
            batch_size,
            MAX_BATCH_BYTES,
            &mapping.limits,
            mapping.clock.now(),
        );
        // Send a full batch, a retry, a half of a bisected batch or a closed shard's last records
        // at once (once the backoff allows); wait for the window to fill anything else.
        let send_at = (!queue.is_empty()).then(|| {
            let full = n >= batch_size || n < queue.len();
            if full || queue.is_retrying() || reader.ended() {
                retry_at
            } else {
                retry_at.max(window_start.map_or(now, |t| t + window))
            }
        });
        if send_at.is_some_and(|t| now >= t) {
            match send(&mapping, &shard, &mut queue, n, &mut tumbling).await {
                Sent::Done => {
                    backoff.reset();
                    retry_at = Instant::now();
                }
                Sent::Retry => retry_at = Instant::now() + backoff.next(),
                Sent::Stop => return,
            }
            mapping.set_pending(&shard, queue.len());
            // The next window begins when the invocation ends; new records may be waiting.
            window_start = (!queue.is_empty()).then(Instant::now);
            next_read = Instant::now();
            continue;
        }

        let may_read = !reader.ended() && queue.len() < batch_size;
        if may_read && now >= next_read {
            let started = Instant::now();
            match reader.read().await {
                Ok(records) => {
                    let mut filtered_out = 0;
                    for r in &records {
                        match Record::from_stream(r, &mapping.stream_arn, &mapping.clock) {
                            Ok(record) if mapping.filters.matches(&record.json) => {
                                queue.push(record)
                            }
                            Ok(_) => filtered_out += 1,
                            Err(e) => mapping.error(format!("{shard}: a record is skipped: {e}")),
                        }
                    }
                    if !queue.is_empty() && window_start.is_none() {
                        window_start = Some(Instant::now());
                    }
                    let caught_up = records.is_empty() && queue.is_empty();
                    mapping.update(|s| {
                        s.filtered_out += filtered_out;
                        let state = s.shards.entry(shard.clone()).or_default();
                        state.pending = queue.len();
                        state.caught_up_at = caught_up.then_some(started);
                    });
                    // Keep reading while records come; when none, poll again a bit later.
                    next_read = if records.is_empty() {
                        started + mapping.timing.poll_interval
                    } else {
                        Instant::now()
                    };
                }
                Err(e) => {
                    mapping.error(e);
                    next_read = Instant::now() + READ_ERROR_PAUSE;
                }
            }
            continue;
        }

        if reader.ended() && queue.is_empty() {
            mapping.update(|s| {
                let state = s.shards.entry(shard.clone()).or_default();
                state.finished = true;
                state.pending = 0;
            });
            // Its children may start now.
            mapping.wake.notify_one();
            return;
        }

        let wake_at = [send_at, may_read.then_some(next_read)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(now + mapping.timing.poll_interval);
        tokio::time::sleep_until(wake_at.into()).await;
    }
}

enum Sent {
    /// The batch is done with (it succeeded, or what remains of it is not to be retried).
    Done,
    /// Some of it goes again, after the backoff.
    Retry,
    Stop,
}

/// Invokes the function with the first `n` records and applies the outcome to the queue.
/// `window`: the tumbling window of the last answer and its state (a mapping with one only).
async fn send(
    mapping: &Mapping,
    shard: &str,
    queue: &mut Queue,
    n: usize,
    window: &mut Option<(event::Window, Value)>,
) -> Sent {
    let batch: Vec<_> = queue.batch(n).collect();
    let is_retry = batch.iter().any(|e| e.invocations > 0);
    let sequence_numbers: Vec<String> = batch
        .iter()
        .map(|e| e.record.sequence_number.clone())
        .collect();
    let records = batch.iter().map(|e| &e.record);
    let this_window = mapping
        .settings
        .tumbling_window_seconds
        .zip(batch.first())
        .map(|(seconds, e)| event::Window::of(e.record.created, seconds.into()));
    let event = match &this_window {
        None => event::event(records),
        Some(w) => {
            let empty = Value::Object(Default::default());
            let state = match window {
                Some((last, state)) if last == w => state.clone(),
                _ => empty,
            };
            event::windowed_event(records, shard, &mapping.stream_arn, w, &state)
        }
    };

    mapping.update(|s| s.shards.entry(shard.to_owned()).or_default().in_flight = true);
    let result = mapping.stack.invoke(&mapping.function, &event).await;
    // A windowed mapping takes an answer without a state object for a failed invocation.
    let result = match (result, this_window) {
        (Ok(answer), Some(w)) => match answer.get("state") {
            Some(state @ Value::Object(_)) => {
                *window = Some((w, state.clone()));
                Ok(answer)
            }
            _ => Err(crate::lambda::InvokeError::Function {
                error_type: "InvalidWindowResponse".into(),
                error_message: "a tumbling window's answer has no state object".into(),
            }),
        },
        (result, _) => result,
    };
    let report = mapping.settings.report_batch_item_failures;
    let outcome = response::outcome(result, report, &sequence_numbers);
    let invoked = !matches!(outcome, Outcome::NotInvoked(_) | Outcome::ShuttingDown);
    mapping.update(|s| {
        s.shards.entry(shard.to_owned()).or_default().in_flight = false;
        if invoked {
            s.invocations += 1;
            s.delivered += n as u64;
            s.retries += u64::from(is_retry);
        }
    });
    if invoked {
        queue.sent(n);
    }

    let label = format!(
        "stream {}: {n} record{}",
        mapping.name,
        if n == 1 { "" } else { "s" }
    );
    match outcome {
        Outcome::Success => {
            queue.succeed(n);
            mapping.update(|s| s.succeeded += n as u64);
            eprintln!("{label} -> ok");
            Sent::Done
        }
        Outcome::Partial { checkpoint, failed } => {
            let answered = Failure {
                status_code: 200,
                function_error: None,
            };
            let from = &sequence_numbers[checkpoint];
            queue.fail_partially(checkpoint, &failed, &answered);
            mapping.update(|s| s.succeeded += checkpoint as u64);
            eprintln!(
                "{label} -> ok ({} failed: retrying from {from})",
                failed.len()
            );
            Sent::Retry
        }
        Outcome::Failed { reason, failure } => {
            let next =
                match queue.fail(n, mapping.settings.bisect_batch_on_function_error, &failure) {
                    AfterFailure::Split(a, b) => format!("bisecting: {a} + {b}"),
                    AfterFailure::Retry => "retrying".to_owned(),
                };
            mapping.note_error(&reason);
            eprintln!("{label} -> error: {reason} ({next})");
            Sent::Retry
        }
        Outcome::NotInvoked(reason) => {
            mapping.note_error(&reason);
            eprintln!("{label} -> not invoked: {reason} (retrying)");
            Sent::Retry
        }
        Outcome::ShuttingDown => Sent::Stop,
    }
}

/// Doubling waits between retries, up to a ceiling.
struct Backoff {
    first: Duration,
    max: Duration,
    current: Option<Duration>,
}

impl Backoff {
    fn new(first: Duration, max: Duration) -> Backoff {
        Backoff {
            first,
            max,
            current: None,
        }
    }

    fn next(&mut self) -> Duration {
        let next = self.current.map_or(self.first, |d| (d * 2).min(self.max));
        self.current = Some(next);
        next
    }

    fn reset(&mut self) {
        self.current = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_ceiling() {
        let mut b = Backoff::new(Duration::from_millis(100), Duration::from_millis(350));
        let waits: Vec<u128> = (0..4).map(|_| b.next().as_millis()).collect();
        assert_eq!(waits, [100, 200, 350, 350]);
        b.reset();
        assert_eq!(b.next(), Duration::from_millis(100));
    }
}
