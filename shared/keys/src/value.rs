//! Numbers and dates written so that string order is value order: one module per type, and the
//! zero padding they share.

mod date;
mod quarter;
mod timestamp;
mod version;

pub use date::Date;
pub use quarter::Quarter;
pub use timestamp::{Timestamp, iso_timestamp, now_ms};
pub use version::Version;

use crate::KeyError;

/// Zero pads `value` to exactly `width` digits. A value that needs more digits is an error, never
/// a silently wider string (which would sort wrongly: "100" < "99").
pub fn pad(value: u64, width: usize) -> Result<String, KeyError> {
    let s = value.to_string();
    if s.len() > width {
        return Err(KeyError::Overflow { value, width });
    }
    Ok(format!("{s:0>width$}"))
}

/// Parses exactly `width` ASCII digits back to a number.
#[cfg(test)]
fn unpad(s: &str, width: usize) -> Option<u64> {
    (s.len() == width && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pad_is_exact_or_an_error() {
        assert_eq!(pad(1, 2).unwrap(), "01");
        assert_eq!(pad(99, 2).unwrap(), "99");
        assert_eq!(
            pad(100, 2),
            Err(KeyError::Overflow {
                value: 100,
                width: 2
            })
        );
        assert_eq!(unpad("007", 3), Some(7));
        assert_eq!(unpad("07", 3), None);
        assert_eq!(unpad("0x7", 3), None);
    }

    proptest! {
        #[test]
        fn padded_numbers_sort_as_their_values(a in 0u64..1_000_000, b in 0u64..1_000_000) {
            let (pa, pb) = (pad(a, 6).unwrap(), pad(b, 6).unwrap());
            prop_assert_eq!(pa.cmp(&pb), a.cmp(&b));
            prop_assert_eq!(unpad(&pa, 6), Some(a));
        }
    }
}
