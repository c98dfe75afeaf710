//! Time-sortable unique ids (ULIDs): 48 bits of milliseconds then 80 random bits, written as 26
//! Crockford base-32 characters whose string order is creation order (the advice of Good's
//! data-modeling post).

use std::{borrow::Cow, fmt};

use ulid::Ulid;

use crate::{KeyError, Segment};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortableId(Ulid);

impl SortableId {
    /// A new id for now.
    pub fn new() -> SortableId {
        SortableId(Ulid::new())
    }

    /// A new id for a given instant (tests and seed data).
    pub fn at_ms(ms: u64) -> SortableId {
        SortableId(Ulid::from_parts(ms, rand_bits()))
    }

    /// The smallest id of the given millisecond: a lower bound for a range of ids.
    pub fn floor(ms: u64) -> SortableId {
        SortableId(Ulid::from_parts(ms, 0))
    }

    /// The largest id of the given millisecond: an upper bound for a range of ids.
    pub fn ceiling(ms: u64) -> SortableId {
        SortableId(Ulid::from_parts(ms, u128::MAX))
    }

    /// Accepts the canonical 26-character upper-case form only, so one id has one key.
    pub fn parse(s: &str) -> Result<SortableId, KeyError> {
        let invalid = || KeyError::InvalidSortableId(s.to_owned());
        let ulid = Ulid::from_string(s).map_err(|_| invalid())?;
        if ulid.to_string() != s {
            return Err(invalid());
        }
        Ok(SortableId(ulid))
    }

    pub fn timestamp_ms(self) -> u64 {
        self.0.timestamp_ms()
    }
}

impl Default for SortableId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for SortableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Segment for SortableId {
    const SEG: crate::shape::Seg = crate::shape::Seg::Ulid;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }
}

crate::serde_as_string!(SortableId, SortableId::parse);

fn rand_bits() -> u128 {
    // The random part of a fresh ULID, reused so this crate needs no RNG of its own.
    Ulid::new().random()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parse_accepts_only_the_canonical_form() {
        let id = SortableId::new();
        assert_eq!(SortableId::parse(&id.to_string()).unwrap(), id);
        assert!(SortableId::parse(&id.to_string().to_lowercase()).is_err());
        assert!(SortableId::parse("not-an-id").is_err());
        assert!(SortableId::parse("").is_err());
        // 27 characters, or a first character over 7 (overflows 128 bits).
        assert!(SortableId::parse("01ARZ3NDEKTSV4RRFFQ69G5FAVX").is_err());
        assert!(SortableId::parse("81ARZ3NDEKTSV4RRFFQ69G5FAV").is_err());
    }

    proptest! {
        #[test]
        fn ids_sort_by_time_and_bounds_enclose_their_millisecond(a in 0u64..(1 << 47), b in 0u64..(1 << 47)) {
            let (ia, ib) = (SortableId::at_ms(a), SortableId::at_ms(b));
            if a != b {
                prop_assert_eq!(ia.to_string().cmp(&ib.to_string()), a.cmp(&b));
            }
            prop_assert!(SortableId::floor(a).to_string() <= ia.to_string());
            prop_assert!(ia.to_string() <= SortableId::ceiling(a).to_string());
            prop_assert_eq!(ia.timestamp_ms(), a);
        }
    }
}
