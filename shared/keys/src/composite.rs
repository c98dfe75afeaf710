//! Composite keys: segments joined by the delimiter, every key of the project built here.
//!
//! A segment is a static tag (a compile-time string without the delimiter) or a typed value whose
//! key form never contains the delimiter ([`Segment`]): identifiers reject it, free text escapes
//! it, numbers and dates are digits. So splitting a key at its delimiters gives back exactly its
//! segments, which is what the registry's isolation proof relies on.
//!
//! Walch's talk puts a delimiter after each attribute, so that a partial key (the leading
//! attributes) is a `begins_with` prefix that ends on a delimiter:
//!
//! ```
//! use keys::{Composite, Date, Text};
//! let key = Composite::new()
//!     .seg(&Date::parse_iso("2022-03-15").unwrap())
//!     .lit("cert")
//!     .num(1, 2).unwrap()
//!     .seg(&Text::parse("student", "David Spurdy").unwrap())
//!     .build_delimited();
//! assert_eq!(key, "2022/03/15#cert#01#davidspurdy#");
//! ```
//!
//! Good's data-modeling post and Pernin's introduction write their keys without the trailing
//! delimiter (`CUSTOMER#123`, `#ORDER#<id>`): [`Composite::build`].

use std::borrow::Cow;

use crate::{DELIMITER, KeyError, value::pad};

/// A typed value that can be one segment of a key: its key form never contains the delimiter.
pub trait Segment {
    /// What its key form may be: the registry's kind of a segment of this type.
    const SEG: crate::shape::Seg;
    fn segment(&self) -> Cow<'_, str>;
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Composite {
    key: String,
    segments: usize,
}

impl Composite {
    pub fn new() -> Composite {
        Composite::default()
    }

    fn push(mut self, segment: &str) -> Composite {
        debug_assert!(
            !segment.contains(DELIMITER),
            "a segment carries no delimiter"
        );
        if self.segments > 0 {
            self.key.push(DELIMITER);
        }
        self.key.push_str(segment);
        self.segments += 1;
        self
    }

    /// A static tag (`CUSTOMER`, `cert`; `""` for the leading delimiter in `#ORDER#` of Good's
    /// data-modeling post).
    pub fn lit(self, tag: &'static str) -> Composite {
        assert!(
            !tag.contains(DELIMITER),
            "static key parts carry no delimiter"
        );
        self.push(tag)
    }

    /// A typed value.
    pub fn seg(self, value: &impl Segment) -> Composite {
        let s = value.segment();
        self.push(&s)
    }

    /// A number, zero padded to `width` digits (a wider number is an error).
    pub fn num(self, value: u64, width: usize) -> Result<Composite, KeyError> {
        Ok(self.push(&pad(value, width)?))
    }

    /// The segments joined: `CUSTOMER#123`.
    pub fn build(self) -> String {
        self.key
    }

    /// The segments with a delimiter after each one (Walch's talk):
    /// `2022/03/15#cert#01#davidspurdy#`.
    /// Also the form of every `begins_with` prefix: it ends on a delimiter, so `jackson` never
    /// reaches `jacksonville`.
    pub fn build_delimited(mut self) -> String {
        self.key.push(DELIMITER);
        self.key
    }

    /// The delimited key so far plus the beginning of one more attribute, for "partial" matches
    /// within an attribute (Walch's talk: occurrences by name, date and *partial* location). The
    /// only key form that does not end on a delimiter, and only ever used with `begins_with`.
    pub fn build_with_partial(self, partial: &impl Segment) -> String {
        let mut s = self.build_delimited();
        s.push_str(&partial.segment());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Text;
    use proptest::prelude::*;

    fn key_of(values: &[String]) -> String {
        values
            .iter()
            .fold(Composite::new(), |k, v| {
                k.seg(&Text::parse("v", v).unwrap())
            })
            .build_delimited()
    }

    #[test]
    fn seed_001_why_delimiters_matter() {
        let zip = |state: &str, city: &str, zip: &str| {
            key_of(&[state.to_owned(), city.to_owned(), zip.to_owned()])
        };
        let jackson = zip("Wyoming", "Jackson", "83002");
        let jacksonville = zip("Wyoming", "Jacksonville", "82001");
        assert_eq!(jackson, "wyoming#jackson#83002#");
        let partial = key_of(&["wyoming".into(), "jackson".into()]);
        assert_eq!(partial, "wyoming#jackson#");
        assert!(jackson.starts_with(&partial));
        assert!(!jacksonville.starts_with(&partial));
    }

    #[test]
    fn seed_000_forms() {
        assert_eq!(
            Composite::new().lit("CUSTOMER").lit("A").build(),
            "CUSTOMER#A"
        );
        assert_eq!(
            Composite::new().lit("").lit("ORDER").build_delimited(),
            "#ORDER#"
        );
        assert_eq!(Composite::new().lit("A").build(), "A");
    }

    // Values drawn from a small alphabet holding the delimiter, the escape character and a
    // space, so that shared prefixes and would-be collisions are frequent.
    fn arb_values() -> impl Strategy<Value = Vec<String>> {
        prop::collection::vec("[ab#%1 ]{0,4}[ab#%1]", 1..4)
    }

    proptest! {
        #[test]
        fn a_partial_key_matches_exactly_the_keys_whose_leading_attributes_are_equal(
            a in arb_values(), b in arb_values(), n in 1usize..4,
        ) {
            let n = n.min(a.len());
            let partial = key_of(&a[..n]);
            let full = key_of(&b);
            let norm = |v: &String| crate::normalize(v);
            let leading_equal = b.len() >= n && a[..n].iter().map(norm).eq(b[..n].iter().map(norm));
            prop_assert_eq!(full.starts_with(&partial), leading_equal, "{} / {}", partial, full);
        }

        #[test]
        fn different_values_make_different_keys(a in arb_values(), b in arb_values()) {
            let same = a.len() == b.len()
                && a.iter().map(|v| crate::normalize(v)).eq(b.iter().map(|v| crate::normalize(v)));
            prop_assert_eq!(key_of(&a) == key_of(&b), same);
        }
    }
}
