//! A calendar quarter, the sales period of AWS's relational example.

use std::{borrow::Cow, fmt};

use super::Date;
use crate::{KeyError, Segment};

/// A calendar quarter, `YYYY-Qn` (a sales period: the `YYYY-Q1` of AWS's relational example).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Quarter {
    year: u16,
    quarter: u8,
}

impl Quarter {
    /// Parses `YYYY-Qn`, n from 1 to 4.
    pub fn parse(s: &str) -> Result<Quarter, KeyError> {
        let invalid = || KeyError::InvalidQuarter(s.chars().take(20).collect());
        let b = s.as_bytes();
        if b.len() != 7 || b[4] != b'-' || b[5] != b'Q' || !b[..4].iter().all(u8::is_ascii_digit) {
            return Err(invalid());
        }
        let quarter = match b[6] {
            q @ b'1'..=b'4' => q - b'0',
            _ => return Err(invalid()),
        };
        Ok(Quarter {
            year: s[..4].parse().map_err(|_| invalid())?,
            quarter,
        })
    }

    /// The quarter a date falls in.
    pub fn of(date: Date) -> Quarter {
        let d = date.inner();
        Quarter {
            year: d.year() as u16,
            quarter: (u8::from(d.month()) - 1) / 3 + 1,
        }
    }
}

impl fmt::Display for Quarter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-Q{}", self.year, self.quarter)
    }
}

impl Segment for Quarter {
    const SEG: crate::shape::Seg = crate::shape::Seg::Quarter;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }
}

crate::serde_as_string!(Quarter, Quarter::parse);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarters_parse_one_way_and_contain_their_dates() {
        let q = Quarter::parse("2026-Q4").unwrap();
        assert_eq!(q.to_string(), "2026-Q4");
        for (iso, quarter) in [
            ("2026-01-01", "2026-Q1"),
            ("2026-03-31", "2026-Q1"),
            ("2026-04-01", "2026-Q2"),
            ("2026-09-30", "2026-Q3"),
            ("2026-12-31", "2026-Q4"),
        ] {
            let d = Date::parse_iso(iso).unwrap();
            assert_eq!(Quarter::of(d).to_string(), quarter, "{iso}");
        }
        for bad in [
            "2026-Q0", "2026-Q5", "2026-q4", "2026Q4", "26-Q4", "2026-Q44", "", "+026-Q1",
        ] {
            assert!(Quarter::parse(bad).is_err(), "{bad}");
        }
        assert!(Quarter::parse("2025-Q4").unwrap() < q);
    }
}
