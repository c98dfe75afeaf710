//! The invocation's deadline, which every DynamoDB call of a function keeps.
//!
//! Lambda stops an invocation at its deadline, and API Gateway answers the client a 500 with no
//! `Retry-After`: a DynamoDB that accepts connections and never answers would hold every request
//! that long. So a function's `serve` runs each invocation [`within`] a deadline of its own,
//! [`ahead_of`] Lambda's, and every call the store sends (and every call a function sends
//! through the client itself) is [`bounded`] by it: past it, the call ends as a timeout, which
//! the store reports as `Unavailable` (a 503 with `Retry-After`, or a stream record retried), and
//! the function still has the rest of its time to answer.
//!
//! Each attempt has its own bound too ([`attempt_timeouts`], in the functions' client): a
//! connection that went silent costs one attempt, and the SDK's next attempt opens another.
//! Outside [`within`] (tools, tests that call handlers in process) calls are unbounded.

use std::{
    future::Future,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use aws_sdk_dynamodb::{config::timeout::TimeoutConfig, error::SdkError};
pub use tokio::time::Instant;

tokio::task_local! {
    static DEADLINE: Instant;
}

/// The share of an invocation's time its DynamoDB calls may take: the rest is kept for answering
/// (rendering, the metrics document, a stream batch's failure report) before Lambda's own
/// timeout. With the template's 10 s, a request whose DynamoDB does not answer is answered 503 at
/// 8 s; a stream batch (60 s) reports its failures at 48 s.
pub const SHARE_PERCENT: u32 = 80;

/// One attempt's bounds, as the SDK's configuration: 1 s to connect (a TCP and TLS handshake
/// within a region takes milliseconds) and 3 s for an answer (DynamoDB answers in milliseconds;
/// a transaction of 100 items or a 1 MB page in tens to hundreds; DynamoDB Local on a loaded
/// machine in up to about a second). The SDK's standard retry (three attempts) then stops at the
/// deadline at the latest.
pub fn attempt_timeouts() -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .operation_attempt_timeout(Duration::from_secs(3))
        .build()
}

/// The SDK retries an attempt that timed out, as it retries any transient error; for a write
/// the timed-out attempt may have been applied (DynamoDB answers slowly, the write is done), and
/// the retry would apply it again: an inventory's `ADD` counted twice, a created item answered
/// 409 by its own retry. A single-item write ([`crate::Table`]'s put, update and delete) is sent
/// with this classifier: an attempt that timed out is not attempted again, and the call ends
/// `Unavailable` (a 503 the client retries as `docs/errors.md` says, with its `Idempotency-Key`
/// where the write takes one). A transaction carries its own token: DynamoDB answers its retry
/// as a replay, so it keeps the SDK's retries; so do reads, throttles and refused connections.
#[derive(Debug, Default)]
pub struct NoRetryOfUnansweredWrite;

impl aws_sdk_dynamodb::config::retry::ClassifyRetry for NoRetryOfUnansweredWrite {
    fn classify_retry(
        &self,
        ctx: &aws_sdk_dynamodb::config::interceptors::InterceptorContext,
    ) -> aws_sdk_dynamodb::config::retry::RetryAction {
        use aws_sdk_dynamodb::config::retry::RetryAction;
        match ctx.output_or_error() {
            Some(Err(e)) if e.is_timeout_error() => RetryAction::RetryForbidden,
            _ => RetryAction::NoActionIndicated,
        }
    }

    fn name(&self) -> &'static str {
        "NoRetryOfUnansweredWrite"
    }
}

/// The configuration a single-item write is sent with ([`NoRetryOfUnansweredWrite`]).
pub fn single_write_config() -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::config::Builder::default().retry_classifier(NoRetryOfUnansweredWrite)
}

/// The deadline of an invocation Lambda ends at `lambda_deadline_ms` (milliseconds since the
/// epoch, as the runtime API gives it): [`SHARE_PERCENT`] of the time left from now.
pub fn ahead_of(lambda_deadline_ms: u64) -> Instant {
    share_of(lambda_deadline_ms, SHARE_PERCENT)
}

/// `percent` of the time left from now to `lambda_deadline_ms`, as a deadline.
pub fn share_of(lambda_deadline_ms: u64, percent: u32) -> Instant {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let left = Duration::from_millis(lambda_deadline_ms.saturating_sub(now_ms));
    Instant::now() + left * percent.min(100) / 100
}

/// Runs `work` with `deadline` as the bound of every call it makes.
pub async fn within<F: Future>(deadline: Instant, work: F) -> F::Output {
    DEADLINE.scope(deadline, work).await
}

/// Runs `work` [`within`] `deadline`, and stops it there: `None` when it was still busy (its
/// calls have ended by then; what it did between them has not).
pub async fn finished_by<F: Future>(deadline: Instant, work: F) -> Option<F::Output> {
    within(deadline, tokio::time::timeout_at(deadline, work))
        .await
        .ok()
}

/// Why a call ended at the deadline.
#[derive(Debug, thiserror::Error)]
#[error("no answer before the invocation's deadline")]
pub struct DeadlinePassed;

/// `call` (a request's `send()`), ended as a timeout when the current deadline passes first,
/// and never started once it has passed.
pub async fn bounded<T, E, R>(
    call: impl Future<Output = Result<T, SdkError<E, R>>>,
) -> Result<T, SdkError<E, R>> {
    match DEADLINE.try_with(|d| *d) {
        Err(_) => call.await,
        // Past it, the call is not started at all: a request sent now could still be applied
        // after the function answered that it was not.
        Ok(deadline) if deadline <= Instant::now() => Err(SdkError::timeout_error(DeadlinePassed)),
        Ok(deadline) => tokio::time::timeout_at(deadline, call)
            .await
            .unwrap_or_else(|_| Err(SdkError::timeout_error(DeadlinePassed))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_call_that_never_answers_ends_at_the_deadline() {
        let never = std::future::pending::<Result<(), SdkError<(), ()>>>();
        let deadline = Instant::now() + Duration::from_millis(50);
        let e = within(deadline, bounded(never)).await.unwrap_err();
        assert!(matches!(e, SdkError::TimeoutError(_)), "{e:?}");
        assert!(Instant::now() >= deadline);
    }

    #[tokio::test]
    async fn outside_a_deadline_a_call_is_unbounded_and_inside_it_answers_in_time() {
        let answered = async { Ok::<_, SdkError<(), ()>>(7) };
        assert_eq!(bounded(answered).await.unwrap(), 7);
        let deadline = Instant::now() + Duration::from_secs(60);
        let answered = async { Ok::<_, SdkError<(), ()>>(8) };
        assert_eq!(within(deadline, bounded(answered)).await.unwrap(), 8);
    }

    #[test]
    fn the_deadline_keeps_a_fifth_of_the_time_left_for_answering() {
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let ahead = ahead_of(now_ms + 10_000).saturating_duration_since(Instant::now());
        assert!(
            ahead <= Duration::from_millis(8_000) && ahead > Duration::from_millis(7_900),
            "{ahead:?}"
        );
        // A deadline already past: none left.
        assert_eq!(
            ahead_of(now_ms - 1).saturating_duration_since(Instant::now()),
            Duration::ZERO
        );
    }
}
