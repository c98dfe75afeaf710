//! What can go wrong talking to the table ([`StoreError`]), told apart the way callers act on it:
//! an answer (a failed condition), a moment's trouble that a retry heals (throttled, unavailable),
//! a deployment to fix, or a request no retry can make succeed ([`StoreError::is_permanent`]).

use aws_sdk_dynamodb::{
    error::{DisplayErrorContext, ProvideErrorMetadata, SdkError},
    types::{
        ThrottlingReason,
        error::{
            ProvisionedThroughputExceededException, RequestLimitExceeded, ThrottlingException,
        },
    },
};
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
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
    /// DynamoDB asked us to slow down and the SDK's retries did not get through (the detail names
    /// DynamoDB's throttling reasons), or a write stayed contended past the store's own retries.
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
    /// DynamoDB could not be reached or failed on its side, past the SDK's retries: a 5xx, a
    /// connection refused or reset, a request that timed out. The same request can succeed in a
    /// moment.
    #[error("dynamodb unavailable: {0}")]
    Unavailable(String),
    /// Anything else: a permission or a resource missing, a request the SDK could not build or
    /// send as configured (until someone fixes the deployment).
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
            | StoreError::Unavailable(_)
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

/// Maps any SDK error to a [`StoreError`], keeping the detail for the logs: what DynamoDB answered
/// by its code (a throttle, a refusal), then by who is at fault. A 5xx, a connection that failed,
/// an answer that never came or came cut are DynamoDB's or the network's, and pass
/// ([`StoreError::Unavailable`]); anything else DynamoDB refuses (a permission, a table missing)
/// and a request the SDK could not build or send as configured wait for a fix of the deployment
/// ([`StoreError::Dynamo`]).
pub(crate) fn from_sdk<E>(err: SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let detail = |err: &SdkError<E, HttpResponse>| DisplayErrorContext(err).to_string();
    match &err {
        SdkError::ServiceError(service) => match err.code() {
            Some("ConditionalCheckFailedException") => StoreError::ConditionFailed,
            Some(c) if THROTTLES.contains(&c) => throttled(&err),
            Some(c) if REFUSED.contains(&c) => StoreError::Rejected(detail(&err)),
            _ if service.raw().status().is_server_error() => StoreError::Unavailable(detail(&err)),
            _ => StoreError::Dynamo(detail(&err)),
        },
        SdkError::TimeoutError(_) | SdkError::ResponseError(_) => {
            StoreError::Unavailable(detail(&err))
        }
        SdkError::DispatchFailure(failure) if !failure.is_user() => {
            StoreError::Unavailable(detail(&err))
        }
        _ => StoreError::Dynamo(detail(&err)),
    }
}

/// A throttle, counted, with the reasons DynamoDB gave (`ThrottlingReasons`: which limit, on
/// the table or which index, reading or writing) in its detail and each counted by reason and
/// resource ([`telemetry::count_throttling_reason`]).
fn throttled<E>(err: &SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    telemetry::Metric::Throttles.add(1.0);
    let mut detail = DisplayErrorContext(err).to_string();
    let reasons = throttling_reasons(err);
    for (n, r) in reasons.iter().enumerate() {
        let (reason, resource) = (r.reason().unwrap_or("unknown"), r.resource().unwrap_or(""));
        telemetry::count_throttling_reason(reason, resource);
        detail.push_str(if n == 0 { "; reasons: " } else { ", " });
        detail.push_str(reason);
        detail.push_str(" on ");
        detail.push_str(resource);
    }
    StoreError::Throttled(detail)
}

/// The `ThrottlingReasons` of a throttling exception: each operation's error wraps the exception,
/// whose type says which of the three it is.
fn throttling_reasons<E>(err: &SdkError<E, HttpResponse>) -> &[ThrottlingReason]
where
    E: std::error::Error + 'static,
{
    let Some(exception) = err.as_service_error().and_then(|e| e.source()) else {
        return &[];
    };
    if let Some(e) = exception.downcast_ref::<ProvisionedThroughputExceededException>() {
        e.throttling_reasons()
    } else if let Some(e) = exception.downcast_ref::<ThrottlingException>() {
        e.throttling_reasons()
    } else if let Some(e) = exception.downcast_ref::<RequestLimitExceeded>() {
        e.throttling_reasons()
    } else {
        &[]
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

#[cfg(test)]
mod tests {
    //! Each kind of failure as the SDK meets it: DynamoDB's own answers (a throttle with its
    //! reasons, a 5xx, a missing permission) from the SDK's mocks, whose HTTP answers go through
    //! the SDK's real parsing; a refused connection and a request nobody answers through a real
    //! socket. DynamoDB Local produces none of them.
    use std::time::Duration;

    use aws_sdk_dynamodb::{
        Client,
        config::{Credentials, Region, retry::RetryConfig, timeout::TimeoutConfig},
    };
    use aws_smithy_mocks::{RuleMode, mock, mock_client};
    use aws_smithy_types::body::SdkBody;

    use super::*;
    use crate::Table;

    fn key() -> keys::PrimaryKey {
        keys::derived::daily_stats(
            keys::Date::parse_iso("2026-01-01").unwrap(),
            keys::Shard::new(0, 1).unwrap(),
        )
    }

    /// What a GetItem gets when DynamoDB answers `status` with `body` (awsJson 1.0, as DynamoDB
    /// sends it), tried once (the SDK's retries are its own; the last answer is what counts).
    async fn answered(status: u16, body: &'static str) -> StoreError {
        let rule = mock!(Client::get_item).then_http_response(move || {
            let mut response = aws_smithy_runtime_api::http::Response::new(
                status.try_into().unwrap(),
                SdkBody::from(body),
            );
            response
                .headers_mut()
                .insert("content-type", "application/x-amz-json-1.0");
            response
        });
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule], |c| c
                .retry_config(RetryConfig::disabled())),
            "t",
        );
        table.exists(&key()).await.unwrap_err()
    }

    const INDEX: &str = "arn:aws:dynamodb:eu-west-1:123456789012:table/t/index/GSI1";

    #[tokio::test]
    async fn a_throttle_names_dynamodbs_reasons_in_its_detail_and_its_metrics() {
        let e = answered(
            400,
            r#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "message":"Throughput exceeds the current capacity for one or more global secondary indexes.",
                "ThrottlingReasons":[
                  {"reason":"IndexWriteKeyRangeThroughputExceeded","resource":"arn:aws:dynamodb:eu-west-1:123456789012:table/t/index/GSI1"},
                  {"reason":"TableWriteKeyRangeThroughputExceeded","resource":"arn:aws:dynamodb:eu-west-1:123456789012:table/t"}]}"#,
        )
        .await;
        let StoreError::Throttled(detail) = &e else {
            panic!("{e:?}")
        };
        assert!(!e.is_permanent());
        assert!(
            detail.contains(&format!("IndexWriteKeyRangeThroughputExceeded on {INDEX}"))
                && detail.contains("TableWriteKeyRangeThroughputExceeded on arn:"),
            "{detail}"
        );
        // ThrottlingException spells the member `throttlingReasons`; the SDK reads both.
        let e = answered(
            400,
            r#"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException",
                "message":"Throughput exceeds the maximum on-demand throughput of the index.",
                "throttlingReasons":[{"reason":"IndexReadMaxOnDemandThroughputExceeded","resource":"arn:aws:dynamodb:eu-west-1:123456789012:table/t/index/GSI1"}]}"#,
        )
        .await;
        assert!(
            e.to_string().contains(&format!(
                "IndexReadMaxOnDemandThroughputExceeded on {INDEX}"
            )),
            "{e}"
        );

        // One metric per reason and resource. Other tests of this crate record other metrics
        // meanwhile, into the same process's invocation: only the reasons are this test's.
        let text = telemetry::Documents::new("ns", "f", "P")
            .take("r", 1_795_000_000_000)
            .unwrap();
        let reasons: Vec<(String, String, u64)> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|d| d.get("Reason").is_some())
            .map(|d| {
                (
                    d["Reason"].as_str().unwrap().to_owned(),
                    d["Resource"].as_str().unwrap().to_owned(),
                    d[telemetry::THROTTLING_REASONS].as_u64().unwrap(),
                )
            })
            .collect();
        let expected = [
            ("IndexWriteKeyRangeThroughputExceeded", "t/index/GSI1"),
            ("TableWriteKeyRangeThroughputExceeded", "t"),
            ("IndexReadMaxOnDemandThroughputExceeded", "t/index/GSI1"),
        ];
        assert_eq!(
            reasons,
            expected.map(|(r, at)| (r.to_owned(), at.to_owned(), 1))
        );
    }

    #[tokio::test]
    async fn dynamodbs_5xx_is_unavailable_not_a_bug() {
        for (status, body) in [
            (
                500,
                r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}"#,
            ),
            (
                503,
                r#"{"__type":"com.amazon.coral.availability#ServiceUnavailableException","message":"Service unavailable"}"#,
            ),
            // A 5xx that is not DynamoDB's JSON (a load balancer's page).
            (502, "<html>Bad Gateway</html>"),
        ] {
            let e = answered(status, body).await;
            assert!(matches!(e, StoreError::Unavailable(_)), "{status}: {e:?}");
            assert!(!e.is_permanent(), "{status}");
        }
    }

    #[tokio::test]
    async fn a_permission_or_a_table_missing_waits_for_a_fix_of_the_deployment() {
        for body in [
            r#"{"__type":"com.amazon.coral.service#AccessDeniedException","message":"not authorized to perform: dynamodb:GetItem"}"#,
            r#"{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}"#,
        ] {
            let e = answered(400, body).await;
            assert!(matches!(e, StoreError::Dynamo(_)), "{e:?}");
        }
    }

    /// A transaction whose answer stays unknown (every attempt a 5xx) is sent again once with
    /// the same token, on top of the SDK's own attempts, then answered `Unavailable`: sending it
    /// more often would only outlast the function's timeout (10 s) while DynamoDB is away, and a
    /// function that times out is a 500 from API Gateway.
    #[tokio::test]
    async fn a_transaction_whose_answer_stays_unknown_is_sent_twice_then_unavailable() {
        let rule = mock!(Client::transact_write_items).then_http_response(|| {
            aws_smithy_runtime_api::http::Response::new(
                500.try_into().unwrap(),
                SdkBody::from(
                    r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}"#,
                ),
            )
        });
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule], |c| c
                .retry_config(RetryConfig::disabled())),
            "t",
        );
        let mut tx = table.transaction();
        tx.check(&key(), crate::Condition::Exists).unwrap();
        let e = tx.send().await.unwrap_err();
        assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");
        assert_eq!(rule.num_calls(), 2);
    }

    /// A client of `endpoint` that tries once and gives an attempt 300 ms.
    fn client_of(endpoint: &str) -> Client {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("local", "local", None, None, "test"))
            .endpoint_url(endpoint)
            .retry_config(RetryConfig::disabled())
            .timeout_config(
                TimeoutConfig::builder()
                    .operation_attempt_timeout(Duration::from_millis(300))
                    .build(),
            )
            .build();
        Client::from_conf(config)
    }

    /// A server that accepts connections and never answers, counting them: each attempt of a
    /// request that timed out opens another.
    async fn silent_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = silent.local_addr().unwrap().port();
        let accepted = std::sync::Arc::new(AtomicUsize::new(0));
        let counted = accepted.clone();
        tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = silent.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                open.push(socket);
            }
        });
        (format!("http://127.0.0.1:{port}"), accepted)
    }

    /// An attempt that timed out may have been applied: a single-item write is not attempted
    /// again by the SDK (its retry could apply an `ADD` twice), where a read is, three times.
    #[tokio::test]
    async fn a_timed_out_single_write_is_not_sent_again_where_a_read_is() {
        use std::sync::atomic::Ordering;
        let client = |endpoint: &str| {
            let config = client_of(endpoint)
                .config()
                .to_builder()
                .retry_config(
                    RetryConfig::standard()
                        .with_max_attempts(3)
                        .with_initial_backoff(Duration::from_millis(1)),
                )
                .build();
            Client::from_conf(config)
        };
        let (endpoint, accepted) = silent_server().await;
        let table = Table::new(client(&endpoint), "t");
        let e = table.exists(&key()).await.unwrap_err();
        assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");
        assert_eq!(
            accepted.load(Ordering::SeqCst),
            3,
            "a read is attempted three times"
        );

        let (endpoint, accepted) = silent_server().await;
        let table = Table::new(client(&endpoint), "t");
        let adjust = crate::Update::default().add("Quantity", 5);
        let e = table.update(&key(), &adjust, None).await.unwrap_err();
        assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");
        let e = table.delete(&key(), None).await.unwrap_err();
        assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");
        assert_eq!(
            accepted.load(Ordering::SeqCst),
            2,
            "each write attempted once"
        );
    }

    #[tokio::test]
    async fn a_refused_connection_and_a_request_nobody_answers_are_unavailable() {
        // A port nobody listens on (bound, then closed): the connection is refused.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let table = Table::new(client_of(&format!("http://127.0.0.1:{port}")), "t");
        let e = table.exists(&key()).await.unwrap_err();
        assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");

        // A server that accepts the connection and never answers: the attempt times out.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = silent.local_addr().unwrap().port();
        let held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = silent.accept().await {
                open.push(socket);
            }
        });
        let table = Table::new(client_of(&format!("http://127.0.0.1:{port}")), "t");
        let e = table.exists(&key()).await.unwrap_err();
        assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");
        assert!(!e.is_permanent());
        held.abort();
    }
}
