//! What serde says of a body it refuses (`invalid type: string "x", expected u32`, ``missing field
//! `email` ``), said in the API's words: the field, what it was given, what it accepts.

/// The reason a body's `field` (serde_path_to_error's path: `items[0].sku`, `.` for the body
/// itself) was refused, from serde's `message`.
pub(super) fn reason(field: &str, message: &str) -> String {
    let field = if field == "." { "" } else { field };
    let member = |name: &str| {
        if field.is_empty() {
            name.to_owned()
        } else {
            format!("{field}.{name}")
        }
    };
    if let Some(name) = quoted_after(message, "missing field ") {
        return format!("{} is required.", member(name));
    }
    if let Some(name) = quoted_after(message, "unknown field ") {
        // The path already ends in the unknown field (`items[0].y`): name it once.
        let unknown = if field.is_empty() { name } else { field };
        let known = names_after(message);
        return match known.is_empty() {
            true => format!("{unknown} is not a field here; this object takes none."),
            false => format!(
                "{unknown} is not a field here; the fields are {}.",
                known.join(", ")
            ),
        };
    }
    if let Some(value) = quoted_after(message, "unknown variant ") {
        return format!(
            "{field}: {value:?} is not one of {}.",
            names_after(message).join(", ")
        );
    }
    for kind in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(kind)
            && let Some((given, expected)) = rest.rsplit_once(", expected ")
        {
            return format!(
                "{field}: {} is not {}.",
                given_value(given),
                accepted(expected)
            );
        }
    }
    if message.starts_with("invalid length ") {
        return format!("{field}: a list of the wrong length.");
    }
    // The type's own words (a key type's parser, a custom deserializer).
    match field.is_empty() {
        true => message.to_owned(),
        false => format!("{field}: {message}"),
    }
}

/// The first `` `name` `` after `prefix`, when `message` starts with it.
fn quoted_after<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    let rest = message.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.split_once('`').map(|(name, _)| name)
}

/// The `` `names` `` serde lists after "expected" (`one of `a`, `b``, `` `a` or `b` ``).
fn names_after(message: &str) -> Vec<&str> {
    message
        .split_once("expected ")
        .map(|(_, listed)| listed.split('`').skip(1).step_by(2).collect())
        .unwrap_or_default()
}

/// The value serde was given, as JSON: `string "x"` → `"x"`, ``integer `-1` `` → `-1`.
fn given_value(given: &str) -> String {
    let ticked = given.split('`').nth(1);
    match given {
        g if g.starts_with("string ") => g["string ".len()..].to_owned(),
        "null" | "unit value" => "null".into(),
        "sequence" => "a list".into(),
        "map" => "an object".into(),
        _ => ticked.unwrap_or(given).to_owned(),
    }
}

/// What a Rust type accepts, in JSON's words. A field with a range of its own is an
/// [`crate::Bounded`], which says that range ("a whole number from 1 to 10000", passed through
/// here as it is); these are the ranges of the plain types, for a field that takes all of one.
fn accepted(expected: &str) -> String {
    let whole = |min: &str, max: &str| format!("a whole number from {min} to {max}");
    match expected {
        "u8" => whole("0", "255"),
        "u16" => whole("0", "65535"),
        "u32" => whole("0", "4294967295"),
        "u64" | "usize" => "a whole number, 0 or more".into(),
        "i8" => whole("-128", "127"),
        "i16" => whole("-32768", "32767"),
        "i32" => whole("-2147483648", "2147483647"),
        "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" | "a borrowed string" | "a character" => "a string".into(),
        "a sequence" => "a list".into(),
        "a map" => "an object".into(),
        e if e.starts_with("struct ") => "an object".into(),
        e if e.starts_with("tuple") || e.starts_with("a tuple") => "a list".into(),
        e if e.starts_with("enum ") || e.starts_with("variant ") => {
            "one of the listed values".into()
        }
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::reason;

    /// Through serde_path_to_error, whose path names the unknown field itself.
    #[test]
    fn an_unknown_field_is_named_once() {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Line {
            #[serde(rename = "sku")]
            _sku: String,
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Order {
            #[serde(rename = "items")]
            _items: Vec<Line>,
        }
        let said = |json: serde_json::Value| {
            let Err(e) = serde_path_to_error::deserialize::<_, Order>(json) else {
                panic!("accepted");
            };
            reason(&e.path().to_string(), &e.inner().to_string())
        };
        assert_eq!(
            said(serde_json::json!({"items": [], "x": 1})),
            "x is not a field here; the fields are items."
        );
        assert_eq!(
            said(serde_json::json!({"items": [{"sku": "a", "y": 1}]})),
            "items[0].y is not a field here; the fields are sku."
        );
    }

    #[test]
    fn serde_said_in_the_apis_words() {
        let cases = [
            (
                "items[0].quantity",
                "invalid type: string \"x\", expected a whole number from 1 to 10000",
                "items[0].quantity: \"x\" is not a whole number from 1 to 10000.",
            ),
            (
                "items[0].quantity",
                "invalid value: integer `-1`, expected a whole number from 1 to 10000",
                "items[0].quantity: -1 is not a whole number from 1 to 10000.",
            ),
            (
                "version",
                "invalid value: integer `-1`, expected u64",
                "version: -1 is not a whole number, 0 or more.",
            ),
            (
                "grade",
                "invalid type: floating point `1.5`, expected i64",
                "grade: 1.5 is not a whole number.",
            ),
            (".", "missing field `email`", "email is required."),
            (
                "items[0]",
                "missing field `sku`",
                "items[0].sku is required.",
            ),
            (
                ".",
                "unknown field `x`, expected `name` or `email`",
                "x is not a field here; the fields are name, email.",
            ),
            (
                ".",
                "unknown field `x`, there are no fields",
                "x is not a field here; this object takes none.",
            ),
            (
                "status",
                "unknown variant `processing`, expected one of `OPEN`, `SHIPPED`",
                "status: \"processing\" is not one of OPEN, SHIPPED.",
            ),
            (
                "items",
                "invalid type: map, expected a sequence",
                "items: an object is not a list.",
            ),
            (
                "name",
                "invalid type: null, expected a string",
                "name: null is not a string.",
            ),
            (
                "note",
                "invalid type: boolean `true`, expected a string",
                "note: true is not a string.",
            ),
            (
                "items[0]",
                "invalid type: sequence, expected struct Line",
                "items[0]: a list is not an object.",
            ),
            (
                "sku",
                "\"0\" is not a SKU (an integer from 1 to 999999999999, no leading zeros)",
                "sku: \"0\" is not a SKU (an integer from 1 to 999999999999, no leading zeros)",
            ),
        ];
        for (field, serde, ours) in cases {
            assert_eq!(reason(field, serde), ours, "{serde}");
        }
    }
}
