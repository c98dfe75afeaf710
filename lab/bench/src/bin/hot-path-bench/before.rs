//! BASELINES ONLY: what the hot path did before issue 36, rewritten here to be measured against
//! what it does now. Nothing in the product uses this module.
//!
//! - [`SignedCursors`]: the cursor codec `store::cursor` replaced (commit `7da2936`): the payload
//!   (binding and `LastEvaluatedKey`) as base64 JSON, readable by anyone, signed with
//!   HMAC-SHA256 under the secret itself, `<key id>.<payload>.<signature>`.
//! - [`text_key`]: key text before the text rule (commit `58d698b`): a refusal of Unicode's
//!   control and format characters (Cc, Cf), whitespace removed, `char::to_lowercase`, escaped.
//!   Free text in a body had no rule at all: its baseline is the JSON parse alone (main.rs).

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use model::{Item, n, s};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use unicode_general_category::{GeneralCategory, get_general_category};

/// The signed payload, as the old codec wrote it (the same JSON the sealed one encrypts).
#[derive(Serialize, Deserialize)]
struct Payload {
    b: String,
    k: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    n: BTreeMap<String, String>,
}

/// The old codec with one key (the rotation's second key changed nothing per cursor).
pub struct SignedCursors {
    id: String,
    secret: Vec<u8>,
}

impl SignedCursors {
    pub fn new(secret: &[u8]) -> SignedCursors {
        // The key id was 48 bits of the secret's digest.
        let id = URL_SAFE_NO_PAD.encode(&Sha256::digest(secret)[..6]);
        SignedCursors {
            id,
            secret: secret.to_vec(),
        }
    }

    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes keys of any length")
    }

    pub fn encode(&self, binding: &str, key: &Item) -> Option<String> {
        let (mut k, mut n) = (BTreeMap::new(), BTreeMap::new());
        for (name, value) in key {
            match value {
                aws_sdk_dynamodb::types::AttributeValue::S(v) => k.insert(name.clone(), v.clone()),
                aws_sdk_dynamodb::types::AttributeValue::N(v) => n.insert(name.clone(), v.clone()),
                _ => return None,
            };
        }
        let payload = serde_json::to_vec(&Payload {
            b: binding.to_owned(),
            k,
            n,
        })
        .ok()?;
        let mut mac = self.mac();
        mac.update(&payload);
        let signature = mac.finalize().into_bytes();
        Some(format!(
            "{}.{}.{}",
            self.id,
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(signature)
        ))
    }

    /// The `ExclusiveStartKey` of a cursor this codec signed for `binding`; `None` for any
    /// other (the old codec's three errors are one here: only the work matters).
    pub fn decode(&self, binding: &str, cursor: &str) -> Option<Item> {
        if cursor.len() > store::cursor::MAX_CURSOR_LEN {
            return None;
        }
        let mut parts = cursor.split('.');
        let (id, payload, signature) = (parts.next()?, parts.next()?, parts.next()?);
        if id != self.id || parts.next().is_some() {
            return None;
        }
        let payload = URL_SAFE_NO_PAD.decode(payload).ok()?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        let mut mac = self.mac();
        mac.update(&payload);
        mac.verify_slice(&signature).ok()?;
        let payload: Payload = serde_json::from_slice(&payload).ok()?;
        if payload.b != binding {
            return None;
        }
        let numbers = payload.n.into_iter().map(|(k, v)| (k, n(v)));
        Some(
            payload
                .k
                .into_iter()
                .map(|(k, v)| (k, s(v)))
                .chain(numbers)
                .collect(),
        )
    }
}

/// Key text as `keys::Text::parse` made it before the text rule; `None` where it refused.
pub fn text_key(value: &str) -> Option<String> {
    if value.chars().count() > keys::MAX_TEXT_LEN {
        return None;
    }
    let invisible = |c: char| {
        matches!(
            get_general_category(c),
            GeneralCategory::Format | GeneralCategory::Control
        )
    };
    if value.chars().any(invisible) {
        return None;
    }
    let normalized: String = value
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    if normalized.is_empty() || normalized == "." || normalized == ".." {
        return None;
    }
    Some(keys::escape(&normalized))
}
