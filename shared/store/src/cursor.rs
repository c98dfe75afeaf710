//! Opaque, tamper-evident pagination cursors.
//!
//! A cursor carries DynamoDB's `LastEvaluatedKey` and a *binding*: the access pattern and the
//! parameters it was issued for (`C4|123|2020-01-01|2020-12-31`). Both are signed with HMAC-SHA256
//! under a secret the client never sees, so an edited cursor, or one issued for another customer,
//! book or range, is refused instead of silently reading somewhere else.
//!
//! Secrets rotate: a cursor names the key that signed it (`<key id>.<payload>.<signature>`, the
//! id a digest of the secret), and the codec accepts the current key and the previous one. To
//! rotate, set the previous key to the current one and the current key to a new secret: open pages
//! keep working; once no cursor of the old key can be in use (a page is read in seconds to
//! minutes), drop it. Cursors made before key ids (`<payload>.<signature>`) are checked against
//! both keys.

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use aws_sdk_dynamodb::types::AttributeValue;
use model::{Item, n, s};

use crate::StoreError;

/// The key attributes of a `LastEvaluatedKey`: strings and numbers (a multi-attribute index's
/// keys hold numbers); `None` if any is of another type.
fn key_maps(item: &Item) -> Option<(BTreeMap<String, String>, BTreeMap<String, String>)> {
    let (mut strings, mut numbers) = (BTreeMap::new(), BTreeMap::new());
    for (k, v) in item {
        match v {
            AttributeValue::S(s) => strings.insert(k.clone(), s.clone()),
            AttributeValue::N(n) => numbers.insert(k.clone(), n.clone()),
            _ => return None,
        };
    }
    Some((strings, numbers))
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
    /// `LastEvaluatedKey`'s string attributes.
    k: BTreeMap<String, String>,
    /// Its number attributes (absent when none, so string-only cursors are as before).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    n: BTreeMap<String, String>,
}

/// One signing secret and its public id.
#[derive(Clone)]
struct SigningKey {
    id: String,
    secret: Vec<u8>,
}

impl SigningKey {
    fn new(secret: Vec<u8>) -> Result<SigningKey, StoreError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(StoreError::Config(format!(
                "a cursor signing key must be at least {MIN_SECRET_LEN} bytes"
            )));
        }
        // 48 bits of a digest: tells keys apart, says nothing usable about the secret.
        let digest = Sha256::digest(&secret);
        let id = URL_SAFE_NO_PAD.encode(&digest[..6]);
        Ok(SigningKey { id, secret })
    }

    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes keys of any length")
    }

    fn verify(&self, payload: &[u8], sig: &[u8]) -> bool {
        let mut mac = self.mac();
        mac.update(payload);
        mac.verify_slice(sig).is_ok()
    }
}

#[derive(Clone)]
pub struct CursorCodec {
    current: SigningKey,
    previous: Option<SigningKey>,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec(..)")
    }
}

impl CursorCodec {
    /// A codec that signs and accepts with `secret` only.
    pub fn new(secret: impl Into<Vec<u8>>) -> Result<CursorCodec, StoreError> {
        CursorCodec::rotating(secret, None::<Vec<u8>>)
    }

    /// A codec that signs with `current` and also accepts cursors of `previous`.
    pub fn rotating(
        current: impl Into<Vec<u8>>,
        previous: Option<impl Into<Vec<u8>>>,
    ) -> Result<CursorCodec, StoreError> {
        Ok(CursorCodec {
            current: SigningKey::new(current.into())?,
            previous: previous.map(|p| SigningKey::new(p.into())).transpose()?,
        })
    }

    /// Reads `CURSOR_SIGNING_KEY` and `CURSOR_SIGNING_KEY_PREVIOUS` (empty or absent: none)
    /// once, at start-up.
    pub fn from_env() -> Result<CursorCodec, StoreError> {
        let current = std::env::var("CURSOR_SIGNING_KEY")
            .map_err(|_| StoreError::Config("CURSOR_SIGNING_KEY is not set".into()))?;
        let previous = std::env::var("CURSOR_SIGNING_KEY_PREVIOUS")
            .ok()
            .filter(|p| !p.is_empty());
        CursorCodec::rotating(current, previous)
    }

    pub fn encode(&self, binding: &str, last_evaluated_key: &Item) -> Result<String, StoreError> {
        let (k, n) = key_maps(last_evaluated_key).ok_or_else(|| {
            StoreError::Corrupt("a key attribute is neither a string nor a number".into())
        })?;
        let payload = serde_json::to_vec(&Payload {
            b: binding.to_owned(),
            k,
            n,
        })
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut mac = self.current.mac();
        mac.update(&payload);
        let sig = mac.finalize().into_bytes();
        Ok(format!(
            "{}.{}.{}",
            self.current.id,
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(sig)
        ))
    }

    /// The keys a cursor may have been signed with: the one it names, or (no id) any.
    fn keys_for(&self, id: Option<&str>) -> Vec<&SigningKey> {
        std::iter::once(&self.current)
            .chain(self.previous.as_ref())
            .filter(|k| id.is_none_or(|id| k.id == id))
            .collect()
    }

    /// The `ExclusiveStartKey` of a cursor issued for `binding`.
    pub fn decode(&self, binding: &str, cursor: &str) -> Result<Item, CursorError> {
        if cursor.len() > MAX_CURSOR_LEN {
            return Err(CursorError::Malformed);
        }
        let parts: Vec<&str> = cursor.split('.').collect();
        let (id, payload, sig) = match parts.as_slice() {
            [id, payload, sig] => (Some(*id), *payload, *sig),
            [payload, sig] => (None, *payload, *sig),
            _ => return Err(CursorError::Malformed),
        };
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| CursorError::Malformed)?;
        let sig = URL_SAFE_NO_PAD
            .decode(sig)
            .map_err(|_| CursorError::Malformed)?;
        // An unknown key id is a key retired (or never ours): the same answer as a bad signature.
        if !self.keys_for(id).iter().any(|k| k.verify(&payload, &sig)) {
            return Err(CursorError::BadSignature);
        }
        let payload: Payload =
            serde_json::from_slice(&payload).map_err(|_| CursorError::Malformed)?;
        if payload.b != binding {
            return Err(CursorError::WrongBinding);
        }
        let numbers = payload.n.into_iter().map(|(k, v)| (k, n(v)));
        Ok(payload
            .k
            .into_iter()
            .map(|(k, v)| (k, s(v)))
            .chain(numbers)
            .collect())
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

    /// A multi-attribute index's `LastEvaluatedKey` holds numbers (`Year`, `Month`, `Day`): they
    /// come back as numbers, and a cursor of strings only reads as before.
    #[test]
    fn number_key_attributes_round_trip() {
        let mut key = lek();
        key.insert("CourseKey".into(), s("introtodynamodb"));
        key.insert("Year".into(), model::n(2022));
        key.insert("Day".into(), model::n(15));
        let c = codec().encode("L3|x", &key).unwrap();
        assert_eq!(codec().decode("L3|x", &c).unwrap(), key);
        let strings = codec().encode("C4|1", &lek()).unwrap();
        let payload = strings.split('.').nth(1).unwrap();
        let json = String::from_utf8(URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
        assert!(
            !json.contains("\"n\""),
            "no number map when there are no numbers: {json}"
        );
        key.insert("Bad".into(), AttributeValue::Bool(true));
        assert!(codec().encode("L3|x", &key).is_err());
    }

    #[test]
    fn refuses_edited_forged_and_foreign_cursors() {
        let c = codec().encode("C4|1", &lek()).unwrap();
        let [id, payload, sig]: [&str; 3] = c.split('.').collect::<Vec<_>>().try_into().unwrap();
        // Re-encode an edited payload with the old signature.
        let mut bytes = URL_SAFE_NO_PAD.decode(payload).unwrap();
        let at = bytes.iter().position(|b| *b == b'1').unwrap();
        bytes[at] = b'2';
        let edited = format!("{id}.{}.{sig}", URL_SAFE_NO_PAD.encode(&bytes));
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
        assert!(CursorCodec::rotating("0123456789abcdef0123456789abcdef", Some("short")).is_err());
    }

    const OLD: &str = "old-secret-old-secret-old-secret-";
    const NEW: &str = "new-secret-new-secret-new-secret-";

    /// A rotation: the new key signs, the previous key's open cursors still read, a key that is
    /// neither (or retired) does not; a cursor names its key.
    #[test]
    fn keys_rotate_without_breaking_open_pages() {
        let before = CursorCodec::new(OLD).unwrap();
        let open_page = before.encode("C4|1", &lek()).unwrap();
        let during = CursorCodec::rotating(NEW, Some(OLD)).unwrap();
        assert_eq!(during.decode("C4|1", &open_page).unwrap(), lek());
        let fresh = during.encode("C4|1", &lek()).unwrap();
        assert_ne!(
            fresh.split('.').next(),
            open_page.split('.').next(),
            "new cursors name the new key"
        );
        assert_eq!(
            CursorCodec::new(NEW)
                .unwrap()
                .decode("C4|1", &fresh)
                .unwrap(),
            lek()
        );
        let after = CursorCodec::new(NEW).unwrap();
        assert_eq!(
            after.decode("C4|1", &open_page),
            Err(CursorError::BadSignature),
            "a retired key's cursor"
        );
        // A cursor that names the current key but was signed by another is refused.
        let [_, payload, sig]: [&str; 3] =
            open_page.split('.').collect::<Vec<_>>().try_into().unwrap();
        let current_id = fresh.split('.').next().unwrap();
        let relabelled = format!("{current_id}.{payload}.{sig}");
        assert_eq!(
            during.decode("C4|1", &relabelled),
            Err(CursorError::BadSignature)
        );
        // Cursors from before key ids (payload.signature) are checked against both keys.
        let legacy = open_page.split_once('.').unwrap().1;
        assert_eq!(during.decode("C4|1", legacy).unwrap(), lek());
        assert_eq!(after.decode("C4|1", legacy), Err(CursorError::BadSignature));
    }
}
