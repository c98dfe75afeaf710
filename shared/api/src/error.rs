//! The typed error every handler returns: an HTTP status, a stable machine-readable code and a
//! message a person can act on, and how the store's errors map to it.

use store::{PagingError, StoreError, cursor::CursorError};

use crate::refusal::{Common, Refusal};

/// The code of a 503 for DynamoDB throttling us, or a write that stayed contended.
pub const THROTTLED: &str = Common::Throttled.refusal().code;
/// The code of a 503 for DynamoDB unreachable or failing on its side.
pub const UNAVAILABLE: &str = Common::Unavailable.refusal().code;

/// An error answer: HTTP status, a stable machine-readable code, a message a person can act on.
/// Made only from a declared [`Refusal`] (`non_exhaustive`: no literal outside this crate).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    /// `refusal`'s answer: only a declared [`Refusal`] makes one (`because`), so a code nobody
    /// declared cannot be answered.
    pub(crate) fn refusing(refusal: Refusal, message: String) -> ApiError {
        ApiError {
            status: refusal.status,
            code: refusal.code,
            message,
        }
    }

    /// A request parameter (path or query) that is not acceptable.
    pub fn invalid_parameter(name: &str, why: impl std::fmt::Display) -> ApiError {
        Common::InvalidParameter.because(format!("{name}: {why}"))
    }

    /// Seconds a client should wait before sending the request again, the `Retry-After` of a
    /// 503: a throttle or a contended write clears within a second; an unavailable database has
    /// already outlasted the SDK's three attempts (up to about 3 s of backoff), so it is given
    /// longer, which also spares it a crowd of clients retrying together.
    pub fn retry_after(&self) -> Option<u32> {
        match (self.status, self.code) {
            (503, UNAVAILABLE) => Some(5),
            (503, _) => Some(1),
            _ => None,
        }
    }

    pub(crate) fn internal() -> ApiError {
        Common::InternalError.because("Something went wrong on our side; try again later.")
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            // Transient: a 503 with Retry-After, not a bug. The detail (DynamoDB's throttling
            // reasons, the failure) is for the log only.
            StoreError::Throttled(detail) => {
                tracing::warn!(%detail, "throttled");
                Common::Throttled
                    .because("The service is busy; retry after the pause Retry-After gives.")
            }
            StoreError::Unavailable(detail) => {
                tracing::warn!(%detail, "dynamodb unavailable");
                Common::Unavailable.because(
                    "The database could not be reached for a moment; retry after the pause Retry-After gives.",
                )
            }
            other => {
                tracing::error!(error = %other, "store error");
                ApiError::internal()
            }
        }
    }
}

/// An item read back that does not fit its entity: a corrupt item, a 500.
impl From<model::ModelError> for ApiError {
    fn from(e: model::ModelError) -> ApiError {
        ApiError::from(StoreError::from(e))
    }
}

impl From<CursorError> for ApiError {
    fn from(e: CursorError) -> ApiError {
        Common::InvalidCursor.because(format!(
            "{e}: pass back the nextCursor of the previous page unchanged, with the same parameters"
        ))
    }
}

/// A page that could not be read: a cursor this query did not issue is the client's 400
/// `invalid_cursor`, anything else the store's.
impl From<PagingError> for ApiError {
    fn from(e: PagingError) -> ApiError {
        match e {
            PagingError::Cursor(e) => ApiError::from(e),
            PagingError::Store(e) => ApiError::from(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::error_response;

    /// What a client gets for each kind of store error: its status, code and `Retry-After`.
    fn answer(e: StoreError) -> (u16, String, Option<String>) {
        let response = error_response(&ApiError::from(e));
        let body: serde_json::Value = match response.body() {
            lambda_http::Body::Text(t) => serde_json::from_str(t).unwrap(),
            other => panic!("{other:?}"),
        };
        let retry = response
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_owned());
        (
            response.status().as_u16(),
            body["code"].as_str().unwrap().to_owned(),
            retry,
        )
    }

    #[test]
    fn what_passes_is_a_503_with_retry_after_and_only_a_bug_or_a_deployment_is_a_500() {
        let (status, code, retry) = answer(StoreError::Throttled("busy".into()));
        assert_eq!((status, code.as_str()), (503, "throttled"));
        assert_eq!(retry.as_deref(), Some("1"));
        let (status, code, retry) = answer(StoreError::Unavailable(
            "dispatch failure: connection refused".into(),
        ));
        assert_eq!((status, code.as_str()), (503, "unavailable"));
        let seconds: u32 = retry.expect("a Retry-After").parse().unwrap();
        assert!(seconds >= 1);
        for permanent in [
            StoreError::Dynamo("AccessDeniedException".into()),
            StoreError::Config("TABLE_NAME is not set".into()),
            StoreError::Corrupt("Quantity: not a number".into()),
            StoreError::Rejected("ValidationException".into()),
        ] {
            assert_eq!(
                answer(permanent),
                (500, "internal_error".to_owned(), None),
                "a deploy or a fix of the code heals it, not a retry"
            );
        }
    }
}
