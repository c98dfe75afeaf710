//! `Idempotency-Key` for writes that are not idempotent by themselves: an inventory adjustment
//! (a relative change) and a tracking event (a new item each time). A client that lost the answer
//! to such a write (a 503 `unavailable`, API Gateway's 500 for a function that died, a dropped
//! connection) cannot tell whether it was applied; sent again under the same key, it is applied
//! once, and the retry answers what the first attempt answered.
//!
//! The key is remembered on the item the write changes, as a mark of its own
//! (`Replay_<digest of the key>`): written in the same request as the change, on condition that
//! the item has no such mark yet, so a retry's write is refused by DynamoDB itself, and the mark
//! says what the first attempt did. Place-order keeps its own record (`IDEMPOTENCY#`): an order
//! is a new partition, with no item to carry a mark.

use api::{ApiError, Refusal};
use keys::Id;
use sha2::{Digest, Sha256};

/// A key that is no id: refused, never ignored.
pub const INVALID_KEY: Refusal = Refusal::new(
    400,
    "invalid_idempotency_key",
    "the `Idempotency-Key` is not 1 to 64 letters, digits, `-`, `_` or `.`",
);
/// A key used before with another request.
pub const KEY_REUSED: Refusal = Refusal::new(
    422,
    "idempotency_key_reused",
    "the `Idempotency-Key` was used before with another body; nothing was written",
);

/// The header a client names its write with.
pub const HEADER: &str = "idempotency-key";

/// How long a key is remembered: a retry within a day is recognised.
pub const KEPT_SECONDS: i64 = 24 * 3600;

/// The request's `Idempotency-Key`, if it has one. A key that is there but not a valid id is
/// refused, never ignored: ignoring it would make a retry a second write.
pub fn key(req: &lambda_http::Request) -> Result<Option<Id>, ApiError> {
    req.headers()
        .get(HEADER)
        .map(|v| {
            let refused = |why: String| INVALID_KEY.because(format!("Idempotency-Key: {why}"));
            let text = v.to_str().map_err(|_| {
                refused("give 1 to 64 ASCII letters, digits, '-', '_' or '.'".into())
            })?;
            Id::parse("Idempotency-Key", text).map_err(|e| refused(e.to_string()))
        })
        .transpose()
}

/// A write named by a key: the key, and a digest of what was asked (the same key with another
/// request is refused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub key: Id,
    pub request_hash: String,
}

impl Named {
    /// `key`, for the request `canonical` describes.
    pub fn new(key: Id, canonical: &serde_json::Value) -> Named {
        Named {
            key,
            // 64 bits: enough to tell one request from another under one key, and short on
            // the item that carries the mark.
            request_hash: digest(canonical.to_string().as_bytes())[..16].to_owned(),
        }
    }

    /// The attribute that remembers this key on the item the write changes.
    pub fn mark(&self) -> String {
        format!(
            "{MARK_PREFIX}{}",
            &digest(self.key.as_str().as_bytes())[..16]
        )
    }
}

/// Every key's mark starts so.
pub const MARK_PREFIX: &str = "Replay_";

/// SHA-256, in hex.
pub fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The answer to a key used before with another request: 422, nothing written.
pub fn reused() -> ApiError {
    KEY_REUSED.because(
        "This Idempotency-Key was used for a different request; use a new key for a new one.",
    )
}

/// Marks the answer to a retry as a replay of the first.
pub fn replayed(
    mut res: lambda_http::Response<lambda_http::Body>,
) -> lambda_http::Response<lambda_http::Body> {
    res.headers_mut()
        .insert("idempotent-replayed", "true".parse().expect("static"));
    res
}

/// What `openapi.yaml` adds to a keyed route: the `Idempotency-Key` header ([`parameter`]) and
/// the `Idempotent-Replayed` header of its `status` answer.
pub fn documented(status: &str, retry_answers: &str) -> serde_json::Value {
    serde_json::json!({
        "parameters": [parameter(retry_answers)],
        "responses": { status: { "headers": { "Idempotent-Replayed": {
            "description": "`true` when this answers an earlier request with the same key",
            "schema": { "type": "string", "enum": ["true"] },
        } } } },
    })
}

/// The `Idempotency-Key` header as `openapi.yaml` documents it on a route, saying what a retry
/// answers.
pub fn parameter(retry_answers: &str) -> serde_json::Value {
    serde_json::json!({
        "name": "Idempotency-Key",
        "in": "header",
        "description": format!("a retry with the same key and body within 24 hours answers {retry_answers} again, and changes nothing; the same key with another body is a 422 `idempotency_key_reused`; any other value is a 400 `invalid_idempotency_key`"),
        "schema": { "type": "string", "minLength": 1, "maxLength": keys::MAX_ID_LEN, "pattern": "^[A-Za-z0-9._-]+$" },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keys_mark_is_short_and_its_own() {
        let a = Named::new(
            Id::parse("k", "retry-1").unwrap(),
            &serde_json::json!({"delta": 1}),
        );
        let b = Named::new(
            Id::parse("k", "retry-2").unwrap(),
            &serde_json::json!({"delta": 1}),
        );
        assert!(a.mark().starts_with(MARK_PREFIX) && a.mark().len() == MARK_PREFIX.len() + 16);
        assert_ne!(a.mark(), b.mark());
        assert_eq!(a.request_hash, b.request_hash);
        let c = Named::new(
            Id::parse("k", "retry-1").unwrap(),
            &serde_json::json!({"delta": 2}),
        );
        assert_eq!(a.mark(), c.mark());
        assert_ne!(a.request_hash, c.request_hash);
    }
}
