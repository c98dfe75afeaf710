//! Responses: JSON bodies (with drifted derived values named in a header), 204, and the JSON
//! body of an error.

use lambda_http::{
    Body, Response,
    http::{StatusCode, header::CONTENT_TYPE},
};
use serde::Serialize;

use crate::{ApiError, wire};

/// The header naming derived values that drifted (see [`wire::DRIFT`]).
pub const DERIVED_INCONSISTENT: &str = "x-derived-inconsistent";

/// A JSON response. Derived values a view found drifted (a negative count, a value that is not
/// an integer: [`model::Derived`]) are `null` in the body and named in the
/// `X-Derived-Inconsistent` header, so a read degrades visibly instead of failing; `make
/// reconcile REPAIR=1` heals them.
pub fn json<T: Serialize>(status: u16, body: &T) -> Result<Response<Body>, ApiError> {
    let internal = |e: serde_json::Error| {
        tracing::error!(error = %e, "cannot serialise a response");
        ApiError::internal()
    };
    let mut value = serde_json::to_value(body).map_err(internal)?;
    let mut drifted = Vec::new();
    wire::take_drift(&mut value, &mut drifted);
    let text = serde_json::to_string(&value).map_err(internal)?;
    let mut response = Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json");
    if !drifted.is_empty() {
        tracing::warn!(fields = ?drifted, "derived values drifted; answering without them");
        response = response.header(DERIVED_INCONSISTENT, drifted.join(", "));
    }
    response
        .body(Body::Text(text))
        .map_err(|_| ApiError::internal())
}

/// A read of one item: 200 with what was `found` as `show` shows it, or `not_found` (its 404)
/// with `message` (a person's next step) when nothing was.
pub fn found<T, V: Serialize>(
    found: Option<T>,
    show: impl FnOnce(&T) -> V,
    not_found: impl Into<crate::Refusal>,
    message: impl FnOnce() -> String,
) -> Result<Response<Body>, ApiError> {
    json(200, &show(&not_found.into().unless_found(found, message)?))
}

/// 204 No Content.
pub fn no_content() -> Result<Response<Body>, ApiError> {
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .body(Body::Empty)
        .map_err(|_| ApiError::internal())
}

/// The JSON response of an error.
pub fn error_response(e: &ApiError) -> Response<Body> {
    let body = serde_json::json!({ "code": e.code, "message": e.message }).to_string();
    let mut response = Response::new(Body::Text(body));
    *response.status_mut() =
        StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        CONTENT_TYPE,
        "application/json".parse().expect("static header"),
    );
    // Busy or unavailable for a moment: tell clients when to retry.
    if let Some(seconds) = e.retry_after() {
        response
            .headers_mut()
            .insert(lambda_http::http::header::RETRY_AFTER, seconds.into());
    }
    response
}

/// The response of a handler's result.
pub fn respond(result: Result<Response<Body>, ApiError>) -> Response<Body> {
    match result {
        Ok(r) => r,
        Err(e) => {
            // A 503 is DynamoDB busy or away for a moment (its detail is logged at WARN where it
            // was met); any other 5xx is a bug or a deployment to fix.
            if e.retry_after().is_some() {
                tracing::warn!(code = e.code, "answered {}", e.status);
            } else if e.status >= 500 {
                tracing::error!(code = e.code, "answered {}", e.status);
            }
            error_response(&e)
        }
    }
}
