//! Items the stream pipeline derives: site-wide daily counters (write sharded). Their keys are in
//! `keys::derived`.

use keys::{
    Date, PrimaryKey, Shard,
    derived::{self as k, types},
};

use crate::{Entity, record};

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
