use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use thiserror::Error;

/// What can go wrong talking to the table, in the terms a handler maps to an HTTP status.
#[derive(Debug, Error)]
pub enum StoreError {
    /// A conditional write found the item in a state it did not expect.
    #[error("condition failed")]
    ConditionFailed,
    /// A transaction was cancelled; one reason code per action, in order ("None" where that action
    /// was fine), as DynamoDB reports them.
    #[error("transaction cancelled: {0:?}")]
    TransactionCanceled(Vec<String>),
    /// DynamoDB asked us to slow down and the SDK's retries did not get through.
    #[error("throttled: {0}")]
    Throttled(String),
    /// An item read back is not what this code writes (a bug or a hand-edited item).
    #[error("corrupt item: {0}")]
    Corrupt(String),
    #[error("configuration: {0}")]
    Config(String),
    /// DynamoDB refused the request itself (`ValidationException`: an item past 400 KB, a value
    /// of the wrong type...): the same request is refused every time.
    #[error("refused by dynamodb: {0}")]
    Rejected(String),
    /// Anything else: a 5xx, a timeout, a connection that failed, a permission or a resource
    /// missing (until someone fixes the deployment).
    #[error("dynamodb: {0}")]
    Dynamo(String),
}

impl StoreError {
    /// True when every cancellation reason is a conflict with another transaction or a throttle:
    /// trying again is the right answer.
    pub fn is_retryable_cancellation(&self) -> bool {
        match self {
            StoreError::TransactionCanceled(reasons) => {
                reasons.iter().any(|r| r != "None")
                    && reasons.iter().all(|r| {
                        matches!(
                            r.as_str(),
                            "None"
                                | "TransactionConflict"
                                | "ThrottlingError"
                                | "ProvisionedThroughputExceeded"
                        )
                    })
            }
            _ => false,
        }
    }

    /// True when no retry of the same request can succeed: an item this code cannot read, a
    /// request it could not build, a request DynamoDB refuses (in a transaction too). A stream
    /// handler sends such a record to its failure destination instead of retrying it. Throttles,
    /// conflicts, 5xx and network errors are transient; so are a missing permission or table and
    /// a bad configuration, which a fix of the deployment heals (the mapping's bounds catch them
    /// if nobody does).
    pub fn is_permanent(&self) -> bool {
        match self {
            StoreError::Corrupt(_) | StoreError::Rejected(_) => true,
            StoreError::TransactionCanceled(reasons) => reasons
                .iter()
                .any(|r| REFUSED_IN_TRANSACTIONS.contains(&r.as_str())),
            StoreError::ConditionFailed
            | StoreError::Throttled(_)
            | StoreError::Config(_)
            | StoreError::Dynamo(_) => false,
        }
    }

    /// The cancellation reason of the action at `index`, if this is a cancelled transaction.
    pub fn cancellation_reason(&self, index: usize) -> Option<&str> {
        match self {
            StoreError::TransactionCanceled(reasons) => reasons.get(index).map(String::as_str),
            _ => None,
        }
    }
}

const THROTTLES: &[&str] = &[
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ThrottlingException",
    // A single-item write to an item a concurrent transaction holds: busy, like a throttle. The
    // store retries it first ([`crate::Table::put`] and the other single-item writes).
    TRANSACTION_CONFLICT,
];

/// Errors of a request DynamoDB will refuse however often it is sent.
const REFUSED: &[&str] = &[
    "ValidationException",
    "ItemCollectionSizeLimitExceededException",
    "SerializationException",
];

/// Cancellation reasons of a transaction action DynamoDB will refuse however often it is sent.
const REFUSED_IN_TRANSACTIONS: &[&str] = &["ValidationError", "ItemCollectionSizeLimitExceeded"];

/// DynamoDB's error code for a single-item write that met an item a transaction holds.
pub(crate) const TRANSACTION_CONFLICT: &str = "TransactionConflictException";

/// Maps any SDK error to a [`StoreError`], keeping the detail for the logs.
pub(crate) fn from_sdk<E, R>(err: SdkError<E, R>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug,
{
    let code = err.code().map(str::to_owned);
    match code.as_deref() {
        Some("ConditionalCheckFailedException") => StoreError::ConditionFailed,
        Some(c) if THROTTLES.contains(&c) => {
            telemetry::Metric::Throttles.add(1.0);
            StoreError::Throttled(DisplayErrorContext(&err).to_string())
        }
        Some(c) if REFUSED.contains(&c) => {
            StoreError::Rejected(DisplayErrorContext(&err).to_string())
        }
        _ => StoreError::Dynamo(DisplayErrorContext(&err).to_string()),
    }
}

impl From<model::ModelError> for StoreError {
    fn from(e: model::ModelError) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}

/// An SDK builder refused a request we built (a missing required field: a bug here).
pub(crate) fn build_error(e: aws_sdk_dynamodb::error::BuildError) -> StoreError {
    StoreError::Corrupt(format!("request not built: {e}"))
}

impl From<keys::KeyError> for StoreError {
    fn from(e: keys::KeyError) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}
