//! The daily stats, which orders and reviews both feed (their expected sums are counted by
//! [`super::commerce`] and [`super::reviews`]): here, the stored values and their correction.

use keys::Shard;
use model::{Entity, Item, derived::DailyStats};
use store::{StoreError, Update};

use super::{Drifted, Tally, add, n, s};

/// The attributes of the daily stats.
pub(super) const ATTRIBUTES: &[&str] =
    &[DailyStats::ORDERS, DailyStats::REVENUE, DailyStats::REVIEWS];

/// Takes in one item of the scan.
pub(super) fn read(tally: &mut Tally, item: &Item) {
    if model::type_of(item) == Some(DailyStats::TYPE) {
        let day = s(item, DailyStats::DATE);
        let shard = u32::try_from(n(item, DailyStats::SHARD)).unwrap_or(0);
        for attr in ATTRIBUTES {
            let name = format!("day {day} {attr}");
            add(&mut tally.stored, name.clone(), n(item, attr));
            tally.hold(name, item, attr, shard);
        }
    }
}

/// Writes the correction of a day's value, a sharded counter; `false` when a shard changed since
/// it was read.
pub(super) async fn correct(drifted: &Drifted<'_>) -> Result<bool, StoreError> {
    match drifted.parts().as_slice() {
        ["day", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let date = keys::Date::parse_iso(id)?;
            drifted
                .spread(
                    attr,
                    |shard| {
                        Ok(keys::derived::daily_stats(
                            date,
                            Shard::new(shard, shard + 1)?,
                        ))
                    },
                    |shard| {
                        Update::new()
                            .set_if_absent(model::attr::TYPE, model::s(DailyStats::TYPE))
                            .set_if_absent(DailyStats::DATE, model::s(date.iso()))
                            .set_if_absent(DailyStats::SHARD, model::n(shard))
                    },
                )
                .await
        }
        _ => Err(drifted.bad("no correction for it")),
    }
}
