//! Write sharding: how many shards a key needs, and which shard an item goes to.

use std::borrow::Cow;

use crate::{KeyError, Segment, value::pad};

/// A shard number in `[0, count)`, written with two digits so shard keys sort numerically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard(u32);

impl Shard {
    pub const WIDTH: usize = 2;
    pub const MAX_COUNT: u32 = 100;

    pub fn new(n: u32, count: u32) -> Result<Shard, KeyError> {
        if count == 0 || count > Self::MAX_COUNT || n >= count {
            return Err(KeyError::Overflow {
                value: n.into(),
                width: Self::WIDTH,
            });
        }
        Ok(Shard(n))
    }

    /// Every shard of a key sharded `count` ways, for a parallel fan-out read.
    pub fn all(count: u32) -> impl Iterator<Item = Shard> {
        (0..count.min(Self::MAX_COUNT)).map(Shard)
    }

    pub fn number(self) -> u32 {
        self.0
    }

    pub fn key(self) -> String {
        pad(self.0.into(), Self::WIDTH).expect("shards are below 100")
    }
}

impl Segment for Shard {
    const SEG: crate::shape::Seg = crate::shape::Seg::Shard;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(self.key())
    }
}

/// The deterministic shard of Walch's talk: the sum of the value's Unicode code points, modulo
/// `count`.
/// The same source value always lands on the same shard, so a retried write does too.
pub fn code_point_shard(value: &str, count: u32) -> Shard {
    Shard::of_weight(code_point_weight(value), count)
}

/// What [`code_point_shard`] takes modulo the count: the sum of the value's code points. A
/// planner trying many counts computes it once per value.
pub fn code_point_weight(value: &str) -> u64 {
    value.chars().map(|c| u64::from(u32::from(c))).sum()
}

impl Shard {
    /// The shard of a value of `weight` among `count`: the weight modulo the count.
    pub fn of_weight(weight: u64, count: u32) -> Shard {
        assert!(
            count > 0 && count <= Shard::MAX_COUNT,
            "shard count out of range"
        );
        Shard((weight % u64::from(count)) as u32)
    }
}

/// The formula of AWS's relational example for the number of write shards a GSI partition key
/// needs:
///
/// ```text
/// ItemsPerRCU          = 4KB / AvgItemSize
/// PartitionMaxReadRate = 3K * ItemsPerRCU
/// N                    = MaxRequiredIO / PartitionMaxReadRate
/// ```
///
/// `ItemsPerRCU` is rounded down (a partial item still costs a read) and `N` up (a fraction of a
/// partition's rate still needs a partition). AWS's relational example then advises padding the
/// answer for anomalies in the data; that choice is the caller's.
pub fn shard_count(max_required_io: u64, avg_item_size_bytes: u64) -> u32 {
    assert!(avg_item_size_bytes > 0, "item size must be positive");
    let items_per_rcu = (4096 / avg_item_size_bytes).max(1);
    let partition_max_read_rate = 3000 * items_per_rcu;
    max_required_io.div_ceil(partition_max_read_rate).max(1) as u32
}

/// Stored as its number (a label on a shard item).
impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Shard::new(u32::deserialize(d)?, Shard::MAX_COUNT).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_003_worked_example_needs_13_shards() {
        // 3M orders, 20% of them OPEN, 250-byte order entities: 16 items per RCU, 48K reads per
        // partition, 600K / 48K = 12.5 -> 13.
        let open_orders = 3_000_000 / 5;
        assert_eq!(shard_count(open_orders, 250), 13);
    }

    #[test]
    fn shard_count_rounds_up_and_is_at_least_one() {
        assert_eq!(shard_count(0, 250), 1);
        assert_eq!(shard_count(48_000, 250), 1);
        assert_eq!(shard_count(48_001, 250), 2);
        // Items over 4KB still count as one item per RCU.
        assert_eq!(shard_count(3_001, 10_000), 2);
    }

    #[test]
    fn seed_001_certificate_lands_on_shard_19() {
        // The talk's final certificate item: `gsi1pk: "completion#19#"` for this sort key.
        assert_eq!(
            code_point_shard("2022/03/15#cert#01#davidspurdy#", 20).key(),
            "19"
        );
    }

    #[test]
    fn shard_numbers_are_bounded() {
        assert!(Shard::new(14, 15).is_ok());
        assert!(Shard::new(15, 15).is_err());
        assert_eq!(Shard::all(15).count(), 15);
        assert_eq!(Shard::new(3, 15).unwrap().key(), "03");
    }
}
