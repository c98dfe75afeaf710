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
        for attr in [DailyStats::ORDERS, DailyStats::REVENUE, DailyStats::REVIEWS] {
            add(
                &mut tally.stored,
                format!("day {day} {attr}"),
                n(item, attr),
            );
        }
    }
}

/// Writes the correction of a day's value, a sharded counter; `false` when the item changed since
/// it was read.
pub(super) async fn correct(drifted: &Drifted<'_>) -> Result<bool, StoreError> {
    match drifted.parts().as_slice() {
        ["day", id, attr] => {
            let attr = drifted.attribute(attr)?;
            let shard = Shard::new(0, 1).map_err(StoreError::from)?;
            let date = keys::Date::parse_iso(id)?;
            let labels = Update::new()
                .set_if_absent(DailyStats::DATE, model::s(date.iso()))
                .set_if_absent(DailyStats::SHARD, model::n(0));
            drifted
                .add_to_shard(
                    keys::derived::daily_stats(date, shard),
                    DailyStats::TYPE,
                    attr,
                    labels,
                )
                .await
        }
        _ => Err(drifted.bad("no correction for it")),
    }
}
