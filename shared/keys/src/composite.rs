//! Composite keys in seed 001's style: attributes in hierarchy order, a delimiter after each one,
//! so a partial key (the leading attributes) is a `begins_with` prefix that ends on a delimiter.
//!
//! ```
//! use keys::{Composite, Date, Text};
//! let key = Composite::new()
//!     .date(Date::parse_iso("2022-03-15").unwrap())
//!     .lit("cert")
//!     .num(1, 2).unwrap()
//!     .text(&Text::parse("student", "David Spurdy").unwrap())
//!     .build();
//! assert_eq!(key, "2022/03/15#cert#01#davidspurdy#");
//! ```

use crate::{DELIMITER, Date, Id, KeyError, Shard, Text, value::pad};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Composite(String);

impl Composite {
    pub fn new() -> Composite {
        Composite(String::new())
    }

    fn push(mut self, segment: &str) -> Composite {
        self.0.push_str(segment);
        self.0.push(DELIMITER);
        self
    }

    /// A static prefix or tag (`cert`, `course`, `CUSTOMER`): a compile-time string that must not
    /// contain the delimiter.
    pub fn lit(self, tag: &'static str) -> Composite {
        assert!(
            !tag.contains(DELIMITER),
            "static key parts carry no delimiter"
        );
        self.push(tag)
    }

    pub fn text(self, text: &Text) -> Composite {
        self.push(text.as_key())
    }

    pub fn id(self, id: &Id) -> Composite {
        self.push(id.as_str())
    }

    pub fn num(self, value: u64, width: usize) -> Result<Composite, KeyError> {
        Ok(self.push(&pad(value, width)?))
    }

    pub fn date(self, date: Date) -> Composite {
        self.push(&date.hierarchical())
    }

    pub fn shard(self, shard: Shard) -> Composite {
        self.push(&shard.key())
    }

    /// The key so far; every attribute ends on a delimiter.
    pub fn build(self) -> String {
        self.0
    }

    /// The key so far plus the beginning of one more attribute, for "partial" matches within an
    /// attribute (seed 001: occurrences by name, date and *partial* location). The only key form
    /// that does not end on a delimiter, and only ever used with `begins_with`.
    pub fn build_with_partial(self, partial: &Text) -> String {
        let mut s = self.0;
        s.push_str(partial.as_key());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key_of(values: &[String]) -> String {
        values
            .iter()
            .fold(Composite::new(), |k, v| {
                k.text(&Text::parse("v", v).unwrap())
            })
            .build()
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
