//! Keys of items the stream pipeline derives: site-wide daily counters (write sharded), the
//! marks a ranked target keeps aside, and each consumer's position on each stream shard. The stream handlers' other derived values live on their
//! sources' own items (a customer's totals, a book's ratings), and what makes applying a record
//! idempotent on each target itself (`store::aggregate`'s marks).
//!
//! Each key shape is declared once, below (`key_shapes!`: one line makes the builder and the
//! registry's kind); `docs/keys.md` shows them all as tables, generated from these declarations.

use std::borrow::Cow;

use crate::{Date, PrimaryKey, Segment, Shard, escape};

/// Static tags of derived keys (the registry declares where each one stands).
pub mod tag {
    pub const STATS: &str = "STATS";
    pub const MARK: &str = "MARK";
    pub const POSITION: &str = "POSITION";
    pub const A_RECORD: &str = crate::commerce::tag::A_RECORD;
}

pub mod types {
    pub const DAILY_STATS: &str = "DailyStats";
    pub const LANE_MARK: &str = "LaneMark";
    pub const STREAM_POSITION: &str = "StreamPosition";
}

/// A date written `YYYY-MM-DD` in a key (daily counters are read by that form).
struct IsoDate(Date);

impl Segment for IsoDate {
    const SEG: crate::shape::Seg = crate::shape::Seg::IsoDate;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(self.0.iso())
    }
}

/// A key string written as one segment, escaped (a lane mark names its target's key).
struct Escaped(String);

impl Escaped {
    fn of(key: &str) -> Escaped {
        Escaped(escape(key))
    }
}

impl Segment for Escaped {
    const SEG: crate::shape::Seg = crate::shape::Seg::Escaped;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}

crate::shape::key_shapes! {
    context: "derived";
    /// One write shard of a day's site-wide counters (the shard is the writing stream consumer's:
    /// `store::aggregate::Lane::counter_shard`).
    pub fn daily_stats(date: Date, shard: Shard) -> Base<DAILY_STATS> {
        STATS # {IsoDate(date)} # {shard} / A_RECORD
    }
    /// The mark of stream lane `lane` (`store::aggregate::Lane`) on `target`, kept aside from a
    /// target every stream shard writes and whose item is copied to an index (a rep's quarter,
    /// ranked in GSI1): written in the same transaction as the target. All of one target's
    /// lanes in one partition of their own, which no read pattern touches; each expires by TTL
    /// once the stream can no longer deliver its records again.
    pub fn lane_mark(target: &PrimaryKey, lane: &str) -> Base<LANE_MARK> {
        MARK # {Escaped::of(target.pk())} # {Escaped::of(target.sk())} / {Escaped::of(lane)}
    }
    /// How far a consumer has got on one stream shard (`lane`): the last record it answered
    /// for (`stream_handler::position`). A partition per lane: each is written once a batch.
    pub fn stream_position(lane: &str) -> Base<STREAM_POSITION> {
        POSITION # {Escaped::of(lane)} / A_RECORD
    }
}

/// Every shard of a day's counters, to be read together and summed.
pub fn daily_stats_shards(date: Date, count: u32) -> Vec<PrimaryKey> {
    Shard::all(count).map(|s| daily_stats(date, s)).collect()
}

/// This context's part of the registry's proof (`registry::tests`): every key its builders make
/// from one set of inputs, with its entity. Beside the declarations, so that a new key
/// shape and its line here are one change.
#[cfg(test)]
pub(crate) mod proof {
    use super::{types as dt, *};
    use crate::registry::proof::{Inputs, Made, made as k};

    pub(crate) fn keys(i: &Inputs) -> Vec<Made> {
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        vec![
            k(dt::DAILY_STATS, daily_stats(date, i.shard)),
            k(
                dt::LANE_MARK,
                lane_mark(&crate::commerce::customer(&i.a), "AbC-d_01234"),
            ),
            k(dt::STREAM_POSITION, stream_position(i.b.as_str())),
            k(
                dt::LANE_MARK,
                lane_mark(
                    &crate::learning::certificate(&i.course, date, &i.person),
                    i.b.as_str(),
                ),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let d = Date::parse_iso("2026-11-22").unwrap();
        let k = daily_stats(d, Shard::new(3, 10).unwrap());
        assert_eq!((k.pk(), k.sk()), ("STATS#2026-11-22#03", "A"));
        assert_eq!(daily_stats_shards(d, 10).len(), 10);
    }
}
