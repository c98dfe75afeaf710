//! Keys of items the stream pipeline derives: site-wide daily counters (write sharded) and the
//! ledger that makes applying a stream record idempotent.
//!
//! Each key shape is declared once, below (`key_shapes!`: one line makes the builder and the
//! registry's kind); `docs/keys.md` shows them all as tables, generated from these declarations.

use std::borrow::Cow;

use crate::{Date, Id, PrimaryKey, Segment, Shard, escape};

/// Static tags of derived keys (the registry declares where each one stands).
pub mod tag {
    pub const STATS: &str = "STATS";
    pub const LEDGER: &str = "LEDGER";
    pub const A_RECORD: &str = crate::commerce::tag::A_RECORD;
}

pub mod types {
    pub const DAILY_STATS: &str = "DailyStats";
    pub const LEDGER: &str = "StreamLedger";
}

/// A date written `YYYY-MM-DD` in a key (daily counters are read by that form).
struct IsoDate(Date);

impl Segment for IsoDate {
    const SEG: crate::shape::Seg = crate::shape::Seg::IsoDate;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(self.0.iso())
    }
}

/// A key string written as one segment, escaped (the ledger names its target's key).
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
    /// One write shard of a day's site-wide counters.
    pub fn daily_stats(date: Date, shard: Shard) -> Base<DAILY_STATS> {
        STATS # {IsoDate(date)} # {shard} / A_RECORD
    }
    /// The record that stream record `event_id` was applied to `target`. Written in the same
    /// transaction as the target's update, on condition that it does not exist yet: a replayed or
    /// duplicated record finds it and changes nothing. Its own partition, so it never shows up in a
    /// read pattern; it expires by TTL once the stream can no longer replay the record.
    pub fn ledger(event_id: &Id, target: &PrimaryKey) -> Base<LEDGER> {
        LEDGER # {event_id} / {Escaped::of(target.pk())} # {Escaped::of(target.sk())}
    }
}

/// The daily-stats shard a source item counts on, of `count`: a hash of the source's own id
/// (an order id; a review's ISBN and username), so a replayed record lands on the same shard.
pub fn daily_stats_shard(source_id: &str, count: u32) -> Shard {
    Shard::of_weight(daily_stats_weight(source_id), count)
}

/// What a source's daily-stats shard is of any count ([`Shard::of_weight`]).
pub fn daily_stats_weight(source_id: &str) -> u64 {
    crate::code_point_weight(source_id)
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
        let cert = crate::learning::certificate(&i.course, date, &i.person);
        vec![
            k(dt::DAILY_STATS, daily_stats(date, i.shard)),
            k(dt::LEDGER, ledger(&i.b, &crate::commerce::customer(&i.a))),
            k(dt::LEDGER, ledger(&i.b, &cert)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Key;
    use crate::reviews::{Isbn, book};
    use proptest::prelude::*;

    #[test]
    fn formats() {
        let d = Date::parse_iso("2026-11-22").unwrap();
        let k = daily_stats(d, Shard::new(3, 10).unwrap());
        assert_eq!((k.pk(), k.sk()), ("STATS#2026-11-22#03", "A"));
        assert_eq!(daily_stats_shards(d, 10).len(), 10);
        let id = Id::parse("eventID", "c81e728d9d4c2f636f067f89cc14862c").unwrap();
        let l = ledger(&id, &book(&Isbn::parse("9780261102354").unwrap()));
        assert_eq!(
            (l.pk(), l.sk()),
            (
                "LEDGER#c81e728d9d4c2f636f067f89cc14862c",
                "BOOK%239780261102354#BOOK%239780261102354"
            )
        );
    }

    proptest! {
        #[test]
        fn ledger_keys_of_different_targets_differ(a in "[A#%]{0,4}", b in "[A#%]{0,4}", c in "[A#%]{0,4}", d in "[A#%]{0,4}") {
            let id = Id::parse("eventID", "e1").unwrap();
            let (x, y): (PrimaryKey, PrimaryKey) = (Key::new(a.clone(), b.clone()), Key::new(c.clone(), d.clone()));
            prop_assert_eq!(ledger(&id, &x) == ledger(&id, &y), x == y);
        }
    }
}
