//! Opaque, tamper-evident pagination cursors that reveal nothing.
//!
//! A cursor carries DynamoDB's `LastEvaluatedKey` and a *binding*: the access pattern and the
//! parameters it was issued for (`C4|123|2020-01-01|2020-12-31`). Both are sealed together with
//! AES-256-GCM-SIV (authenticated encryption) under a key the client never sees, so an edited
//! cursor, or one issued for another customer, book or range, is refused instead of silently
//! reading somewhere else; and a cursor tells its holder nothing: not the key of the item a page
//! stopped at (a review's `USER#<author>` on a public page), not the binding, not even the length
//! of either beyond a multiple of [`PAD_TO`] bytes.
//!
//! The stack's cursor secret (`CURSOR_SIGNING_KEY`) is not used as the key itself: two keys are
//! derived from it with HMAC-SHA256 as the PRF, one that seals and one that names it (a cursor is
//! `<key id>.<nonce, ciphertext and tag>`, URL-safe base64). The nonce is random; GCM-SIV keeps a
//! repeated nonce from exposing anything but the equality of two identical cursors.
//!
//! Secrets rotate: the codec opens cursors of the current key and the previous one. To rotate, set
//! the previous key to the current one and the current key to a new secret: open pages keep
//! working; once no cursor of the old key can be in use (a page is read in seconds to minutes),
//! drop it. Cursors of the signed-only format this replaced (`<id>.<payload>.<signature>`, their
//! payload readable) are refused as malformed: a client walking pages across the upgrade starts its
//! walk again.

use std::collections::BTreeMap;

use aws_lc_rs::aead::{AES_256_GCM_SIV, Aad, NONCE_LEN, Nonce, RandomizedNonceKey};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

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

/// A sealed payload is padded to a multiple of this many bytes, so that a cursor's length does
/// not tell a short author name from a long one: every single-key cursor of the catalogue fits in
/// one block.
pub const PAD_TO: usize = 256;

/// The tag AES-GCM-SIV appends to the ciphertext.
const TAG_LEN: usize = 16;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CursorError {
    #[error("the cursor is malformed")]
    Malformed,
    #[error("the cursor was not issued by this service, or was altered")]
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
    /// Its number attributes (absent when none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    n: BTreeMap<String, String>,
}

/// One secret: the key derived from it that seals cursors, and its public id.
struct SealingKey {
    id: String,
    key: RandomizedNonceKey,
}

/// HMAC-SHA256 of `label` under `secret`: a PRF, so each label gives an independent key.
fn derive(secret: &[u8], label: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(label);
    mac.finalize().into_bytes().into()
}

impl SealingKey {
    fn new(secret: &[u8]) -> Result<SealingKey, StoreError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(StoreError::Config(format!(
                "a cursor signing key must be at least {MIN_SECRET_LEN} bytes"
            )));
        }
        // 48 bits: tells keys apart, says nothing usable about the secret.
        let id = URL_SAFE_NO_PAD.encode(&derive(secret, b"pagination cursor key id v2")[..6]);
        let key = RandomizedNonceKey::new(
            &AES_256_GCM_SIV,
            &derive(secret, b"pagination cursor sealing key v2"),
        )
        .map_err(|_| StoreError::Config("the cursor key cannot be made".into()))?;
        Ok(SealingKey { id, key })
    }

    /// `nonce ‖ ciphertext ‖ tag` of `plain`, bound to this key's id.
    fn seal(&self, mut plain: Vec<u8>) -> Result<Vec<u8>, StoreError> {
        let nonce = self
            .key
            .seal_in_place_append_tag(Aad::from(self.id.as_bytes()), &mut plain)
            .map_err(|_| StoreError::Corrupt("a cursor could not be sealed".into()))?;
        let mut sealed = nonce.as_ref().to_vec();
        sealed.append(&mut plain);
        Ok(sealed)
    }

    fn open(&self, mut sealed: Vec<u8>) -> Option<Vec<u8>> {
        if sealed.len() < NONCE_LEN + TAG_LEN {
            return None;
        }
        let mut body = sealed.split_off(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(&sealed).ok()?;
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(self.id.as_bytes()), &mut body)
            .ok()?;
        Some(plain.to_vec())
    }
}

#[derive(Clone)]
pub struct CursorCodec {
    current: std::sync::Arc<SealingKey>,
    previous: Option<std::sync::Arc<SealingKey>>,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec(..)")
    }
}

impl CursorCodec {
    /// A codec that seals and opens with `secret` only.
    pub fn new(secret: impl Into<Vec<u8>>) -> Result<CursorCodec, StoreError> {
        CursorCodec::rotating(secret, None::<Vec<u8>>)
    }

    /// A codec that seals with `current` and also opens cursors of `previous`.
    pub fn rotating(
        current: impl Into<Vec<u8>>,
        previous: Option<impl Into<Vec<u8>>>,
    ) -> Result<CursorCodec, StoreError> {
        Ok(CursorCodec {
            current: SealingKey::new(&current.into())?.into(),
            previous: previous
                .map(|p| SealingKey::new(&p.into()).map(Into::into))
                .transpose()?,
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
        let mut plain = serde_json::to_vec(&Payload {
            b: binding.to_owned(),
            k,
            n,
        })
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        // JSON ignores trailing whitespace: the padding needs no length of its own.
        plain.resize(plain.len().div_ceil(PAD_TO) * PAD_TO, b' ');
        let sealed = self.current.seal(plain)?;
        Ok(format!(
            "{}.{}",
            self.current.id,
            URL_SAFE_NO_PAD.encode(sealed)
        ))
    }

    /// The binding and `ExclusiveStartKey` a cursor of ours holds, whatever query it was issued
    /// for: what [`CursorCodec::decode`] checks, for tests and tools that compare cursors.
    pub fn open(&self, cursor: &str) -> Result<(String, Item), CursorError> {
        if cursor.len() > MAX_CURSOR_LEN {
            return Err(CursorError::Malformed);
        }
        let Some((id, sealed)) = cursor.split_once('.') else {
            return Err(CursorError::Malformed);
        };
        let sealed = URL_SAFE_NO_PAD
            .decode(sealed)
            .map_err(|_| CursorError::Malformed)?;
        // An unknown key id is a key retired (or never ours): the same answer as an altered one.
        let plain = std::iter::once(&self.current)
            .chain(self.previous.as_ref())
            .find(|k| k.id == id)
            .and_then(|k| k.open(sealed))
            .ok_or(CursorError::BadSignature)?;
        let payload: Payload =
            serde_json::from_slice(&plain).map_err(|_| CursorError::Malformed)?;
        let numbers = payload.n.into_iter().map(|(k, v)| (k, n(v)));
        let key = payload
            .k
            .into_iter()
            .map(|(k, v)| (k, s(v)))
            .chain(numbers)
            .collect();
        Ok((payload.b, key))
    }

    /// The `ExclusiveStartKey` of a cursor issued for `binding`.
    pub fn decode(&self, binding: &str, cursor: &str) -> Result<Item, CursorError> {
        let (issued_for, key) = self.open(cursor)?;
        if issued_for != binding {
            return Err(CursorError::WrongBinding);
        }
        Ok(key)
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
            ("PK".to_owned(), s("BOOK#9780261102354")),
            ("SK".to_owned(), s("2003-03-14T18:30:00.000Z#USER#sam")),
        ])
    }

    /// Every byte a stranger can get out of a cursor: its parts, base64-decoded where they decode.
    fn what_a_stranger_reads(cursor: &str) -> Vec<u8> {
        cursor
            .split('.')
            .flat_map(|part| {
                URL_SAFE_NO_PAD
                    .decode(part)
                    .unwrap_or(part.as_bytes().to_vec())
            })
            .collect()
    }

    #[test]
    fn round_trips_for_its_own_binding_only() {
        let c = codec().encode("R1|9780261102354|1", &lek()).unwrap();
        assert_eq!(codec().decode("R1|9780261102354|1", &c).unwrap(), lek());
        assert_eq!(
            codec().decode("R1|9780261102354|2", &c),
            Err(CursorError::WrongBinding)
        );
    }

    /// The leak a tester found: a public page's cursor named the review's author. Nothing of the
    /// key or the binding can be read from a cursor now, not even in pieces.
    #[test]
    fn a_cursor_reveals_neither_key_nor_binding() {
        let c = codec().encode("R1|9780261102354|1", &lek()).unwrap();
        let seen = what_a_stranger_reads(&c);
        for secret in [
            "sam",
            "USER",
            "BOOK",
            "9780261102354",
            "R1|",
            "2003-03-14",
            "PK",
        ] {
            assert!(
                !seen.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret:?} can be read from {c}"
            );
        }
        // Sealed with a random nonce: the same page twice gives two cursors, both valid.
        let again = codec().encode("R1|9780261102354|1", &lek()).unwrap();
        assert_ne!(c, again);
        assert_eq!(codec().decode("R1|9780261102354|1", &again).unwrap(), lek());
    }

    /// A long author name and a short one give cursors of the same length.
    #[test]
    fn a_cursor_length_does_not_tell_keys_apart() {
        let with_author = |user: &str| {
            let key = Item::from([
                ("PK".to_owned(), s("BOOK#9780261102354")),
                (
                    "SK".to_owned(),
                    s(format!("2003-03-14T18:30:00.000Z#USER#{user}")),
                ),
            ]);
            codec().encode("R1|9780261102354|1", &key).unwrap().len()
        };
        assert_eq!(with_author("a"), with_author(&"a".repeat(64)));
    }

    /// A multi-attribute index's `LastEvaluatedKey` holds numbers (`Year`, `Month`, `Day`): they
    /// come back as numbers.
    #[test]
    fn number_key_attributes_round_trip() {
        let mut key = lek();
        key.insert("CourseKey".into(), s("introtodynamodb"));
        key.insert("Year".into(), model::n(2022));
        key.insert("Day".into(), model::n(15));
        let c = codec().encode("L3|x", &key).unwrap();
        assert_eq!(codec().decode("L3|x", &c).unwrap(), key);
        key.insert("Bad".into(), AttributeValue::Bool(true));
        assert!(codec().encode("L3|x", &key).is_err());
    }

    #[test]
    fn refuses_edited_forged_and_foreign_cursors() {
        let c = codec().encode("C4|1", &lek()).unwrap();
        let (id, sealed) = c.split_once('.').unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(sealed).unwrap();
        // Every single bit flipped anywhere (nonce, ciphertext, padding, tag) is refused.
        for at in 0..bytes.len() {
            let mut edited = bytes.clone();
            edited[at] ^= 1;
            let edited = format!("{id}.{}", URL_SAFE_NO_PAD.encode(&edited));
            assert_eq!(
                codec().decode("C4|1", &edited),
                Err(CursorError::BadSignature),
                "byte {at}"
            );
        }
        let other = CursorCodec::new("another-secret-another-secret-xx").unwrap();
        assert_eq!(other.decode("C4|1", &c), Err(CursorError::BadSignature));
        let truncated = format!("{id}.{}", URL_SAFE_NO_PAD.encode(&bytes[..20]));
        assert!(codec().decode("C4|1", &truncated).is_err());
        for junk in [
            "",
            ".",
            "abc",
            "a.b",
            "a.b.c",
            &"x".repeat(MAX_CURSOR_LEN + 1),
        ] {
            assert!(codec().decode("C4|1", junk).is_err(), "{junk}");
        }
    }

    /// A cursor of the format before this one (`<id>.<base64 JSON>.<HMAC>`), as a client may
    /// still hold one across the upgrade: refused, not read.
    #[test]
    fn the_readable_format_before_is_refused() {
        let signed = "L_E45zZx.eyJiIjoiUjF8OTc4MDI2MTEwMjM1NHwxIiwiayI6eyJQSyI6IkJPT0sjOTc4MDI2MTEwMjM1NCIsIlNLIjoiMjAwMy0wMy0xNFQxODozMDowMC4wMDBaI1VTRVIjc2FtIn19.jO1TL1bBEZu5ZnvOMaA1NWhMoS1pGC19BqnU-6Ld3tw";
        assert!(codec().decode("R1|9780261102354|1", signed).is_err());
    }

    #[test]
    fn short_secrets_are_refused() {
        assert!(CursorCodec::new("short").is_err());
        assert!(CursorCodec::rotating("0123456789abcdef0123456789abcdef", Some("short")).is_err());
    }

    const OLD: &str = "old-secret-old-secret-old-secret-";
    const NEW: &str = "new-secret-new-secret-new-secret-";

    /// A rotation: the new key seals, the previous key's open cursors still open, a key that is
    /// neither (or retired) does not; a cursor names its key, and the name is sealed in too.
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
        // A cursor relabelled with the current key's id is refused.
        let sealed = open_page.split_once('.').unwrap().1;
        let current_id = fresh.split('.').next().unwrap();
        assert_eq!(
            during.decode("C4|1", &format!("{current_id}.{sealed}")),
            Err(CursorError::BadSignature)
        );
    }
}
