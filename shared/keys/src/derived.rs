//! Keys of items the stream pipeline derives: site-wide daily counters (write sharded) and the
//! ledger that makes applying a stream record idempotent.
//!
//! | item              | PK                              | SK  |
//! |-------------------|---------------------------------|-----|
//! | daily stats shard | `STATS#<yyyy-mm-dd>#<shard>`    | `A` |
//! | ledger entry      | `LEDGER#<eventID>`              | `<target PK>#<target SK>` (escaped) |

use crate::{Date, Id, Key, Shard, escape};

pub mod types {
    pub const DAILY_STATS: &str = "DailyStats";
    pub const LEDGER: &str = "StreamLedger";
}

/// One write shard of a day's site-wide counters.
pub fn daily_stats(date: Date, shard: Shard) -> Key {
    Key::new(format!("STATS#{}#{}", date.iso(), shard.key()), "A")
}

/// The record that stream record `event_id` was applied to `target`. Written in the same
/// transaction as the target's update, on condition that it does not exist yet: a replayed or
/// duplicated record finds it and changes nothing. Its own partition, so it never shows up in a
/// read pattern; it expires by TTL once the stream can no longer replay the record.
pub fn ledger(event_id: &Id, target: &Key) -> Key {
    Key::new(
        format!("LEDGER#{event_id}"),
        format!("{}#{}", escape(&target.pk), escape(&target.sk)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formats() {
        let d = Date::parse_iso("2026-11-22").unwrap();
        assert_eq!(
            daily_stats(d, Shard::new(3, 10).unwrap()),
            Key::new("STATS#2026-11-22#03", "A")
        );
        let id = Id::parse("eventID", "c81e728d9d4c2f636f067f89cc14862c").unwrap();
        assert_eq!(
            ledger(&id, &Key::new("BOOK#9780261102354", "BOOK#9780261102354")),
            Key::new(
                "LEDGER#c81e728d9d4c2f636f067f89cc14862c",
                "BOOK%239780261102354#BOOK%239780261102354"
            )
        );
    }

    proptest! {
        #[test]
        fn ledger_keys_of_different_targets_differ(a in "[A#%]{0,4}", b in "[A#%]{0,4}", c in "[A#%]{0,4}", d in "[A#%]{0,4}") {
            let id = Id::parse("eventID", "e1").unwrap();
            let (x, y) = (Key::new(a.clone(), b.clone()), Key::new(c.clone(), d.clone()));
            prop_assert_eq!(ledger(&id, &x) == ledger(&id, &y), x == y);
        }
    }
}
