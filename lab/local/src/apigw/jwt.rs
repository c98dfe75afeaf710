//! API Gateway's JWT authorizer, emulated, and a local issuer whose tokens it accepts.
//!
//! In AWS the HTTP API checks a route's bearer token before the function runs: an RS256
//! signature by a key of the issuer's JWKS (`kid`), `iss`, `aud` (or, without `aud`,
//! `client_id`), `exp`, `nbf`, `iat`, and at least one of the route's scopes. Any failure is
//! `401 {"message":"Unauthorized"}` with a `www-authenticate` header naming the reason. The claims
//! of an accepted token reach the function flattened to strings (`requestContext.authorizer.jwt`:
//! a list claim arrives as `[a b]`), with the token's scopes.
//!
//! Locally the issuer is [`Issuer`]: an RSA key kept under `.local/issuer/`, made on first use;
//! `make token` mints with it.

use std::{collections::BTreeMap, path::Path};

use aws_lc_rs::{
    encoding::AsDer,
    rand::SystemRandom,
    rsa::{KeyPair, KeySize},
    signature::{self, KeyPair as _, RsaPublicKeyComponents},
};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD as B64};
use serde_json::{Map, Value, json};

/// The local issuer's `iss`.
pub const ISSUER: &str = "https://issuer.local.invalid";
/// The local app client: the audience the local authorizer accepts (as `aud` or `client_id`).
pub const AUDIENCE: &str = "local-app-client";
/// How long a minted token lives.
pub const TOKEN_SECONDS: i64 = 3600;

#[derive(Debug, thiserror::Error)]
pub enum IssuerError {
    #[error("issuer key: {0}")]
    Io(#[from] std::io::Error),
    #[error("issuer key is not usable: {0}")]
    Key(String),
}

/// The local issuer: one RSA signing key and its public JWKS entry.
pub struct Issuer {
    key: KeyPair,
    kid: String,
}

impl Issuer {
    /// The issuer whose key is kept in `dir` (made there on first use, readable by its owner only).
    pub fn open(dir: &Path) -> Result<Issuer, IssuerError> {
        let path = dir.join("signing-key.pk8");
        let der = match std::fs::read(&path) {
            Ok(der) => der,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = KeyPair::generate(KeySize::Rsa2048)
                    .map_err(|e| IssuerError::Key(e.to_string()))?;
                let der = key
                    .as_der()
                    .map_err(|e| IssuerError::Key(e.to_string()))?
                    .as_ref()
                    .to_vec();
                std::fs::create_dir_all(dir)?;
                write_private(&path, &der)?;
                der
            }
            Err(e) => return Err(e.into()),
        };
        Issuer::from_pkcs8(&der)
    }

    /// An issuer with a fresh key that is kept nowhere (tests).
    pub fn ephemeral() -> Issuer {
        let key = KeyPair::generate(KeySize::Rsa2048).expect("RSA key generation");
        Issuer::from_pkcs8(key.as_der().expect("PKCS#8").as_ref()).expect("own key")
    }

    fn from_pkcs8(der: &[u8]) -> Result<Issuer, IssuerError> {
        let key = KeyPair::from_pkcs8(der).map_err(|e| IssuerError::Key(e.to_string()))?;
        // The key id: a digest of the public key, so it changes when the key does.
        let digest =
            aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, key.public_key().as_ref());
        let kid = B64.encode(&digest.as_ref()[..12]);
        Ok(Issuer { key, kid })
    }

    /// The issuer's public keys, as its `jwks_uri` would serve them.
    pub fn jwks(&self) -> Value {
        let public = self.key.public_key();
        json!({ "keys": [{
            "kty": "RSA",
            "use": "sig",
            "alg": "RS256",
            "kid": self.kid,
            "n": B64.encode(public.modulus().big_endian_without_leading_zero()),
            "e": B64.encode(public.exponent().big_endian_without_leading_zero()),
        }]})
    }

    /// A token with `claims`, signed RS256 with the issuer's key.
    pub fn sign(&self, claims: &Value) -> String {
        let header = json!({ "alg": "RS256", "typ": "JWT", "kid": self.kid });
        let signing_input = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let mut signature = vec![0; self.key.public_modulus_len()];
        self.key
            .sign(
                &signature::RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                signing_input.as_bytes(),
                &mut signature,
            )
            .expect("RSA signing");
        format!("{signing_input}.{}", B64.encode(signature))
    }

    /// An access token for `sub` in `groups`, as Cognito's look: `client_id` (no `aud`),
    /// `scope`, `cognito:groups`, valid for [`TOKEN_SECONDS`] from `now`.
    pub fn access_token(&self, sub: &str, groups: &[&str], scope: &str, now: i64) -> String {
        let mut claims = json!({
            "iss": ISSUER,
            "sub": sub,
            "client_id": AUDIENCE,
            "token_use": "access",
            "scope": scope,
            "username": sub,
            "iat": now,
            "auth_time": now,
            "exp": now + TOKEN_SECONDS,
            "jti": ulid_like(now),
        });
        if !groups.is_empty() {
            claims["cognito:groups"] = json!(groups);
        }
        self.sign(&claims)
    }
}

fn ulid_like(now: i64) -> String {
    let mut bytes = [0u8; 10];
    aws_lc_rs::rand::fill(&mut bytes).expect("random bytes");
    format!("{now:x}-{}", B64.encode(bytes))
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::{io::Write, os::unix::fs::OpenOptionsExt};
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

/// What the authorizer is configured with: the issuer's keys, `iss`, the audiences.
pub struct Authorizer {
    keys: BTreeMap<String, RsaPublicKeyComponents<Vec<u8>>>,
    issuer: String,
    audiences: Vec<String>,
}

/// Why a token was refused: the `error_description` API Gateway puts in `www-authenticate`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub &'static str);

/// What API Gateway passes to the function for an accepted token.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// Every claim, flattened to a string.
    pub claims: Map<String, Value>,
    pub scopes: Option<Vec<String>>,
}

impl Authorizer {
    /// An authorizer trusting `jwks` (a JWKS document) for tokens of `issuer` and `audiences`.
    pub fn new(jwks: &Value, issuer: &str, audiences: &[&str]) -> Authorizer {
        let keys = jwks["keys"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|k| k["kty"] == "RSA")
            .filter_map(|k| {
                let n = B64.decode(k["n"].as_str()?).ok()?;
                let e = B64.decode(k["e"].as_str()?).ok()?;
                Some((
                    k["kid"].as_str()?.to_owned(),
                    RsaPublicKeyComponents { n, e },
                ))
            })
            .collect();
        Authorizer {
            keys,
            issuer: issuer.to_owned(),
            audiences: audiences.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    /// Checks the identity source's value (`Authorization`: the token, or `Bearer <token>`) as
    /// API Gateway does, at `now` (epoch seconds), for a route requiring one of `scopes`.
    pub fn check(
        &self,
        authorization: Option<&str>,
        scopes: &[String],
        now: i64,
    ) -> Result<Accepted, Refused> {
        let value = authorization.map(str::trim).filter(|v| !v.is_empty());
        let value = value.ok_or(Refused("the token is missing"))?;
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => value,
        };
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Refused("the token is not a JWT"));
        };
        let decode = |part: &str| -> Result<Value, Refused> {
            let bytes = B64
                .decode(part)
                .map_err(|_| Refused("the token is not a JWT"))?;
            serde_json::from_slice(&bytes).map_err(|_| Refused("the token is not a JWT"))
        };
        let header = decode(header)?;
        let algorithm: &signature::RsaParameters = match header["alg"].as_str() {
            Some("RS256") => &signature::RSA_PKCS1_2048_8192_SHA256,
            Some("RS384") => &signature::RSA_PKCS1_2048_8192_SHA384,
            Some("RS512") => &signature::RSA_PKCS1_2048_8192_SHA512,
            _ => return Err(Refused("the token's algorithm is not supported")),
        };
        let key = header["kid"]
            .as_str()
            .and_then(|kid| self.keys.get(kid))
            .ok_or(Refused("the token's signing key is not the issuer's"))?;
        let sig = B64
            .decode(sig)
            .map_err(|_| Refused("the token is not a JWT"))?;
        let signing_input = &token[..header_and_payload_len(token)];
        key.verify(algorithm, signing_input.as_bytes(), &sig)
            .map_err(|_| Refused("the token's signature is not valid"))?;

        let claims = decode(payload)?;
        let claims = claims
            .as_object()
            .ok_or(Refused("the token is not a JWT"))?;
        if claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err(Refused("the token does not have a valid issuer"));
        }
        let listed = |v: Option<&Value>| -> Vec<String> {
            match v {
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            }
        };
        // `aud` when the token has one; only then `client_id`.
        let audience = match claims.get("aud") {
            Some(aud) => listed(Some(aud)),
            None => listed(claims.get("client_id")),
        };
        if !audience.iter().any(|a| self.audiences.contains(a)) {
            return Err(Refused("the token does not have a valid audience"));
        }
        let time = |name: &str| claims.get(name).and_then(Value::as_i64);
        match time("exp") {
            Some(exp) if exp > now => {}
            _ => return Err(Refused("the token has expired")),
        }
        if time("nbf").is_some_and(|nbf| nbf > now) {
            return Err(Refused("the token is not valid yet"));
        }
        if time("iat").is_some_and(|iat| iat > now) {
            return Err(Refused("the token was issued in the future"));
        }
        let token_scopes: Vec<String> = match claims.get("scope").or_else(|| claims.get("scp")) {
            Some(Value::String(s)) => s.split_whitespace().map(str::to_owned).collect(),
            other => listed(other),
        };
        if !scopes.is_empty() && !scopes.iter().any(|s| token_scopes.contains(s)) {
            return Err(Refused("the token does not have a required scope"));
        }
        Ok(Accepted {
            claims: claims
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(flatten(v))))
                .collect(),
            scopes: (!token_scopes.is_empty()).then_some(token_scopes),
        })
    }
}

fn header_and_payload_len(token: &str) -> usize {
    token.rfind('.').unwrap_or(token.len())
}

/// A claim as API Gateway passes it to the function: text as is, numbers and booleans as text,
/// a list as `[a b]`, an object as JSON.
fn flatten(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(flatten).collect::<Vec<_>>().join(" ")
        ),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_860_000;
    const SCOPE: &str = "aws.cognito.signin.user.admin";

    fn setup() -> (Issuer, Authorizer) {
        let issuer = Issuer::ephemeral();
        let authorizer = Authorizer::new(&issuer.jwks(), ISSUER, &[AUDIENCE]);
        (issuer, authorizer)
    }

    fn claims() -> Value {
        json!({ "iss": ISSUER, "sub": "123", "client_id": AUDIENCE, "scope": SCOPE,
                "iat": NOW - 10, "exp": NOW + 600, "cognito:groups": ["staff", "x"] })
    }

    #[test]
    fn a_good_token_passes_with_its_claims_flattened_as_api_gateway_does() {
        let (issuer, authorizer) = setup();
        let token = issuer.sign(&claims());
        let ok = authorizer
            .check(Some(&format!("Bearer {token}")), &[SCOPE.into()], NOW)
            .unwrap();
        assert_eq!(ok.claims["sub"], "123");
        assert_eq!(ok.claims["cognito:groups"], "[staff x]");
        assert_eq!(ok.claims["exp"], (NOW + 600).to_string());
        assert_eq!(ok.scopes, Some(vec![SCOPE.to_owned()]));
        // The bare token is accepted too.
        assert!(authorizer.check(Some(&token), &[SCOPE.into()], NOW).is_ok());
    }

    #[test]
    fn every_way_a_token_can_be_wrong_is_refused() {
        let (issuer, authorizer) = setup();
        let (other, _) = setup();
        let with = |k: &str, v: Value| {
            let mut c = claims();
            c[k] = v;
            c
        };
        let without = |k: &str| {
            let mut c = claims();
            c.as_object_mut().unwrap().remove(k);
            c
        };
        let good = issuer.sign(&claims());
        let mut tampered = good.clone();
        let at = good.find('.').unwrap() + 3;
        tampered.replace_range(at..at + 1, if &good[at..at + 1] == "A" { "B" } else { "A" });
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "the token is missing"),
            ("Bearer not.a.jwt".into(), "the token is not a JWT"),
            (
                issuer.sign(&with("exp", json!(NOW - 1))),
                "the token has expired",
            ),
            (issuer.sign(&without("exp")), "the token has expired"),
            (
                issuer.sign(&with("nbf", json!(NOW + 60))),
                "the token is not valid yet",
            ),
            (
                issuer.sign(&with("iss", json!("https://evil.example"))),
                "the token does not have a valid issuer",
            ),
            (
                issuer.sign(&with("client_id", json!("other-app"))),
                "the token does not have a valid audience",
            ),
            // `aud` wins over `client_id`.
            (
                issuer.sign(&with("aud", json!("other-app"))),
                "the token does not have a valid audience",
            ),
            (
                issuer.sign(&with("scope", json!("openid email"))),
                "the token does not have a required scope",
            ),
            (
                issuer.sign(&without("scope")),
                "the token does not have a required scope",
            ),
            (
                other.sign(&claims()),
                "the token's signing key is not the issuer's",
            ),
            (tampered, "the token's signature is not valid"),
        ];
        for (token, why) in cases {
            let got = authorizer.check(Some(&token), &[SCOPE.into()], NOW);
            assert_eq!(got, Err(Refused(why)), "{token:.40}");
        }
        // `aud` alone is fine, and a route without scopes takes a token without them.
        let aud = with("aud", json!([AUDIENCE]));
        assert!(
            authorizer
                .check(Some(&issuer.sign(&aud)), &[SCOPE.into()], NOW)
                .is_ok()
        );
        assert!(
            authorizer
                .check(Some(&issuer.sign(&without("scope"))), &[], NOW)
                .is_ok()
        );
    }

    #[test]
    fn an_unsigned_token_is_refused() {
        let (_, authorizer) = setup();
        let none = format!(
            "{}.{}.",
            B64.encode(r#"{"alg":"none"}"#),
            B64.encode(claims().to_string())
        );
        assert_eq!(
            authorizer.check(Some(&none), &[], NOW),
            Err(Refused("the token's algorithm is not supported"))
        );
    }

    #[test]
    fn the_issuer_keeps_its_key() {
        let dir = std::env::temp_dir().join(format!("issuer-{}", ulid_like(NOW)));
        let first = Issuer::open(&dir).unwrap();
        let again = Issuer::open(&dir).unwrap();
        assert_eq!(first.jwks(), again.jwks());
        let authorizer = Authorizer::new(&again.jwks(), ISSUER, &[AUDIENCE]);
        let token = first.access_token("123", &["staff"], SCOPE, NOW);
        let ok = authorizer
            .check(Some(&token), &[SCOPE.into()], NOW)
            .unwrap();
        assert_eq!(ok.claims["cognito:groups"], "[staff]");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
