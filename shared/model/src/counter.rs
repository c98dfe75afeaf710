//! Values the stream handlers derive (counts, sums), as read back: an attribute of a record
//! (`Customer::ORDER_COUNT`), or the sum of a sharded counter's shards
//! (`store::aggregate::sum_shards`). The handlers add to them exactly once (`store::aggregate`),
//! so they should never be negative; after a drift (a lost or doubled record, a hand edit) one may
//! be. A read must then degrade visibly, not fail: a [`Derived`] holds what is stored, and
//! [`Derived::value`] is `None` for anything that is not a non-negative integer in range, so the
//! API shows `null` and names the field in its `X-Derived-Inconsistent` header
//! (`api::wire::derived`); `make reconcile REPAIR=1` corrects the stored value.

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// A derived integer as stored: `Ok` for an integer in `i64`'s range, `Err` with what was there
/// otherwise (a number too large, a fraction, text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived(pub Result<i64, String>);

impl Default for Derived {
    /// A value nothing has been added to yet.
    fn default() -> Derived {
        Derived(Ok(0))
    }
}

impl From<i64> for Derived {
    fn from(n: i64) -> Derived {
        Derived(Ok(n))
    }
}

impl Derived {
    /// The value when it can be right: a non-negative integer. A count or a sum of prices below
    /// zero is drift.
    pub fn value(&self) -> Option<i64> {
        self.0.as_ref().ok().copied().filter(|n| *n >= 0)
    }
}

impl Serialize for Derived {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Ok(n) => s.serialize_i64(*n),
            Err(raw) => s.serialize_str(raw),
        }
    }
}

impl<'de> Deserialize<'de> for Derived {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Derived, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Derived;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Derived, E> {
                Ok(Derived(Ok(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Derived, E> {
                Ok(Derived(i64::try_from(v).map_err(|_| v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Derived, E> {
                let whole = v.fract() == 0.0 && v >= i64::MIN as f64 && v <= i64::MAX as f64;
                Ok(Derived(if whole {
                    Ok(v as i64)
                } else {
                    Err(v.to_string())
                }))
            }
            fn visit_str<E>(self, v: &str) -> Result<Derived, E> {
                Ok(Derived(v.parse().map_err(|_| v.to_owned())))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::n;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn read(v: AttributeValue) -> Derived {
        #[derive(serde::Deserialize)]
        struct R {
            #[serde(rename = "C")]
            c: Derived,
        }
        let item = crate::Item::from([("C".to_owned(), v)]);
        serde_dynamo::from_item::<_, R>(item).unwrap().c
    }

    #[test]
    fn whatever_is_stored_reads_and_only_a_sane_value_shows() {
        assert_eq!(read(n(7)).value(), Some(7));
        assert_eq!(read(n(0)).value(), Some(0));
        assert_eq!(read(n(-3)), Derived(Ok(-3)));
        assert_eq!(read(n(-3)).value(), None, "a negative count is drift");
        let huge = "123456789012345678901234567890";
        assert_eq!(read(AttributeValue::N(huge.into())).value(), None);
        assert_eq!(read(AttributeValue::N("1.5".into())).value(), None);
        assert_eq!(read(AttributeValue::S("seven".into())).value(), None);
        assert_eq!(Derived::default().value(), Some(0));
    }
}
