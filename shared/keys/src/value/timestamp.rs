//! An instant to the millisecond, written ISO-8601 UTC with a fixed width.

use std::{borrow::Cow, fmt};

use super::Date;
use crate::{KeyError, Segment};

/// An instant, to the millisecond, from 1970 to the end of 9999: written ISO-8601 UTC with a
/// fixed width (`2002-08-05T02:46:00.000Z`), so timestamps sort as strings and every written form
/// parses back to the same instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp(u64);

/// 9999-12-31T23:59:59.999Z.
const MAX_MS: u64 = 253_402_300_799_999;

impl Timestamp {
    pub fn from_ms(ms: u64) -> Result<Timestamp, KeyError> {
        if ms > MAX_MS {
            return Err(KeyError::TimestampOutOfRange(ms));
        }
        Ok(Timestamp(ms))
    }

    pub fn now() -> Timestamp {
        Timestamp(now_ms().min(MAX_MS))
    }

    /// Parses the fixed-width form only (another width, another zone or an impossible date is
    /// refused), so one instant has one key. By hand, not with `time`'s format parser: every item
    /// read parses its timestamps, and this is a few comparisons with no allocation.
    pub fn parse(s: &str) -> Result<Timestamp, KeyError> {
        let invalid = || KeyError::InvalidTimestamp(s.chars().take(40).collect());
        let b: &[u8; 24] = s.as_bytes().try_into().map_err(|_| invalid())?;
        // `YYYY-MM-DDThh:mm:ss.fffZ`: the separators where they belong, digits everywhere else.
        let shape_ok = b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        });
        if !shape_ok {
            return Err(invalid());
        }
        let n = |from: usize, to: usize| {
            b[from..to]
                .iter()
                .fold(0u64, |v, c| v * 10 + u64::from(c - b'0'))
        };
        let (year, month, day) = (n(0, 4), n(5, 7), n(8, 10));
        let (hour, minute, second, ms) = (n(11, 13), n(14, 16), n(17, 19), n(20, 23));
        if year < 1970
            || !(1..=12).contains(&month)
            || day == 0
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return Err(invalid());
        }
        let days = days_from_civil(year, month, day);
        Ok(Timestamp(
            ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms,
        ))
    }

    pub fn ms(self) -> u64 {
        self.0
    }

    /// The calendar date (UTC).
    pub fn date(self) -> Date {
        let t = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.0) * 1_000_000)
            .expect("in range by construction");
        Date(t.date())
    }

    /// One millisecond later (saturating at the end of 9999).
    pub fn next(self) -> Timestamp {
        Timestamp((self.0 + 1).min(MAX_MS))
    }

    /// The fixed-width form, written into a buffer (no allocation).
    fn write(self, out: &mut [u8; 24]) -> &str {
        let ms = self.0;
        let (days, in_day) = (ms / 86_400_000, ms % 86_400_000);
        let (year, month, day) = civil_from_days(days);
        *out = *b"0000-00-00T00:00:00.000Z";
        let mut put = |at: usize, width: usize, mut v: u64| {
            for i in (at..at + width).rev() {
                out[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, month);
        put(8, 2, day);
        put(11, 2, in_day / 3_600_000);
        put(14, 2, in_day / 60_000 % 60);
        put(17, 2, in_day / 1000 % 60);
        put(20, 3, in_day % 1000);
        std::str::from_utf8(out).expect("ASCII digits and separators")
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.write(&mut [0; 24]))
    }
}

/// Whether `year` is a Gregorian leap year.
fn is_leap(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of 1970 or later (the Gregorian calendar counted in 400-year
/// eras of 146,097 days, starting each year in March so the leap day ends it).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let (era, year_of_era) = (y / 400, y % 400);
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01: [`days_from_civil`] backwards.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let (era, day_of_era) = (z / 146_097, z % 146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

impl Segment for Timestamp {
    const SEG: crate::shape::Seg = crate::shape::Seg::Timestamp;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }
}

crate::serde_as_string!(Timestamp, Timestamp::parse);

/// ISO-8601 UTC with milliseconds, fixed width (`2002-08-05T02:46:00.000Z`), so timestamps sort
/// as strings. `None` past year 9999.
pub fn iso_timestamp(ms: u64) -> Option<String> {
    Timestamp::from_ms(ms).ok().map(|t| t.to_string())
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use time::{
        PrimitiveDateTime, format_description::BorrowedFormatItem, macros::format_description,
    };

    #[test]
    fn fixed_width_utc() {
        assert_eq!(iso_timestamp(0).unwrap(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso_timestamp(997_066_560_000).unwrap(),
            "2001-08-06T02:56:00.000Z"
        );
    }

    #[test]
    fn timestamps_parse_only_their_own_form() {
        let t = Timestamp::parse("2002-08-05T02:46:00.000Z").unwrap();
        assert_eq!(t.ms(), 1_028_515_560_000);
        assert_eq!(t.date().iso(), "2002-08-05");
        for bad in [
            "2002-08-05T02:46:00Z",
            "2002-08-05T02:46:00.000+00:00",
            "2002-02-30T02:46:00.000Z",
            "2002-08-05 02:46:00.000Z",
            "",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
        assert!(Timestamp::from_ms(MAX_MS).is_ok());
        assert!(Timestamp::from_ms(MAX_MS + 1).is_err());
    }

    /// What the hand-written form must agree with: `time`'s calendar, formatted and parsed.
    fn reference_format(ms: u64) -> String {
        let t =
            time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).unwrap();
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.millisecond()
        )
    }

    fn reference_parse(s: &str) -> Option<u64> {
        const FORM: &[BorrowedFormatItem<'static>] = format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
        );
        let t = PrimitiveDateTime::parse(s, FORM).ok()?.assume_utc();
        let ms = u64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()?;
        (ms <= MAX_MS && reference_format(ms) == s).then_some(ms)
    }

    #[test]
    fn the_calendar_edges_agree_with_time() {
        for ms in [
            0,
            MAX_MS,
            951_782_400_000,     // 2000-02-29
            951_868_799_999,     // 2000-02-29T23:59:59.999Z
            4_107_542_400_000,   // 2100-03-01, after a century with no leap day
            253_370_764_800_000, // 9999-01-01
        ] {
            let t = Timestamp::from_ms(ms).unwrap();
            assert_eq!(t.to_string(), reference_format(ms));
            assert_eq!(Timestamp::parse(&t.to_string()), Ok(t));
        }
        for bad in [
            "2100-02-29T00:00:00.000Z",
            "1969-12-31T23:59:59.999Z",
            "2024-13-01T00:00:00.000Z",
            "2024-01-01T24:00:00.000Z",
            "2024-01-01T00:60:00.000Z",
            "2024-01-01T00:00:60.000Z",
            "2024-00-10T00:00:00.000Z",
            "2024-01-00T00:00:00.000Z",
            "2024-01-01T00:00:00.000z",
            "+024-01-01T00:00:00.000Z",
            "2024-01-01T00:00:00,000Z",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
            assert_eq!(reference_parse(bad), None, "{bad}");
        }
    }

    proptest! {
        #[test]
        fn timestamps_sort_as_instants(a in 0u64..=MAX_MS, b in 0u64..=MAX_MS) {
            prop_assert_eq!(iso_timestamp(a).unwrap().cmp(&iso_timestamp(b).unwrap()), a.cmp(&b));
            let ta = Timestamp::from_ms(a).unwrap();
            prop_assert_eq!(ta.to_string(), reference_format(a));
            prop_assert_eq!(Timestamp::parse(&ta.to_string()).unwrap(), ta);
        }

        #[test]
        fn parsing_agrees_with_time_on_every_string_of_the_shape(
            s in "[0-9]{4}-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-6][0-9]:[0-6][0-9]\\.[0-9]{3}Z"
        ) {
            prop_assert_eq!(Timestamp::parse(&s).ok().map(Timestamp::ms), reference_parse(&s), "{}", s);
        }
    }
}
