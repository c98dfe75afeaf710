//! The two kinds of values a key is made of: identifiers, which are validated and used as they
//! are, and free text, which is normalised and escaped.

use std::{borrow::Cow, fmt};

use crate::{
    KeyError, Segment,
    unicode::{self, Lines},
};

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
    const SEG: crate::shape::Seg = crate::shape::Seg::Id;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}

crate::serde_as_string!(Id, |s: &str| Id::parse("id", s));

/// Free text that takes part in a key (a course name, a location, a person's name).
///
/// Held to the text rule ([`unicode::refused`]), normalised as Walch's talk asks (lower case, no
/// whitespace) so that "Intro to DynamoDB" and "intro to  dynamodb" are the same key, with case
/// folded and Unicode forms made one ([`unicode::fold`]: "José" precomposed or decomposed is one
/// key), then escaped so that it never contains the delimiter.
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
        if let Some(found) = unicode::refused(value, Lines::One) {
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
    const SEG: crate::shape::Seg = crate::shape::Seg::Text;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}

/// The casing and spacing rule of Walch's talk, on Unicode: case folded, one form for each
/// character ([`unicode::fold`]), whitespace removed.
pub fn normalize(value: &str) -> String {
    let joined: String = unicode::fold(value)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    // Without its space a mark can meet the letter it composes with (`a ¨` is `a` `\u{308}`).
    unicode::fold(&joined)
}

/// Text as it is shown: NFC, whitespace collapsed to single spaces.
pub(crate) fn shown(value: &str) -> String {
    unicode::nfc(value)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
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

    /// The tester's two certificates of one student, and two employees of one name: the same
    /// name in two Unicode forms (precomposed and decomposed, full-width, ligature, final sigma,
    /// sharp s) is one key; and one display form.
    #[test]
    fn one_name_is_one_key_whatever_its_unicode_form() {
        let key = |s: &str| Text::parse("student", s).unwrap().as_key().to_owned();
        let same = [
            ("Jos\u{E9} Ortega", "Jose\u{301} Ortega"),
            ("Zo\u{EB} Quist", "Zoe\u{308} Quist"),
            ("\u{FF24}\u{FF41}\u{FF56}\u{FF49}\u{FF44}", "David"),
            ("\u{FB01}nance", "Finance"),
            (
                "\u{39F}\u{394}\u{3A5}\u{3A3}\u{3A3}\u{395}\u{3A5}\u{3A3}",
                "\u{3BF}\u{3B4}\u{3C5}\u{3C3}\u{3C3}\u{3B5}\u{3C5}\u{3C2}",
            ),
            ("Stra\u{DF}e", "STRASSE"),
            ("\u{212B}ngstr\u{F6}m", "\u{C5}ngstro\u{308}m"),
        ];
        for (a, b) in same {
            assert_eq!(key(a), key(b), "{a:?} and {b:?}");
        }
        assert_eq!(key("Jose\u{301} Ortega"), "jos\u{E9}ortega");
        assert_ne!(key("Jos\u{E9} Ortega"), key("Jose Ortega"));
        assert_eq!(
            Name::parse("student", "Jose\u{301}  Ortega")
                .unwrap()
                .as_str(),
            "Jos\u{E9} Ortega"
        );
    }

    /// Characters that draw nothing although their category is a letter or a symbol (Hangul
    /// fillers, the blank braille pattern), and Unicode's other default-ignorable code points.
    #[test]
    fn fillers_and_default_ignorables_are_refused() {
        for c in [
            '\u{3164}',
            '\u{115F}',
            '\u{1160}',
            '\u{FFA0}',
            '\u{2800}',
            '\u{1D159}',
            '\u{034F}',
            '\u{180E}',
            '\u{2060}',
            '\u{E0041}',
            '\u{1D173}',
            '\u{17B4}',
            '\u{2028}',
            '\u{2029}',
            '\u{FDD0}',
            '\u{FFFF}',
        ] {
            for text in [format!("Ann{c}"), format!("{c}"), format!("A{c}nn")] {
                assert_eq!(
                    Text::parse("student", &text),
                    Err(KeyError::InvisibleCharacter {
                        what: "student",
                        found: c
                    }),
                    "{text:?}"
                );
            }
        }
    }

    /// Where Unicode forms and cases part: precomposed and decomposed letters, compatibility
    /// forms (full-width, ligatures, Kelvin and Ångström signs, superscripts), the letters whose
    /// full case folding is not their lower case (`ß`, `ς`, `ǅ`, `İ`), U+0345, spaces of several
    /// kinds, a joiner and a selector, the delimiter and the escape character.
    const UNICODE_PIECES: &[&str] = &[
        "a",
        "A",
        "e",
        "E",
        "\u{E9}",
        "e\u{301}",
        "\u{C9}",
        "E\u{301}",
        "\u{301}",
        "\u{308}",
        "\u{A8}",
        "\u{DF}",
        "\u{1E9E}",
        "ss",
        "S",
        "\u{3C3}",
        "\u{3C2}",
        "\u{3A3}",
        "\u{3B1}",
        "\u{345}",
        "\u{1FB3}",
        "\u{1FBC}",
        "\u{399}",
        "\u{FB01}",
        "fi",
        "\u{FF21}",
        "\u{FF41}",
        "\u{212A}",
        "k",
        "\u{212B}",
        "\u{C5}",
        "\u{E5}",
        "\u{B2}",
        "2",
        "\u{1C5}",
        "\u{1C4}",
        "\u{1C6}",
        "\u{130}",
        "i",
        "I",
        "\u{131}",
        "\u{307}",
        " ",
        "\u{A0}",
        "\u{3000}",
        "\u{200D}",
        "\u{FE0F}",
        "\u{2764}",
        "#",
        "%",
        ".",
        "\u{FF03}",
        "\u{FF05}",
        "\u{2024}",
        // Where the text rule's places for joiners and selectors part: a Mongolian letter and
        // its selector, a Han ideograph and its, ZWNJ, a private-use character.
        "\u{1820}",
        "\u{180B}",
        "\u{674E}",
        "\u{E0100}",
        "\u{200C}",
        "\u{E000}",
    ];

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

        /// Two texts make the same key exactly when Unicode calls them the same up to case,
        /// compatibility forms and whitespace (its compatibility caseless match, D146, computed
        /// by another crate's route through NFD and NFKD): equal after normalisation, one key;
        /// different, two keys. The pieces are the characters where forms and cases part.
        #[test]
        fn one_key_exactly_for_text_unicode_calls_the_same(
            a in proptest::collection::vec(proptest::sample::select(UNICODE_PIECES), 0..7),
            b in proptest::collection::vec(proptest::sample::select(UNICODE_PIECES), 0..7),
        ) {
            use unicode_normalization::UnicodeNormalization;
            let unicode_form = |s: &str| -> String {
                let matched: String = caseless::Caseless::default_case_fold(
                    caseless::Caseless::default_case_fold(s.nfd()).nfkd(),
                )
                .nfkd()
                .filter(|c| !c.is_whitespace() && !matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE0F}' | '\u{180B}' | '\u{E0100}'))
                .collect();
                matched.nfkd().collect()
            };
            let (a, b) = (a.concat(), b.concat());
            let (ka, kb) = (Text::parse("t", &a), Text::parse("t", &b));
            match (&ka, &kb) {
                (Ok(ka), Ok(kb)) => prop_assert_eq!(ka == kb, unicode_form(&a) == unicode_form(&b)),
                // Only the text rule refuses one form of a text and not another: a joiner or a
                // selector out of place is refused in any form.
                (Ok(_), Err(e)) | (Err(e), Ok(_)) if unicode_form(&a) == unicode_form(&b) => {
                    prop_assert!(matches!(e, KeyError::InvisibleCharacter { .. }), "{:?}", e)
                }
                _ => {}
            }
            if let Ok(k) = &ka {
                // The key form is a fixed point: a path may name a text by its key.
                prop_assert!(Text::is_key_form(k.as_key()), "{:?}", k);
                prop_assert_eq!(&Text::parse("t", &unescape(k.as_key()).unwrap()).unwrap(), k);
                prop_assert_eq!(Text::parse("t", &a.nfd().collect::<String>()).unwrap(), k.clone());
                prop_assert_eq!(unicode::refused(k.as_key(), Lines::One), None);
            }
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

/// Free text as given (`David Spurdy`, `Sales Representative`), NFC, whitespace collapsed,
/// checked once so that it can be keyed: at least one non-blank character, at most
/// [`MAX_TEXT_LEN`], nothing the text rule refuses. Its key form is [`Name::key`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name(String);

impl Name {
    pub fn parse(what: &'static str, value: &str) -> Result<Name, KeyError> {
        Text::parse(what, value)?;
        Ok(Name(shown(value)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key form: the normalisation of Walch's talk (case folded, no whitespace), escaped.
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
