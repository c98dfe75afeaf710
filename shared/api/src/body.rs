//! The JSON body of a request, and errors naming a body field.

use keys::KeyError;
use lambda_http::{Body, Request};
use serde::de::DeserializeOwned;

use crate::ApiError;

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
/// in one object is refused (`duplicate_field`): JSON parsers disagree on which one counts. What
/// `T` refuses is said in the API's words, naming the field ([`words`]).
pub fn json_body<T: DeserializeOwned>(req: &Request) -> Result<T, ApiError> {
    let bytes: &[u8] = match req.body() {
        Body::Empty => &[],
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "missing_body",
            "A JSON body is required.",
        ));
    }
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(
            413,
            "body_too_large",
            format!("The body is larger than {MAX_BODY_BYTES} bytes."),
        ));
    }
    let value = unique::parse(bytes)?;
    if !value.is_object() {
        return Err(ApiError::bad_request(
            "invalid_body",
            "The body must be a JSON object.",
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        ApiError::bad_request(
            "invalid_body",
            format!(
                "The body does not fit this request: {}",
                words::reason(&field, &e.inner().to_string())
            ),
        )
    })
}

/// A text field of the body, trimmed, which must hold 1 to `max` characters; else a 400
/// `invalid_body` naming the field (`name: give 1 to 200 characters`).
pub fn text_field<'a>(name: &str, value: &'a str, max: usize) -> Result<&'a str, ApiError> {
    let text = value.trim();
    if text.is_empty() || text.chars().count() > max {
        let message = format!("{name}: give 1 to {max} characters");
        return Err(ApiError::bad_request("invalid_body", message));
    }
    Ok(text)
}

/// A key error on a body field.
pub fn invalid_field(name: &str, e: KeyError) -> ApiError {
    ApiError::bad_request("invalid_body", format!("{name}: {e}"))
}

/// A body field parsed by a key type's own parser: a value it refuses is a 400 naming the field.
pub fn field<T>(name: &str, parsed: Result<T, KeyError>) -> Result<T, ApiError> {
    parsed.map_err(|e| invalid_field(name, e))
}
