//! Opaque, tamper-evident pagination cursors.
//!
//! A cursor carries DynamoDB's `LastEvaluatedKey` and a *binding*: the access pattern and the
//! parameters it was issued for (`C4|123|2020-01-01|2020-12-31`). Both are signed with HMAC-SHA256
//! under a secret the client never sees, so an edited cursor, or one issued for another customer,
//! book or range, is refused instead of silently reading somewhere else.

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use model::{Item, s};

use crate::StoreError;

/// The string-only key attributes of a `LastEvaluatedKey`.
fn string_map(item: &Item) -> Option<BTreeMap<String, String>> {
    item.iter()
        .map(|(k, v)| v.as_s().ok().map(|s| (k.clone(), s.clone())))
        .collect()
}

/// Longest cursor accepted: above any real one (a merged cursor over 40 shard streams of seed
/// 001's certificates is about 6 KB), small enough to bound the work on bad input.
pub const MAX_CURSOR_LEN: usize = 8192;

/// The smallest signing secret accepted, in bytes.
pub const MIN_SECRET_LEN: usize = 32;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CursorError {
    #[error("the cursor is malformed")]
    Malformed,
    #[error("the cursor's signature does not match")]
    BadSignature,
    #[error("the cursor was issued for another query")]
    WrongBinding,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    /// Binding.
    b: String,
    /// `LastEvaluatedKey`, string attributes only (every key attribute of the table is a string).
    k: BTreeMap<String, String>,
}

#[derive(Clone)]
pub struct CursorCodec {
    secret: Vec<u8>,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec(..)")
    }
}

impl CursorCodec {
    pub fn new(secret: impl Into<Vec<u8>>) -> Result<CursorCodec, StoreError> {
        let secret = secret.into();
        if secret.len() < MIN_SECRET_LEN {
            return Err(StoreError::Config(format!(
                "the cursor signing key must be at least {MIN_SECRET_LEN} bytes"
            )));
        }
        Ok(CursorCodec { secret })
    }

    /// Reads `CURSOR_SIGNING_KEY` once, at start-up.
    pub fn from_env() -> Result<CursorCodec, StoreError> {
        let secret = std::env::var("CURSOR_SIGNING_KEY")
            .map_err(|_| StoreError::Config("CURSOR_SIGNING_KEY is not set".into()))?;
        CursorCodec::new(secret)
    }

    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes keys of any length")
    }

    pub fn encode(&self, binding: &str, last_evaluated_key: &Item) -> Result<String, StoreError> {
        let k = string_map(last_evaluated_key)
            .ok_or_else(|| StoreError::Corrupt("a key attribute is not a string".into()))?;
        let payload = serde_json::to_vec(&Payload {
            b: binding.to_owned(),
            k,
        })
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut mac = self.mac();
        mac.update(&payload);
        let sig = mac.finalize().into_bytes();
        Ok(format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(sig)
        ))
    }

    /// The `ExclusiveStartKey` of a cursor issued for `binding`.
    pub fn decode(&self, binding: &str, cursor: &str) -> Result<Item, CursorError> {
        if cursor.len() > MAX_CURSOR_LEN {
            return Err(CursorError::Malformed);
        }
        let (payload, sig) = cursor.split_once('.').ok_or(CursorError::Malformed)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| CursorError::Malformed)?;
        let sig = URL_SAFE_NO_PAD
            .decode(sig)
            .map_err(|_| CursorError::Malformed)?;
        let mut mac = self.mac();
        mac.update(&payload);
        mac.verify_slice(&sig)
            .map_err(|_| CursorError::BadSignature)?;
        let payload: Payload =
            serde_json::from_slice(&payload).map_err(|_| CursorError::Malformed)?;
        if payload.b != binding {
            return Err(CursorError::WrongBinding);
        }
        Ok(payload.k.into_iter().map(|(k, v)| (k, s(v))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec() -> CursorCodec {
        CursorCodec::new("0123456789abcdef0123456789abcdef").unwrap()
    }

    fn lek() -> Item {
        Item::from([
            ("PK".to_owned(), s("CUSTOMER#1")),
            ("SK".to_owned(), s("#ORDER#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E")),
        ])
    }

    #[test]
    fn round_trips_for_its_own_binding_only() {
        let c = codec().encode("C4|1", &lek()).unwrap();
        assert_eq!(codec().decode("C4|1", &c).unwrap(), lek());
        assert_eq!(codec().decode("C4|2", &c), Err(CursorError::WrongBinding));
    }

    #[test]
    fn refuses_edited_forged_and_foreign_cursors() {
        let c = codec().encode("C4|1", &lek()).unwrap();
        let (payload, sig) = c.split_once('.').unwrap();
        // Re-encode an edited payload with the old signature.
        let mut bytes = URL_SAFE_NO_PAD.decode(payload).unwrap();
        let at = bytes.iter().position(|b| *b == b'1').unwrap();
        bytes[at] = b'2';
        let edited = format!("{}.{}", URL_SAFE_NO_PAD.encode(&bytes), sig);
        assert_eq!(
            codec().decode("C4|1", &edited),
            Err(CursorError::BadSignature)
        );
        let other = CursorCodec::new("another-secret-another-secret-xx").unwrap();
        assert_eq!(other.decode("C4|1", &c), Err(CursorError::BadSignature));
        for junk in ["", ".", "abc", "a.b", &"x".repeat(MAX_CURSOR_LEN + 1)] {
            assert!(codec().decode("C4|1", junk).is_err(), "{junk}");
        }
    }

    #[test]
    fn short_secrets_are_refused() {
        assert!(CursorCodec::new("short").is_err());
    }
}
