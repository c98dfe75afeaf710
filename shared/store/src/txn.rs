//! Transactions: sent with consumed capacity recorded, and retried while they are cancelled only
//! by conflicts with other transactions (real DynamoDB raises TransactionConflict under
//! contention; DynamoDB Local never does, so the tests use aws-smithy-mocks).

use std::time::Duration;

use aws_sdk_dynamodb::types::{Put, ReturnConsumedCapacity, TransactWriteItem};

use crate::{StoreError, Table, error::from_sdk, item::Item};

/// How many times a transaction cancelled only by conflicts is tried in all.
pub(crate) const TRANSACTION_ATTEMPTS: u32 = 6;

/// A conditional Put in a transaction.
pub(crate) fn put(
    table: &Table,
    item: Item,
    condition: &str,
) -> Result<TransactWriteItem, StoreError> {
    Ok(TransactWriteItem::builder()
        .put(
            Put::builder()
                .table_name(table.name())
                .set_item(Some(item))
                .condition_expression(condition)
                .build()
                .map_err(|e| StoreError::Corrupt(e.to_string()))?,
        )
        .build())
}

/// Sends a transaction, retrying it while it is cancelled only by conflicts or throttles.
pub(crate) async fn transact(
    table: &Table,
    actions: Vec<TransactWriteItem>,
    written: usize,
) -> Result<(), StoreError> {
    let parts = iam_actions(&actions);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let result = table
            .client()
            .transact_write_items()
            .set_transact_items(Some(actions.clone()))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        let err = match result {
            Ok(out) => {
                table.meter().record_with_actions(
                    "TransactWriteItems",
                    out.consumed_capacity.as_deref().unwrap_or_default(),
                    written,
                    parts,
                );
                return Ok(());
            }
            Err(e) => cancellation(e),
        };
        table
            .meter()
            .record_with_actions("TransactWriteItems", &[], 0, parts.clone());
        if !err.is_retryable_cancellation() {
            return Err(err);
        }
        if attempt >= TRANSACTION_ATTEMPTS {
            // Still contended after every retry: the client should come back later (503), and
            // nothing was written.
            return Err(StoreError::Throttled(format!(
                "transaction still contended after {attempt} attempts: {err}"
            )));
        }
        tokio::time::sleep(backoff(attempt)).await;
    }
}

/// The IAM action each kind of part of a transaction needs, once each, in a stable order.
fn iam_actions(actions: &[TransactWriteItem]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = actions
        .iter()
        .map(|a| {
            if a.put().is_some() {
                "dynamodb:PutItem"
            } else if a.delete().is_some() {
                "dynamodb:DeleteItem"
            } else if a.update().is_some() {
                "dynamodb:UpdateItem"
            } else {
                "dynamodb:ConditionCheckItem"
            }
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Exponential backoff with full jitter: up to 10ms, 20ms, 40ms, ...
fn backoff(attempt: u32) -> Duration {
    let cap = 10u64 << attempt.min(6);
    let jitter = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0),
    ) % cap.max(1);
    Duration::from_millis(jitter + 1)
}

fn cancellation(
    e: aws_sdk_dynamodb::error::SdkError<
        aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError,
        aws_sdk_dynamodb::config::http::HttpResponse,
    >,
) -> StoreError {
    match e.as_service_error() {
        Some(
            aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c),
        ) => StoreError::TransactionCanceled(
            c.cancellation_reasons()
                .iter()
                .map(|r| r.code().unwrap_or("None").to_owned())
                .collect(),
        ),
        _ => from_sdk(e),
    }
}

/// Test support: a TransactionCanceledException with these reason codes, for aws-smithy-mocks.
#[cfg(test)]
pub(crate) fn cancelled(
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
