//! Whole numbers within a field's range, parsed at the edge. A body field declared
//! `Bounded<1, 10_000>` takes a JSON integer from 1 to 10,000 and refuses any other value (-1,
//! 2^63, 1.5, 1e308, `"1"`, `null`) with a message naming the field's real range (`quantity: -1
//! is not a whole number from 1 to 10000.`), never the range of the Rust type that holds it. The
//! handler then holds a number its arithmetic cannot overflow: `-delta`, `quantity × price` and
//! sums of lines stay far within `i64` because each factor is bounded before it is used.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Unexpected, Visitor};

/// A whole number from `MIN` to `MAX`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bounded<const MIN: i64, const MAX: i64>(i64);

impl<const MIN: i64, const MAX: i64> Bounded<MIN, MAX> {
    /// `value`, if it is within the range.
    pub fn new(value: i64) -> Option<Self> {
        (MIN..=MAX).contains(&value).then_some(Bounded(value))
    }

    pub fn get(self) -> i64 {
        self.0
    }

    /// As a `u32`; a range that does not fit one does not compile.
    pub fn to_u32(self) -> u32 {
        const { assert!(MIN >= 0 && MAX <= u32::MAX as i64) };
        self.0 as u32
    }

    /// As a `u64`; a range with negative numbers does not compile.
    pub fn to_u64(self) -> u64 {
        const { assert!(MIN >= 0) };
        self.0 as u64
    }

    /// As an `i32`; a range that does not fit one does not compile.
    pub fn to_i32(self) -> i32 {
        const { assert!(MIN >= i32::MIN as i64 && MAX <= i32::MAX as i64) };
        self.0 as i32
    }

    /// As a `u8`; a range that does not fit one does not compile.
    pub fn to_u8(self) -> u8 {
        const { assert!(MIN >= 0 && MAX <= u8::MAX as i64) };
        self.0 as u8
    }
}

/// What the field accepts, in the words of every range message: `a whole number from 1 to 10000`
/// (`api::body`'s messages say it after "is not").
struct Range<const MIN: i64, const MAX: i64>;

impl<const MIN: i64, const MAX: i64> fmt::Display for Range<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a whole number from {MIN} to {MAX}")
    }
}

impl<'de, const MIN: i64, const MAX: i64> Visitor<'de> for Range<MIN, MAX> {
    type Value = Bounded<MIN, MAX>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Bounded::new(v).ok_or_else(|| E::invalid_value(Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        i64::try_from(v)
            .ok()
            .and_then(Bounded::new)
            .ok_or_else(|| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
    // Any other JSON value (a fraction, text, null, a list...) is serde's "invalid type", said
    // with the same range.
}

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Bounded<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_i64(Range)
    }
}

/// The range a client reads in `openapi.yaml`: the one the messages state.
impl<const MIN: i64, const MAX: i64> schemars::JsonSchema for Bounded<MIN, MAX> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Bounded_{MIN}_{MAX}").into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX })
    }
}

impl<const MIN: i64, const MAX: i64> fmt::Display for Bounded<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::Bounded;
    use serde_json::json;

    type Quantity = Bounded<1, 10_000>;

    fn said(value: serde_json::Value) -> Result<i64, String> {
        serde_json::from_value::<Quantity>(value)
            .map(Quantity::get)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn takes_whole_numbers_in_range_only() {
        assert_eq!(said(json!(1)), Ok(1));
        assert_eq!(said(json!(10_000)), Ok(10_000));
        let range = "expected a whole number from 1 to 10000";
        for refused in [
            json!(0),
            json!(10_001),
            json!(-1),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(u64::MAX),
            json!(1.5),
            json!(1e308),
            json!(-0.0),
            json!("1"),
            json!(null),
            json!([1]),
        ] {
            let message = said(refused.clone()).unwrap_err();
            assert!(message.ends_with(range), "{refused}: {message}");
        }
    }

    #[test]
    fn converts_within_its_range() {
        let q: Quantity = serde_json::from_value(json!(7)).unwrap();
        assert_eq!((q.to_u32(), q.to_u64(), q.to_i32()), (7, 7, 7));
        let delta: Bounded<-5, 5> = serde_json::from_value(json!(-5)).unwrap();
        assert_eq!(delta.get(), -5);
        let grade: Bounded<1, 10> = serde_json::from_value(json!(10)).unwrap();
        assert_eq!(grade.to_u8(), 10);
    }
}
