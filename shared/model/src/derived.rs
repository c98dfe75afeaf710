//! Items the stream pipeline derives: site-wide daily counters (write sharded) and the ledger of
//! applied stream records. Their keys are in `keys::derived`.

use keys::{
    Date, Id, PrimaryKey, Shard,
    derived::{self as k, types},
};

use crate::{Entity, Item, ModelError, record};

record! {
    /// One write shard of a day's site-wide counters.
    pub struct DailyStats {
        date: Date => DATE = "Date",
        shard: Shard => SHARD = "Shard",
        #[serde(default)]
        orders: crate::Derived => ORDERS = "Orders",
        /// In cents.
        #[serde(default)]
        revenue: crate::Derived => REVENUE = "Revenue",
        #[serde(default)]
        reviews: crate::Derived => REVIEWS = "Reviews",
    }
}

impl Entity for DailyStats {
    const TYPE: &'static str = types::DAILY_STATS;
    fn key(&self) -> PrimaryKey {
        k::daily_stats(self.date, self.shard)
    }
}

record! {
    /// That stream record `event_id` was applied to a target item (see `keys::derived::ledger`).
    pub struct Ledger {
        event_id: Id => EVENT_ID = "EventId",
        /// Epoch seconds: kept past the stream's 24-hour retention, then deleted by TTL.
        expires_at: i64 => EXPIRES_AT = "ExpiresAt",
    }
}

/// The ledger item of `entry` for `target`. Not an [`Entity`]: its key names its target, which the
/// record does not repeat.
pub fn ledger_item(entry: &Ledger, target: &PrimaryKey) -> Result<Item, ModelError> {
    crate::item_of(types::LEDGER, &k::ledger(&entry.event_id, target), entry)
}
