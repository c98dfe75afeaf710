//! The text rule ([`keys::unicode`]) held to a whole request before its handler reads any of it:
//! every path and query parameter ([`parameters`], in [`dispatch`](crate::dispatch)) and every
//! string of a JSON body, member names too ([`body`], in [`json_body`](crate::json_body)). A
//! field added to a route cannot skip it. Body text is NFC from here on: what is stored is one
//! string for what is canonically one text.

use crate::Common;
use keys::unicode::{self, Lines};
use lambda_http::{Request, RequestExt};
use serde_json::Value;

use crate::ApiError;

/// Every path and query parameter holds one line of text the rule accepts, and so does every
/// query parameter's name (a route ignores names it does not take, but a name is text a log or a
/// proxy shows); else a 400 `invalid_parameter` naming the parameter and the character.
pub fn parameters(req: &Request) -> Result<(), ApiError> {
    let path = req.path_parameters();
    let query = req.query_string_parameters();
    for (name, _) in query.iter() {
        if let Some(found) = unicode::refused(name, Lines::One) {
            return Err(Common::InvalidParameter.because(format!(
                "a query parameter's name {}",
                unicode::refusal(found)
            )));
        }
    }
    for (name, value) in path.iter().chain(query.iter()) {
        if let Some(found) = unicode::refused(value, Lines::One) {
            return Err(
                Common::InvalidParameter.because(format!("{name} {}", unicode::refusal(found)))
            );
        }
    }
    Ok(())
}

/// Every string of `value` (a body) held to the rule, one line each but in the top-level members
/// named in `keeping_lines`, and made NFC; else a 400 `invalid_body` naming the member as the
/// body's other errors do (`items[0].note`).
pub(crate) fn body(value: &mut Value, keeping_lines: &[&str]) -> Result<(), ApiError> {
    walk(value, "", Lines::One, keeping_lines)
}

fn walk(value: &mut Value, at: &str, lines: Lines, keeping: &[&str]) -> Result<(), ApiError> {
    let refused = |at: &str, text: &str, lines| {
        unicode::refused(text, lines).map_or(Ok(()), |found| {
            let what = if at.is_empty() { "the body" } else { at };
            Err(Common::InvalidBody.because(format!("{what} {}", unicode::refusal(found))))
        })
    };
    match value {
        Value::String(text) => {
            refused(at, text, lines)?;
            if let std::borrow::Cow::Owned(nfc) = unicode::nfc(text) {
                *text = nfc;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                walk(item, &format!("{at}[{i}]"), lines, keeping)?;
            }
        }
        Value::Object(members) => {
            for (name, member) in members.iter_mut() {
                let path = match at {
                    "" => name.clone(),
                    _ => format!("{at}.{name}"),
                };
                refused(&path, name, Lines::One)?;
                let lines = match at.is_empty() && keeping.contains(&name.as_str()) {
                    true => Lines::Many,
                    false => lines,
                };
                walk(member, &path, lines, keeping)?;
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn every_parameter_is_held_to_the_rule() {
        let with = |path: &[(&str, &str)], query: &[(&str, &str)]| {
            let map = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            };
            Request::default()
                .with_path_parameters(map(path))
                .with_query_string_parameters(map(query))
        };
        assert!(parameters(&with(&[("course", "Intro to DynamoDB")], &[("limit", "5")])).is_ok());
        for (req, message) in [
            (
                with(&[("course", "Intro\u{200B}")], &[]),
                "course holds the invisible or control character U+200B; remove it",
            ),
            (
                with(&[], &[("location", "Building\u{3164}")]),
                "location holds the invisible or control character U+3164; remove it",
            ),
            (
                with(&[], &[("name", "Zo\u{EB}\nQuist")]),
                "name holds a line break or tab (U+000A); give it on one line",
            ),
        ] {
            let e = parameters(&req).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), ("invalid_parameter", message));
        }
    }

    fn with_query(pairs: &[(&str, &str)]) -> Request {
        let query: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Request::default().with_query_string_parameters(query)
    }

    #[test]
    fn a_query_parameters_name_is_held_to_the_rule_too() {
        assert!(parameters(&with_query(&[("limit", "5"), ("_", "1765000000")])).is_ok());
        for name in ["li\u{200B}mit", "a\u{202E}b", "x\u{0}"] {
            let e = parameters(&with_query(&[(name, "5")])).unwrap_err();
            assert_eq!((e.status, e.code), (400, "invalid_parameter"), "{name:?}");
            assert!(
                e.message.starts_with("a query parameter's name holds"),
                "{}",
                e.message
            );
        }
    }
}
