//! The text rule: what any text of a request may hold, and its two normal forms. Declared once
//! here; `api` applies [`refused`] to every path and query parameter and every string of a JSON
//! body, and key text ([`Text`](crate::Text)) applies it before [`fold`]ing.
//!
//! Refused everywhere: what shows nothing or controls the text around it. Control characters
//! (Cc; a line feed and a tab only where a field keeps lines, [`Lines::Many`]), format characters
//! (Cf: zero-width spaces, U+FEFF, bidirectional overrides), line and paragraph separators (Zl,
//! Zp), Unicode's default-ignorable code points (Hangul fillers, U+034F, tag characters...),
//! characters of a visible category that draw nothing (U+2800, U+1D159) and noncharacters.
//! Private-use and unassigned code points are refused too (they show whatever a font makes of
//! them, or nothing). Allowed in place only: the joiners U+200C and U+200D between two
//! characters they can join (Persian and Indic words, emoji sequences: never next to a cased
//! letter, such as Latin's, or an ASCII character, which no joiner changes), and a variation
//! selector right after a character it can select a glyph of (`❤️`; the Mongolian selectors after
//! a Mongolian letter, the ideographic ones after a Han ideograph, the others never after a cased
//! letter); anywhere else they hide text. A character carries at most [`MAX_MARKS`] combining
//! marks: real scripts stack a few, a "Zalgo" text hundreds.
//!
//! Normal forms: stored text is NFC ([`nfc`]), which changes nothing a reader sees and makes text
//! that is canonically the same one string; key text is NFKC with full case folding and without
//! default-ignorables ([`fold`], Unicode's NFKC_Casefold), so that a name is one key however it
//! was typed (precomposed or decomposed, full-width, a ligature, `ß` or `ss`, `ς` or `σ`).

use std::borrow::Cow;

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// Whether a text may hold line feeds and tabs (a review's text) or is one line (a name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    One,
    Many,
}

/// Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, unchanged since 6.0).
const DEFAULT_IGNORABLE: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{17B4}', '\u{17B5}'),
    ('\u{180B}', '\u{180F}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{206F}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF0}', '\u{FFF8}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0000}', '\u{E0FFF}'),
];

/// Characters whose category is visible (So) that draw nothing: the blank braille pattern and
/// the null notehead, the usual "invisible" user names.
const BLANK: &[char] = &['\u{2800}', '\u{1D159}'];

/// The most combining marks (nonspacing or enclosing) in a row: a Vietnamese, Hebrew or Tibetan
/// letter takes up to about five; more only stacks marks over the lines around it.
pub const MAX_MARKS: usize = 8;

/// What a character is to the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Shows something.
    Visible,
    /// A combining mark (nonspacing or enclosing), drawn on the character before it: at most
    /// [`MAX_MARKS`] in a row.
    Mark,
    /// Whitespace that shows as space.
    Space,
    /// A line feed or a tab: kept in text of [`Lines::Many`].
    Layout,
    /// ZWNJ, ZWJ: only between two characters.
    Joiner,
    /// A variation selector: only right after a visible character.
    Selector,
    Refused,
}

fn default_ignorable(c: char) -> bool {
    DEFAULT_IGNORABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn kind(c: char) -> Kind {
    use GeneralCategory::*;
    // Latin first: most text is, and below U+0300 the kinds need no table.
    if c < '\u{300}' {
        return match c {
            '\n' | '\t' => Kind::Layout,
            ' ' | '\u{A0}' => Kind::Space,
            '\0'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{AD}' => Kind::Refused,
            _ => Kind::Visible,
        };
    }
    let code = u32::from(c);
    match c {
        '\n' | '\t' => Kind::Layout,
        '\u{200C}' | '\u{200D}' => Kind::Joiner,
        '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' | '\u{180B}'..='\u{180D}' => {
            Kind::Selector
        }
        '\u{180F}' => Kind::Selector,
        _ if default_ignorable(c)
            || BLANK.contains(&c)
            || (0xFDD0..=0xFDEF).contains(&code)
            || code & 0xFFFE == 0xFFFE =>
        {
            Kind::Refused
        }
        _ => match get_general_category(c) {
            Control | Format | LineSeparator | ParagraphSeparator | PrivateUse | Unassigned
            | Surrogate => Kind::Refused,
            NonspacingMark | EnclosingMark => Kind::Mark,
            _ if c.is_whitespace() => Kind::Space,
            _ => Kind::Visible,
        },
    }
}

/// The first character of `text` the rule refuses, if any (see the module's header).
pub fn refused(text: &str, lines: Lines) -> Option<char> {
    if text.is_ascii() {
        // No joiners or selectors: only a control character can be refused.
        let kept = |b: u8| lines == Lines::Many && matches!(b, b'\n' | b'\t');
        return text
            .bytes()
            .find(|&b| b.is_ascii_control() && !kept(b))
            .map(char::from);
    }
    let mut chars = text.chars().peekable();
    // What the previous character was: a joiner needs a visible one it can join before (a
    // selector counts, `🏳️‍🌈`), a selector needs one it can select right before.
    let mut after = Kind::Space;
    let mut before = ' ';
    let mut marks = 0;
    while let Some(c) = chars.next() {
        let here = kind(c);
        marks = if here == Kind::Mark { marks + 1 } else { 0 };
        let ok = match here {
            Kind::Mark => marks <= MAX_MARKS,
            Kind::Visible | Kind::Space => true,
            Kind::Layout => lines == Lines::Many,
            Kind::Refused => false,
            Kind::Selector => matches!(after, Kind::Visible | Kind::Mark) && selects(before, c),
            Kind::Joiner => {
                matches!(after, Kind::Visible | Kind::Mark | Kind::Selector)
                    && joinable(before)
                    && chars.peek().is_some_and(|&next| {
                        matches!(kind(next), Kind::Visible | Kind::Mark) && joinable(next)
                    })
            }
        };
        if !ok {
            return Some(c);
        }
        after = here;
        before = c;
    }
    None
}

/// A letter with case (Latin, Greek, Cyrillic, Armenian...): no joiner or variation selector
/// changes how one is drawn.
fn cased(c: char) -> bool {
    c.is_lowercase()
        || c.is_uppercase()
        || get_general_category(c) == GeneralCategory::TitlecaseLetter
}

/// Whether a joiner next to `c` can join something: not an ASCII character nor a cased letter.
fn joinable(c: char) -> bool {
    !c.is_ascii() && !cased(c)
}

/// A Han ideograph: the characters the ideographic variation selectors select glyphs of.
fn han(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FA1F}' | '\u{30000}'..='\u{323AF}')
}

/// Whether `selector` can select a glyph of `base`: the Mongolian free variation selectors of a
/// Mongolian letter, the ideographic selectors of a Han ideograph, the others of anything but a
/// cased letter or a mark (emoji, symbols, digits of a keycap, CJK compatibility ideographs).
fn selects(base: char, selector: char) -> bool {
    match selector {
        '\u{180B}'..='\u{180D}' | '\u{180F}' => ('\u{1820}'..='\u{18AA}').contains(&base),
        '\u{E0100}'..='\u{E01EF}' => han(base),
        _ => !cased(base) && kind(base) != Kind::Mark,
    }
}

/// Why the rule refused `found`, after the name of what holds it: `name holds ...`.
pub fn refusal(found: char) -> String {
    let code = u32::from(found);
    if kind(found) == Kind::Mark {
        return format!(
            "holds more than {MAX_MARKS} combining marks on one character (U+{code:04X} is one too many); remove some"
        );
    }
    if matches!(
        get_general_category(found),
        GeneralCategory::PrivateUse | GeneralCategory::Unassigned
    ) {
        return format!(
            "holds U+{code:04X}, a private-use or unassigned code point, which no reader sees the same; remove it"
        );
    }
    match kind(found) {
        Kind::Layout => format!("holds a line break or tab (U+{code:04X}); give it on one line"),
        Kind::Joiner | Kind::Selector => format!(
            "holds the invisible character U+{code:04X} where it joins or selects nothing; remove it"
        ),
        _ => format!("holds the invisible or control character U+{code:04X}; remove it"),
    }
}

/// Text as it is stored and shown: NFC. Borrowed when it is NFC already (all ASCII is).
pub fn nfc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => Cow::Borrowed(text),
        _ => Cow::Owned(text.nfc().collect()),
    }
}

/// Text as it takes part in a key that folds case: NFKC, full case folding, default-ignorables
/// removed (the joiners and selectors the rule lets through), NFKC again (Unicode's
/// NFKC_Casefold). `fold(fold(s)) == fold(s)`.
pub fn fold(text: &str) -> String {
    // ASCII is its own NFKC, and its case folding is its lower case.
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let compatible: String = text.nfkc().filter(|c| !default_ignorable(*c)).collect();
    caseless::default_case_fold_str(&compatible)
        .nfkc()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_ignorables_are_sorted_for_the_search() {
        assert!(DEFAULT_IGNORABLE.windows(2).all(|w| w[0].1 < w[1].0));
        assert!(DEFAULT_IGNORABLE.iter().all(|(lo, hi)| lo <= hi));
    }

    #[test]
    fn lines_and_tabs_only_where_a_field_keeps_lines() {
        for text in ["one\ntwo", "a\tb", "\n"] {
            assert_eq!(refused(text, Lines::Many), None, "{text:?}");
            assert!(refused(text, Lines::One).is_some(), "{text:?}");
        }
        for c in [
            '\r', '\0', '\u{7F}', '\u{85}', '\u{B}', '\u{C}', '\u{2028}', '\u{2029}',
        ] {
            assert_eq!(refused(&format!("a{c}b"), Lines::Many), Some(c), "{c:?}");
        }
        assert_eq!(
            refusal('\n'),
            "holds a line break or tab (U+000A); give it on one line"
        );
    }

    /// Joiners and selectors where scripts and emoji need them; nowhere else.
    #[test]
    fn joiners_and_selectors_only_in_place() {
        for ok in [
            "\u{639}\u{644}\u{6CC}\u{200C}\u{631}\u{636}\u{627}",
            "\u{915}\u{94D}\u{200D}\u{937}",
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
            "I \u{2764}\u{FE0F} it",
            "1\u{FE0F}\u{20E3}",
            "\u{845B}\u{E0100}",
            "Zo\u{EB} \u{141}ukasz \u{674E}",
            // A Mongolian letter's free variation selector.
            "\u{1820}\u{180B}",
            // Vietnamese and Hebrew: a few marks on a letter.
            "Vi\u{1EC7}t",
            "\u{5E9}\u{5C1}\u{5BC}\u{5B8}",
        ] {
            assert_eq!(refused(ok, Lines::One), None, "{ok:?}");
        }
        for (bad, found) in [
            ("\u{200D}Ann", '\u{200D}'),
            ("Ann\u{200C}", '\u{200C}'),
            ("An \u{200D}n", '\u{200D}'),
            ("An\u{200D} n", '\u{200D}'),
            ("A\u{200D}\u{200D}nn", '\u{200D}'),
            ("\u{FE0F}Ann", '\u{FE0F}'),
            ("An\u{FE0F}\u{FE0F}n", '\u{FE0F}'),
            ("An \u{FE0F}", '\u{FE0F}'),
            ("\u{1F3F4}\u{E0067}\u{E0062}\u{E007F}", '\u{E0067}'),
            // Selectors after a letter they select nothing of, joiners between Latin letters.
            ("a\u{180B}", '\u{180B}'),
            ("a\u{FE0F}", '\u{FE0F}'),
            ("a\u{FE0E}b", '\u{FE0E}'),
            ("a\u{E0100}", '\u{E0100}'),
            ("An\u{200D}n", '\u{200D}'),
            ("An\u{200C}n", '\u{200C}'),
            ("1\u{200D}2", '\u{200D}'),
            ("\u{1F468}\u{200D}a", '\u{200D}'),
        ] {
            assert_eq!(refused(bad, Lines::Many), Some(found), "{bad:?}");
        }
    }

    #[test]
    fn private_use_unassigned_and_stacked_marks_are_refused() {
        for (bad, found) in [
            ("a\u{E000}", '\u{E000}'),
            ("\u{F0000}", '\u{F0000}'),
            ("a\u{0378}", '\u{0378}'),
        ] {
            assert_eq!(refused(bad, Lines::One), Some(found), "{bad:?}");
            assert!(refusal(found).contains("private-use or unassigned"));
        }
        let marks = |n: usize| format!("a{}", "\u{301}".repeat(n));
        assert_eq!(refused(&marks(MAX_MARKS), Lines::One), None);
        assert_eq!(refused(&marks(MAX_MARKS + 1), Lines::One), Some('\u{301}'));
        assert_eq!(refused(&marks(200), Lines::One), Some('\u{301}'));
        assert!(
            refusal('\u{301}').contains("combining marks"),
            "{}",
            refusal('\u{301}')
        );
        // Marks on different letters are counted apart.
        assert_eq!(refused(&marks(MAX_MARKS).repeat(3), Lines::One), None);
    }

    #[test]
    fn stored_text_is_nfc_and_key_text_folds() {
        assert!(matches!(nfc("plain"), Cow::Borrowed("plain")));
        assert_eq!(nfc("Jose\u{301}"), "Jos\u{E9}");
        // NFC keeps what NFKC would change: a reader sees exactly what was sent.
        assert_eq!(nfc("\u{FB01}\u{FF21}\u{B2}"), "\u{FB01}\u{FF21}\u{B2}");
        assert_eq!(fold("\u{FB01}\u{FF21}\u{B2}"), "fia2");
        assert_eq!(fold("Stra\u{DF}e \u{3A3}"), "strasse \u{3C3}");
        assert_eq!(
            fold("\u{639}\u{644}\u{6CC}\u{200C}\u{631}"),
            "\u{639}\u{644}\u{6CC}\u{631}"
        );
    }
}
