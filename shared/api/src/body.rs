//! The JSON body of a request, and errors naming a body field.

use crate::Common;
use keys::KeyError;
use lambda_http::{Body, Request};
use serde::de::DeserializeOwned;

use crate::{ApiError, text};

mod unique;
mod words;

/// Largest request body accepted: bounding it bounds the work bad input can cause. Derived from
/// the largest valid body, a review of 5,000 characters (`put-review`) written the longest way
/// JSON allows: each character a UTF-16 surrogate pair escaped (`\ud83d\ude00`, 12 bytes), 60,000
/// bytes, plus its field names; `put-review`'s tests send exactly that.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The JSON body, which must be a JSON object, as `T`. Unknown fields, wrong types and missing
/// fields are refused by `T`'s serde rules (`deny_unknown_fields`); the message names the field.
/// Any other JSON value (`[5]`, `5`, `"x"`, `null`) is refused too: serde would otherwise fill a
/// struct from an array of its fields in order (`[5]` as `{"quantity": 5}`). A member named twice
/// in one object is refused (`duplicate_field`): JSON parsers disagree on which one counts. Every
/// string is held to the text rule, one line each, and read as NFC ([`text::body`]). What `T`
/// refuses is said in the API's words, naming the field ([`words`]).
pub fn json_body<T: DeserializeOwned>(req: &Request) -> Result<T, ApiError> {
    json_body_keeping_lines(req, &[])
}

/// [`json_body`], with the top-level members named in `keeping_lines` (a review's `text`) free to
/// hold line feeds and tabs; `openapi.yaml` marks those members `x-lines: true`.
pub fn json_body_keeping_lines<T: DeserializeOwned>(
    req: &Request,
    keeping_lines: &[&str],
) -> Result<T, ApiError> {
    let bytes: &[u8] = match req.body() {
        Body::Empty => &[],
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Common::MissingBody.because("A JSON body is required."));
    }
    if bytes.len() > MAX_BODY_BYTES {
        return Err(Common::BodyTooLarge
            .because(format!("The body is larger than {MAX_BODY_BYTES} bytes.")));
    }
    let mut value = unique::parse(bytes)?;
    if !value.is_object() {
        return Err(Common::InvalidBody.because("The body must be a JSON object."));
    }
    text::body(&mut value, keeping_lines)?;
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        Common::InvalidBody.because(format!(
            "The body does not fit this request: {}",
            words::reason(&field, &e.inner().to_string())
        ))
    })
}

/// For a member that may be left out but is never `null`: `#[serde(default, deserialize_with =
/// "api::not_null")]` on an `Option<T>`. Serde reads `null` as absent in an `Option`; where
/// absent means something (a `version` left out: write whatever the item is), a client's `null`
/// would mean it by accident. Called only for a member that is there, this reads it as a `T`,
/// which refuses `null` in the API's words (`version: null is not a whole number, 0 or more.`).
pub fn not_null<'de, D, T>(member: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(member).map(Some)
}

/// A text field of the body, trimmed, which must hold 1 to `max` characters; else a 400
/// `invalid_body` naming the field (`name: give 1 to 200 characters`).
pub fn text_field<'a>(name: &str, value: &'a str, max: usize) -> Result<&'a str, ApiError> {
    let text = value.trim();
    if text.is_empty() || text.chars().count() > max {
        let message = format!("{name}: give 1 to {max} characters");
        return Err(Common::InvalidBody.because(message));
    }
    Ok(text)
}

/// A key error on a body field.
pub fn invalid_field(name: &str, e: KeyError) -> ApiError {
    Common::InvalidBody.because(format!("{name}: {e}"))
}

/// A body field parsed by a key type's own parser: a value it refuses is a 400 naming the field.
pub fn field<T>(name: &str, parsed: Result<T, KeyError>) -> Result<T, ApiError> {
    parsed.map_err(|e| invalid_field(name, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Line {
        note: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sent {
        name: String,
        #[serde(default)]
        items: Vec<Line>,
        #[serde(default)]
        text: Option<String>,
    }

    fn request(body: serde_json::Value) -> Request {
        Request::new(Body::Text(body.to_string()))
    }

    /// The tester's strings, in a member, in a nested one, in any member: a 400 naming the
    /// member and the character, before the body's type reads it.
    #[test]
    fn every_string_of_a_body_is_held_to_the_text_rule() {
        let cases = [
            (
                serde_json::json!({"name": "Ann\u{202E}gnp.exe"}),
                "name",
                "U+202E",
            ),
            (serde_json::json!({"name": "\u{0}"}), "name", "U+0000"),
            (serde_json::json!({"name": "a\u{200B}b"}), "name", "U+200B"),
            (serde_json::json!({"name": "a\u{2028}b"}), "name", "U+2028"),
            (serde_json::json!({"name": "\u{3164}"}), "name", "U+3164"),
            (serde_json::json!({"name": "one\ntwo"}), "name", "U+000A"),
            (
                serde_json::json!({"name": "x", "items": [{"note": "ok"}, {"note": "a\u{FEFF}"}]}),
                "items[1].note",
                "U+FEFF",
            ),
            (
                serde_json::json!({"name": "x", "text": "a\r\nb"}),
                "text",
                "U+000D",
            ),
        ];
        for (body, field, code) in cases {
            let e = json_body::<Sent>(&request(body.clone())).unwrap_err();
            assert_eq!(e.code, "invalid_body", "{body}");
            assert!(
                e.message.contains(field) && e.message.contains(code),
                "{body}: {}",
                e.message
            );
        }
    }

    #[test]
    fn body_text_is_read_as_nfc() {
        let sent: Sent = json_body(&request(serde_json::json!({
            "name": "Jose\u{301} Ortega", "items": [{"note": "Zoe\u{308}"}]
        })))
        .unwrap();
        assert_eq!(sent.name, "Jos\u{E9} Ortega");
        assert_eq!(sent.items[0].note, "Zo\u{EB}");
    }

    /// A field that keeps lines keeps line feeds and tabs, and nothing else the rule refuses.
    #[test]
    fn only_the_fields_named_keep_lines() {
        let body = serde_json::json!({"name": "x", "text": "one\n\ttwo\n"});
        let sent: Sent = json_body_keeping_lines(&request(body.clone()), &["text"]).unwrap();
        assert_eq!(sent.text.as_deref(), Some("one\n\ttwo\n"));
        assert!(json_body::<Sent>(&request(body)).is_err());
        let body = serde_json::json!({"name": "a\nb", "text": "c"});
        let e = json_body_keeping_lines::<Sent>(&request(body), &["text"]).unwrap_err();
        assert!(e.message.contains("name"), "{}", e.message);
        let body = serde_json::json!({"name": "x", "text": "c\u{202E}"});
        assert!(json_body_keeping_lines::<Sent>(&request(body), &["text"]).is_err());
    }
}
