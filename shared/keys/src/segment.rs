//! The two kinds of values a key is made of: identifiers, which are validated and used as they
//! are, and free text, which is normalised and escaped.

use std::{borrow::Cow, fmt};

use crate::{KeyError, Segment};

/// Longest identifier accepted. DynamoDB allows 2048 bytes for a partition key and 1024 for a sort
/// key; composite keys hold several identifiers plus prefixes, so 64 leaves ample room.
pub const MAX_ID_LEN: usize = 64;

/// Longest free-text value accepted in a key (before escaping).
pub const MAX_TEXT_LEN: usize = 128;

/// An identifier chosen by a client (customer id, cart id, product id, username, ...).
///
/// Only ASCII letters, digits, `-`, `_` and `.` are accepted, so an identifier can never carry the
/// delimiter, the escape character, or anything that sorts or compares surprisingly. Case is kept:
/// `Alice` and `alice` are two identifiers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(String);

impl Id {
    /// Validates `value` as an identifier; `what` names it in the error.
    pub fn parse(what: &'static str, value: &str) -> Result<Id, KeyError> {
        if value.is_empty() {
            return Err(KeyError::Empty { what });
        }
        if value.chars().count() > MAX_ID_LEN {
            return Err(KeyError::TooLong {
                what,
                max: MAX_ID_LEN,
            });
        }
        if let Some(found) = value
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return Err(KeyError::InvalidCharacter { what, found });
        }
        if value == "." || value == ".." {
            return Err(KeyError::DotSegment { what });
        }
        Ok(Id(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Segment for Id {
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}

crate::serde_as_string!(Id, |s: &str| Id::parse("id", s));

/// Free text that takes part in a key (a course name, a location, a person's name).
///
/// Normalised as Walch's talk asks (lower case, no whitespace) so that "Intro to DynamoDB" and
/// "intro to  dynamodb" are the same key, then escaped so that it never contains the delimiter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Text(String);

impl Text {
    pub fn parse(what: &'static str, value: &str) -> Result<Text, KeyError> {
        if value.chars().count() > MAX_TEXT_LEN {
            return Err(KeyError::TooLong {
                what,
                max: MAX_TEXT_LEN,
            });
        }
        if let Some(found) = value.chars().find(|c| invisible(*c)) {
            return Err(KeyError::InvisibleCharacter { what, found });
        }
        let normalized = normalize(value);
        if normalized.is_empty() {
            return Err(KeyError::Empty { what });
        }
        if normalized == "." || normalized == ".." {
            return Err(KeyError::DotSegment { what });
        }
        Ok(Text(escape(&normalized)))
    }

    /// The key form: normalised and escaped.
    pub fn as_key(&self) -> &str {
        &self.0
    }

    /// Whether `s` is a key form [`Text::parse`] makes: non-empty, normalised (no whitespace, no
    /// upper case) and escaped.
    pub fn is_key_form(s: &str) -> bool {
        !s.is_empty() && unescape(s).is_some_and(|raw| escape(&normalize(&raw)) == s)
    }
}

impl Segment for Text {
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}

/// Whether `c` shows nothing or controls the text around it: Unicode's format (Cf: zero-width
/// spaces and joiners, U+FEFF, bidirectional overrides) and control (Cc) characters. Free text
/// holding one is refused: `Ann` and `A\u{200B}nn` look the same and would be two keys.
pub fn invisible(c: char) -> bool {
    use unicode_general_category::{GeneralCategory, get_general_category};
    matches!(
        get_general_category(c),
        GeneralCategory::Format | GeneralCategory::Control
    )
}

/// The casing and spacing rule of Walch's talk: lower case, whitespace removed.
pub fn normalize(value: &str) -> String {
    value
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Escapes the delimiter and the escape character itself (`#` → `%23`, `%` → `%25`).
///
/// Injective, and the result never contains `#`: escaped text can neither end a segment early nor
/// make two different values into one key.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// The inverse of [`escape`]; `None` for a string `escape` cannot have produced.
pub fn unescape(value: &str) -> Option<String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(pos) = rest.find(['%', '#']) {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if tail.starts_with("%25") {
            out.push('%');
        } else if tail.starts_with("%23") {
            out.push('#');
        } else {
            return None;
        }
        rest = &tail[3..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ids_reject_the_delimiter_and_anything_outside_the_charset() {
        assert!(Id::parse("id", "abc-123_X.y").is_ok());
        for bad in ["a#b", "#", "a%b", "a b", "a/b", "é", "a\u{0}"] {
            assert!(
                matches!(Id::parse("id", bad), Err(KeyError::InvalidCharacter { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(Id::parse("id", ""), Err(KeyError::Empty { what: "id" }));
        assert!(Id::parse("id", &"a".repeat(MAX_ID_LEN)).is_ok());
        assert!(matches!(
            Id::parse("id", &"a".repeat(MAX_ID_LEN + 1)),
            Err(KeyError::TooLong { .. })
        ));
    }

    #[test]
    fn text_is_normalised_as_seed_001_shows() {
        assert_eq!(
            Text::parse("courseName", "Intro to DynamoDB")
                .unwrap()
                .as_key(),
            "introtodynamodb"
        );
        assert_eq!(
            Text::parse("student", "David Spurdy").unwrap().as_key(),
            "davidspurdy"
        );
        assert_eq!(Text::parse("x", "A#B").unwrap().as_key(), "a%23b");
        assert!(Text::parse("x", " \t ").is_err());
    }

    #[test]
    fn what_a_url_or_an_eye_cannot_tell_apart_is_refused() {
        for dots in [".", ".."] {
            assert_eq!(
                Id::parse("customerId", dots),
                Err(KeyError::DotSegment { what: "customerId" })
            );
        }
        assert!(Id::parse("id", "...").is_ok());
        assert!(Id::parse("id", ".a").is_ok());
        for bad in [
            "A\u{200B}nn",
            "\u{FEFF}Ann",
            "Ann\u{202E}",
            "An\u{0007}n",
            "A\u{00AD}nn",
        ] {
            let found = bad.chars().find(|c| !c.is_ascii_alphanumeric()).unwrap();
            assert_eq!(
                Text::parse("student", bad),
                Err(KeyError::InvisibleCharacter {
                    what: "student",
                    found
                }),
                "{bad:?}"
            );
        }
        assert!(Text::parse("student", "Zoë Łukasz 李").is_ok());
        assert_eq!(
            Text::parse("courseName", " .. "),
            Err(KeyError::DotSegment { what: "courseName" })
        );
        let message = Text::parse("student", "A\u{200B}nn")
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "student holds the invisible or control character U+200B; remove it"
        );
    }

    proptest! {
        #[test]
        fn escape_round_trips_and_never_yields_the_delimiter(s in ".*") {
            let e = escape(&s);
            prop_assert!(!e.contains('#'));
            prop_assert_eq!(unescape(&e), Some(s));
        }

        #[test]
        fn escape_is_injective(a in "[a#%2-5]{0,8}", b in "[a#%2-5]{0,8}") {
            // A tiny alphabet made of the characters that could collide makes collisions likely
            // to be tried if they existed.
            prop_assert_eq!(escape(&a) == escape(&b), a == b);
        }

        #[test]
        fn ids_never_carry_the_delimiter(s in ".{1,80}") {
            if let Ok(id) = Id::parse("id", &s) {
                prop_assert!(!id.as_str().contains('#'));
                prop_assert!(!id.as_str().contains('%'));
            }
        }
    }
}

/// Free text as given (`David Spurdy`, `Sales Representative`), whitespace collapsed, checked
/// once so that it can be keyed: at least one non-blank character, at most [`MAX_TEXT_LEN`].
/// Its key form is [`Name::key`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name(String);

impl Name {
    pub fn parse(what: &'static str, value: &str) -> Result<Name, KeyError> {
        Text::parse(what, value)?;
        Ok(Name(value.split_whitespace().collect::<Vec<_>>().join(" ")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key form: the normalisation of Walch's talk (lower case, no whitespace), escaped.
    pub fn key(&self) -> Text {
        Text::parse("name", &self.0).expect("a Name is valid text")
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

crate::serde_as_string!(Name, |s: &str| Name::parse("name", s));
