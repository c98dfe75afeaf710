use thiserror::Error;

/// Why a value cannot become (part of) a key, or a string is not a key of the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyError {
    #[error("{what} must not be empty")]
    Empty { what: &'static str },
    #[error("{what} is longer than {max} characters")]
    TooLong { what: &'static str, max: usize },
    #[error("{what} may only contain letters, digits, '-', '_' and '.'; found {found:?}")]
    InvalidCharacter { what: &'static str, found: char },
    /// `.` or `..`: a URL path cannot address it (clients and proxies resolve it away).
    #[error("{what} may not be \".\" or \"..\": a URL cannot address it")]
    DotSegment { what: &'static str },
    /// A character the text rule refuses ([`crate::unicode::refused`]: U+200B, U+FEFF, U+202E,
    /// U+3164...): two names that look alike would be two keys.
    #[error("{what} {}", crate::unicode::refusal(*found))]
    InvisibleCharacter { what: &'static str, found: char },
    #[error("{value:?} is not one of {allowed}")]
    NotOneOf { value: String, allowed: String },
    #[error("{value} does not fit in {width} digits")]
    Overflow { value: u64, width: usize },
    #[error("{0:?} is not a valid calendar date (expected YYYY-MM-DD)")]
    InvalidDate(String),
    #[error("{0:?} is not a valid sortable id (a 26-character ULID)")]
    InvalidSortableId(String),
    #[error("{0:?} is not a key of the expected shape")]
    Malformed(String),
    #[error("{0:?} is not a SKU (an integer from 1 to 999999999999, no leading zeros)")]
    InvalidSku(String),
    #[error("{0:?} is not a valid ISBN (ISBN-10 or ISBN-13 with a correct check digit)")]
    InvalidIsbn(String),
    #[error("{0:?} is not a timestamp of the form 2002-08-05T02:46:00.000Z")]
    InvalidTimestamp(String),
    #[error("{0:?} is not a quarter of the form 2026-Q4")]
    InvalidQuarter(String),
    #[error("{0} ms is not an instant from 1970 to 9999")]
    TimestampOutOfRange(u64),
    /// A character a value may not hold because of where it sorts: a location with `!`, `"` or
    /// `$` would stand in another order in GSI1's concatenated key than in `OccurrencesByDate`.
    #[error("{what} may not contain {found:?} (none of {refused} may stand in it)")]
    RefusedCharacter {
        what: &'static str,
        found: char,
        refused: &'static str,
    },
    /// A multi-attribute index's declaration or key condition DynamoDB would refuse.
    #[error("index {index}: {why}")]
    Index { index: &'static str, why: String },
}
