//! `GET /stats/daily/{date}`: the site's orders, revenue (cents) and reviews of a day (UTC),
//! kept by the stream handlers on `AGGREGATE_SHARDS` write shards and summed here from ONE
//! BatchGetItem of every shard. With a table per context, the reviews are counted in reviews'
//! table (its consumer's): one BatchGetItem per table, sent at once.

use api::declare::*;
use api::wire::sharded_counter_across;
use keys::{Date, derived};
use model::derived::DailyStats;
use serde_json::json;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-daily-stats",
    Access::Staff,
    &Route::get(
        "/stats/daily/{date}",
        "Site-wide counts of a day (a sharded counter, summed)",
        &[Pattern {
            id: "",
            route: "`GET /stats/daily/{date}`",
            index: Index::Table,
            request: "BatchGetItem of every `STATS#<date>#<shard>`",
            returns: "`{date, orders, revenue, reviews}`",
            example: Example::staff("/stats/daily/2020-12-06"),
        }],
    ),
)
.needs(Needs::SHARDS.with_peers(&[REVIEWS_TABLE]));

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::ok::<Stats>("the sums over every shard (zero for a quiet day)").tag("derived")];

// What `handle`'s sharded counter answers: its identity and each total, as `totals` names them.
/// A day's counts, summed over its shards.
#[derive(JsonSchema)]
#[schemars(inline)]
#[allow(dead_code)]
struct Stats {
    date: Date,
    /// orders placed that day, less those since cancelled or returned
    orders: api::wire::DerivedInteger,
    /// cents, the totals of those orders
    revenue: api::wire::DerivedInteger,
    reviews: api::wire::DerivedInteger,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let date = api::path(&req, "date", Date::parse_iso)?;
    let shards = derived::daily_stats_shards(date, deps.shards()?);
    let reviews = deps.peer(&REVIEWS_TABLE)?;
    let totals = [
        (&deps.table, DailyStats::ORDERS, "orders"),
        (&deps.table, DailyStats::REVENUE, "revenue"),
        (reviews, DailyStats::REVIEWS, "reviews"),
    ];
    let view = sharded_counter_across(&shards, json!({ "date": date }), &totals).await?;
    api::json(200, &view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::Shard;
    use testkit::Harness;

    /// On 3 shards.
    async fn harness() -> Harness {
        Harness::with_shards(&FUNCTION, handle, testkit::table().await, 3)
    }

    #[tokio::test]
    async fn sums_every_shard_in_one_request() {
        let h = harness().await;
        let day = Date::parse_iso("2026-11-22").unwrap();
        for (shard, orders, reviews) in [(0, 2, 1), (1, 5, 0), (2, 1, 7)] {
            let stats = DailyStats {
                date: day,
                shard: Shard::new(shard, 3).unwrap(),
                orders: orders.into(),
                revenue: (orders * 1000).into(),
                reviews: reviews.into(),
            };
            h.table.put(&stats, None).await.unwrap();
        }
        let (status, body) = h.get("/stats/daily/2026-11-22", &[]).await;
        assert_eq!(status, 200);
        assert_eq!(
            body,
            json!({ "date": "2026-11-22", "orders": 8, "revenue": 8000, "reviews": 8 })
        );
        let requests = h.table.meter().requests();
        assert_eq!(requests.len(), 4, "3 puts, then one read");
        assert_eq!(requests[3].operation, "BatchGetItem");
    }

    #[tokio::test]
    async fn impossible_dates_are_400() {
        let h = harness().await;
        for bad in ["2026-02-30", "2026-13-01", "today", "2026-1-1", ""] {
            let mut ev = h.anyone().event("GET", "/stats/daily/x", &[], None);
            ev["pathParameters"]["date"] = json!(bad);
            let (status, body) = h.send(&ev).await;
            assert_eq!(
                (status, body["code"].as_str().unwrap()),
                (400, "invalid_parameter"),
                "{bad}"
            );
        }
    }
}
