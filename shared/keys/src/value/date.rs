//! A calendar date, written broad to narrow in keys and `YYYY-MM-DD` in items.

use std::{borrow::Cow, fmt};

use time::{Month, format_description::BorrowedFormatItem, macros::format_description};

use crate::{KeyError, Segment};

const ISO: &[BorrowedFormatItem<'static>] = format_description!("[year]-[month]-[day]");
const HIERARCHY: &[BorrowedFormatItem<'static>] = format_description!("[year]/[month]/[day]");

/// A calendar date (UTC), years 0000–9999 only so that every written form has the same width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date(pub(super) time::Date);

impl Date {
    /// Parses `YYYY-MM-DD`, rejecting impossible dates (`2023-02-29`) and other shapes.
    pub fn parse_iso(s: &str) -> Result<Date, KeyError> {
        let invalid = || KeyError::InvalidDate(s.to_owned());
        if s.len() != 10 {
            return Err(invalid());
        }
        let d = time::Date::parse(s, ISO).map_err(|_| invalid())?;
        Date::new(d).ok_or_else(invalid)
    }

    /// Parses the key form of Walch's talk, `YYYY/MM/DD`.
    pub fn parse_hierarchical(s: &str) -> Result<Date, KeyError> {
        let invalid = || KeyError::InvalidDate(s.to_owned());
        if s.len() != 10 {
            return Err(invalid());
        }
        let d = time::Date::parse(s, HIERARCHY).map_err(|_| invalid())?;
        Date::new(d).ok_or_else(invalid)
    }

    pub fn new(d: time::Date) -> Option<Date> {
        (0..=9999).contains(&d.year()).then_some(Date(d))
    }

    pub fn from_ymd(year: i32, month: u8, day: u8) -> Result<Date, KeyError> {
        let invalid = || KeyError::InvalidDate(format!("{year:04}-{month:02}-{day:02}"));
        let month = Month::try_from(month).map_err(|_| invalid())?;
        let d = time::Date::from_calendar_date(year, month, day).map_err(|_| invalid())?;
        Date::new(d).ok_or_else(invalid)
    }

    pub fn inner(self) -> time::Date {
        self.0
    }

    /// `YYYY-MM-DD`.
    pub fn iso(self) -> String {
        self.0.format(ISO).expect("years 0..=9999 always format")
    }

    /// The hierarchy order of Walch's talk, broad to narrow: `2022/03/15`.
    pub fn hierarchical(self) -> String {
        self.0
            .format(HIERARCHY)
            .expect("years 0..=9999 always format")
    }

    /// Milliseconds since the Unix epoch at 00:00:00.000 UTC of this date.
    pub fn start_ms(self) -> i128 {
        self.0.midnight().assume_utc().unix_timestamp_nanos() / 1_000_000
    }

    /// Milliseconds since the Unix epoch at 23:59:59.999 UTC of this date.
    pub fn end_ms(self) -> i128 {
        self.start_ms() + 86_400_000 - 1
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.iso())
    }
}

/// In a key, a date is written broad to narrow (Walch's talk): `2022/03/15`.
impl Segment for Date {
    const SEG: crate::shape::Seg = crate::shape::Seg::Date;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(self.hierarchical())
    }
}

// In an item or a JSON body, a date is `YYYY-MM-DD`.
crate::serde_as_string!(Date, Date::parse_iso);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn dates_reject_impossible_days_and_other_shapes() {
        assert_eq!(
            Date::parse_iso("2022-03-15").unwrap().hierarchical(),
            "2022/03/15"
        );
        assert_eq!(Date::parse_iso("2024-02-29").unwrap().iso(), "2024-02-29");
        for bad in [
            "2023-02-29",
            "2022-13-01",
            "2022-00-10",
            "2022-3-15",
            "20220315",
            "",
            "2022-03-15T00:00:00",
        ] {
            assert!(Date::parse_iso(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn dates_sort_as_their_values(a in 0i32..3_000_000, b in 0i32..3_000_000) {
            let base = time::Date::from_calendar_date(1000, Month::January, 1).unwrap();
            let da = Date::new(base + time::Duration::days(a.into())).unwrap();
            let db = Date::new(base + time::Duration::days(b.into())).unwrap();
            prop_assert_eq!(da.iso().cmp(&db.iso()), da.cmp(&db));
            prop_assert_eq!(da.hierarchical().cmp(&db.hierarchical()), da.cmp(&db));
            prop_assert_eq!(Date::parse_iso(&da.iso()).unwrap(), da);
            prop_assert_eq!(Date::parse_hierarchical(&da.hierarchical()).unwrap(), da);
        }
    }
}
