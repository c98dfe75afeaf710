//! The typed error every handler returns: an HTTP status, a stable machine-readable code and a
//! message a person can act on, and how the store's errors map to it.

use store::{PagingError, StoreError, cursor::CursorError};

/// An error answer: HTTP status, a stable machine-readable code, a message a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(400, code, message)
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(404, code, message)
    }

    /// The item a point read found, or a 404 with `code` (the message made only when needed).
    pub fn or_not_found<T>(
        found: Option<T>,
        code: &'static str,
        message: impl FnOnce() -> String,
    ) -> Result<T, ApiError> {
        found.ok_or_else(|| ApiError::not_found(code, message()))
    }

    /// A request parameter (path or query) that is not acceptable.
    pub fn invalid_parameter(name: &str, why: impl std::fmt::Display) -> ApiError {
        ApiError::bad_request("invalid_parameter", format!("{name}: {why}"))
    }

    pub(crate) fn internal() -> ApiError {
        ApiError::new(
            500,
            "internal_error",
            "Something went wrong on our side; try again later.",
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Throttled(detail) => {
                tracing::warn!(%detail, "throttled");
                ApiError::new(
                    503,
                    "throttled",
                    "The service is busy; retry after a short pause.",
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
        ApiError::bad_request(
            "invalid_cursor",
            format!(
                "{e}: pass back the nextCursor of the previous page unchanged, with the same parameters"
            ),
        )
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
