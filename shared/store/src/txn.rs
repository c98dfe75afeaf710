//! Transactions, built part by part: each part knows the IAM action it needs (the meter records
//! them, the IAM test checks them against the template) and its position, so a cancellation
//! reason is read by name, not by a hand-counted index. Sent with consumed capacity recorded, and
//! retried while cancelled only by conflicts with other transactions (real DynamoDB raises
//! TransactionConflict under contention; DynamoDB Local never does, so tests use
//! aws-smithy-mocks).
//!
//! Every transaction carries a `ClientRequestToken`, one per logical operation: random, or
//! derived from the caller's own idempotency key ([`Transaction::idempotent_on`]). An attempt
//! whose answer was lost (a timeout, a 5xx, `TransactionInProgress`) is sent again with the same
//! token, by the SDK's retries and by [`Transaction::send`]'s, so DynamoDB applies it at most
//! once and answers the retry with success instead of the failed conditions of a second
//! application. A cancelled attempt wrote nothing: the next one gets a token of its own.

use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Put, ReturnConsumedCapacity, TransactWriteItem, Update as SdkUpdate,
};
use keys::PrimaryKey;
use model::{Entity, Item, key_item};
use sha2::{Digest, Sha256};

use crate::{
    Condition, StoreError, Table, Update,
    error::{build_error, from_sdk},
    expr::{Placeholders, with_expressions},
    retry,
};

/// How many times a transaction cancelled only by conflicts is tried in all.
pub const TRANSACTION_ATTEMPTS: u32 = 6;

/// How many times a transaction whose outcome stays unknown is sent, with the same token. Each
/// send is already the SDK's three attempts (up to about 3 s of backoff while DynamoDB is away),
/// so a second one resolves an answer lost once, and a third would only outlast the function's
/// timeout: a 503 `unavailable` beats API Gateway's 500 for a function that timed out.
const UNKNOWN_OUTCOME_SENDS: u32 = 2;

/// Characters of a token's base: with `.` and the cancelled attempts' count it stays within
/// DynamoDB's 36.
const TOKEN_BASE_CHARS: usize = 32;

/// A part of a transaction: its position, to read its cancellation reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part(usize);

impl Part {
    /// Whether this part's condition is what cancelled the transaction.
    pub fn failed(self, e: &StoreError) -> bool {
        e.cancellation_reason(self.0) == Some("ConditionalCheckFailed")
    }
}

#[must_use]
pub struct Transaction<'t> {
    table: &'t Table,
    items: Vec<TransactWriteItem>,
    actions: Vec<&'static str>,
    /// Each part's item key, to read it around the transaction (a [`Table::recording_touched`]'s
    /// only: none otherwise), and its table when it is not the transaction's own.
    keys: Vec<(Option<String>, Item)>,
    writes: usize,
    /// The logical operation's token; each attempt sends `<base>.<cancelled attempts>`.
    token_base: String,
}

impl<'t> Transaction<'t> {
    pub(crate) fn new(table: &'t Table) -> Self {
        Transaction {
            table,
            items: Vec::new(),
            actions: Vec::new(),
            keys: Vec::new(),
            writes: 0,
            token_base: keys::SortableId::new().to_string(),
        }
    }

    /// Derives the transaction's `ClientRequestToken` from `parts` (an idempotency key and what
    /// makes this operation one of its own) instead of a random one: the same parts, the same
    /// token. Parts naming a different write must differ, or DynamoDB refuses the second within
    /// its 10-minute window (`IdempotentParameterMismatch`).
    pub fn idempotent_on(&mut self, parts: &[&str]) {
        let mut hash = Sha256::new();
        for part in parts {
            hash.update((part.len() as u64).to_be_bytes());
            hash.update(part.as_bytes());
        }
        let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        self.token_base = hex[..TOKEN_BASE_CHARS].to_owned();
    }

    /// The token attempt `cancelled + 1` carries: the base, and how many attempts before it were
    /// cancelled (each of those wrote nothing, so its successor is a new request).
    fn token(&self, cancelled: u32) -> String {
        format!("{}.{cancelled}", self.token_base)
    }

    fn push(
        &mut self,
        item: TransactWriteItem,
        keys: Vec<Item>,
        action: &'static str,
        writes: bool,
    ) -> Part {
        self.push_in(item, None, keys, action, writes)
    }

    /// [`Transaction::push`] of a part on table `table` (`None`: the transaction's own).
    fn push_in(
        &mut self,
        item: TransactWriteItem,
        table: Option<&str>,
        keys: Vec<Item>,
        action: &'static str,
        writes: bool,
    ) -> Part {
        self.items.push(item);
        self.keys
            .extend(keys.into_iter().map(|k| (table.map(str::to_owned), k)));
        self.actions.push(action);
        self.writes += usize::from(writes);
        Part(self.items.len() - 1)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// A ConditionCheck on an item the transaction does not write.
    pub fn check(&mut self, key: &PrimaryKey, condition: Condition) -> Result<Part, StoreError> {
        let table = self.table;
        self.check_in(table, key, condition)
    }

    /// A ConditionCheck on an item of `table`, which may be another context's: a transaction
    /// spans tables of one account and Region. Its item is read around the transaction
    /// ([`Table::recording_touched`]) in the table it is in: billed as a check of it.
    pub fn check_in(
        &mut self,
        table: &Table,
        key: &PrimaryKey,
        condition: Condition,
    ) -> Result<Part, StoreError> {
        let mut p = Placeholders::default();
        let expression = condition.render(&mut p);
        let keys = self.table.keys_to_image(|| vec![key_item(key)]);
        let other = (table.name() != self.table.name()).then(|| table.name().to_owned());
        let check = with_expressions!(
            ConditionCheck::builder()
                .table_name(table.name())
                .set_key(Some(key_item(key))),
            Some(expression),
            p
        )
        .build()
        .map_err(build_error)?;
        Ok(self.push_in(
            TransactWriteItem::builder().condition_check(check).build(),
            other.as_deref(),
            keys,
            "dynamodb:ConditionCheckItem",
            false,
        ))
    }

    /// Puts an entity's item.
    pub fn put<E: Entity>(
        &mut self,
        entity: &E,
        condition: Option<Condition>,
    ) -> Result<Part, StoreError> {
        self.put_item(model::to_item(entity)?, condition)
    }

    /// Puts an item made elsewhere in the model (an idempotency record, a product as written).
    pub fn put_item(
        &mut self,
        item: Item,
        condition: Option<Condition>,
    ) -> Result<Part, StoreError> {
        let keys = self.table.keys_to_image(|| vec![crate::key_of(&item)]);
        let mut p = Placeholders::default();
        let condition = condition.map(|c| c.render(&mut p));
        let put = with_expressions!(
            Put::builder()
                .table_name(self.table.name())
                .set_item(Some(item)),
            condition,
            p
        )
        .build()
        .map_err(build_error)?;
        Ok(self.push(
            TransactWriteItem::builder().put(put).build(),
            keys,
            "dynamodb:PutItem",
            true,
        ))
    }

    pub fn delete(
        &mut self,
        key: &PrimaryKey,
        condition: Option<Condition>,
    ) -> Result<Part, StoreError> {
        let mut p = Placeholders::default();
        let condition = condition.map(|c| c.render(&mut p));
        let delete = with_expressions!(
            Delete::builder()
                .table_name(self.table.name())
                .set_key(Some(key_item(key))),
            condition,
            p
        )
        .build()
        .map_err(build_error)?;
        Ok(self.push(
            TransactWriteItem::builder().delete(delete).build(),
            self.table.keys_to_image(|| vec![key_item(key)]),
            "dynamodb:DeleteItem",
            true,
        ))
    }

    pub fn update(
        &mut self,
        key: &PrimaryKey,
        update: &Update,
        condition: Option<Condition>,
    ) -> Result<Part, StoreError> {
        let mut p = Placeholders::default();
        let expression = update.render(&mut p);
        let condition = condition.map(|c| c.render(&mut p));
        let update = with_expressions!(
            SdkUpdate::builder()
                .table_name(self.table.name())
                .set_key(Some(key_item(key)))
                .update_expression(expression),
            condition,
            p
        )
        .build()
        .map_err(build_error)?;
        Ok(self.push(
            TransactWriteItem::builder().update(update).build(),
            self.table.keys_to_image(|| vec![key_item(key)]),
            "dynamodb:UpdateItem",
            true,
        ))
    }

    /// Sends the transaction, retrying it while it is cancelled only by conflicts or throttles,
    /// and, with the same token, once when its outcome is unknown (the answer was lost); still
    /// contended after every attempt, it is [`StoreError::Throttled`] (nothing written); still
    /// unknown, [`StoreError::Unavailable`] (it may have been written).
    pub async fn send(self) -> Result<(), StoreError> {
        let mut parts = self.actions.clone();
        parts.sort_unstable();
        parts.dedup();
        let mut attempt = 0;
        let mut cancelled = 0;
        let mut unknown_sends = 0;
        loop {
            attempt += 1;
            let keys: Vec<_> = (self.keys.iter())
                .map(|(table, key)| (table.as_deref(), key))
                .collect();
            let before = self.table.images_in(&keys).await;
            let result = crate::deadline::bounded(
                self.table
                    .client()
                    .transact_write_items()
                    .set_transact_items(Some(self.items.clone()))
                    .client_request_token(self.token(cancelled))
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send(),
            )
            .await;
            let (err, unknown) = match result {
                Ok(out) => {
                    let after = match before {
                        Some(_) => self.table.images_in(&keys).await,
                        None => None,
                    };
                    let mut touched = crate::touched_from(before, after, true);
                    for (t, action) in touched.iter_mut().zip(&self.actions) {
                        t.checked = *action == "dynamodb:ConditionCheckItem";
                    }
                    // Sent again after a lost answer, and every item already as it leaves them:
                    // DynamoDB answered a replay of the first attempt (billed as reads).
                    let replayed = unknown_sends > 0
                        && !touched.is_empty()
                        && touched.iter().all(|t| t.before == t.after);
                    self.table.meter().record(
                        crate::Request {
                            items: self.writes,
                            parts,
                            touched,
                            replayed,
                            ..crate::Request::new("TransactWriteItems")
                        },
                        out.consumed_capacity.as_deref().unwrap_or_default(),
                    );
                    return Ok(());
                }
                Err(e) => {
                    let unknown = outcome_unknown(&e);
                    (cancellation(e), unknown)
                }
            };
            self.table.meter().record(
                crate::Request {
                    parts: parts.clone(),
                    ..crate::Request::new("TransactWriteItems")
                },
                &[],
            );
            if !unknown && !err.is_retryable_cancellation() {
                return Err(err);
            }
            // Cancelled, nothing was written: the next attempt is a request of its own. Unknown,
            // it may have been: the same token makes DynamoDB apply it at most once.
            cancelled += u32::from(!unknown);
            unknown_sends += u32::from(unknown);
            if unknown && unknown_sends >= UNKNOWN_OUTCOME_SENDS {
                return Err(err);
            }
            if attempt >= TRANSACTION_ATTEMPTS {
                if unknown {
                    return Err(err);
                }
                return Err(StoreError::Throttled(format!(
                    "transaction still contended after {attempt} attempts: {err}"
                )));
            }
            retry::sleep(attempt).await;
        }
    }
}

type SdkTransactError = aws_sdk_dynamodb::error::SdkError<
    aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError,
    aws_sdk_dynamodb::config::http::HttpResponse,
>;

/// Whether the attempt may have been applied although it did not answer success: no answer
/// (a timeout, a connection lost), a server error, or the same token still in progress.
fn outcome_unknown(e: &SdkTransactError) -> bool {
    use aws_sdk_dynamodb::{
        error::SdkError, operation::transact_write_items::TransactWriteItemsError as E,
    };
    match e {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            true
        }
        SdkError::ServiceError(s) => {
            matches!(
                s.err(),
                E::InternalServerError(_) | E::TransactionInProgressException(_)
            ) || s.raw().status().is_server_error()
        }
        _ => false,
    }
}

/// A `TransactWriteItems` error as a [`StoreError`]: a cancellation with each action's reason
/// ([`StoreError::TransactionCanceled`]), anything else as every other call's error. For a
/// transaction sent through the client itself (a tool's, of items it has no typed key for).
pub fn cancellation(
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
