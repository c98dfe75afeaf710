//! `GET /stats/daily/{date}`: the site's orders, revenue (cents) and reviews of a day (UTC),
//! kept by the stream handlers on `AGGREGATE_SHARDS` write shards and summed here from ONE
//! BatchGetItem of every shard.

use api::ApiError;
use keys::{Date, Shard, derived};
use lambda_http::{Body, Request, Response};
use serde_json::json;
use store::{Table, aggregate};

pub struct Deps {
    pub table: Table,
    pub shards: u32,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let raw = api::path_param(&req, "date")?;
    let date = Date::parse_iso(&raw).map_err(|e| ApiError::invalid_parameter("date", e))?;
    let keys: Vec<_> = Shard::all(deps.shards)
        .map(|s| derived::daily_stats(date, s))
        .collect();
    let sums = aggregate::sum_shards(&deps.table, &keys, &["Orders", "Revenue", "Reviews"]).await?;
    let get = |k: &str| sums.get(k).copied().unwrap_or(0);
    api::json(
        200,
        &json!({ "date": date.iso(), "orders": get("Orders"), "revenue": get("Revenue"), "reviews": get("Reviews") }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::item::{key_map, n, s};
    use testkit::{event, request, response_json};

    const ROUTE: &str = "GET /stats/daily/{date}";

    #[tokio::test]
    async fn sums_every_shard_in_one_request() {
        let deps = Deps {
            table: testkit::table().await,
            shards: 3,
        };
        let day = Date::parse_iso("2026-11-22").unwrap();
        for (shard, orders, reviews) in [(0, 2, 1), (1, 5, 0), (2, 1, 7)] {
            let mut item = key_map(&derived::daily_stats(day, Shard::new(shard, 3).unwrap()));
            item.insert("Type".into(), s("DailyStats"));
            item.insert("Orders".into(), n(orders));
            item.insert("Revenue".into(), n(orders * 1000));
            item.insert("Reviews".into(), n(reviews));
            deps.table
                .client()
                .put_item()
                .table_name(deps.table.name())
                .set_item(Some(item))
                .send()
                .await
                .unwrap();
        }
        let (status, body) = response_json(
            &handle(
                &deps,
                request(&event(ROUTE, "/stats/daily/2026-11-22", &[], None)),
            )
            .await
            .unwrap(),
        );
        assert_eq!(status, 200);
        assert_eq!(
            body,
            json!({ "date": "2026-11-22", "orders": 8, "revenue": 8000, "reviews": 8 })
        );
        assert_eq!(deps.table.meter().requests().len(), 1);
    }

    #[tokio::test]
    async fn impossible_dates_are_400() {
        let deps = Deps {
            table: testkit::table().await,
            shards: 3,
        };
        for bad in ["2026-02-30", "2026-13-01", "today", "2026-1-1", ""] {
            let mut ev = event(ROUTE, "/stats/daily/x", &[], None);
            ev["pathParameters"]["date"] = json!(bad);
            let (status, body) = response_json(&api::respond(handle(&deps, request(&ev)).await));
            assert_eq!(
                (status, body["code"].as_str().unwrap()),
                (400, "invalid_parameter"),
                "{bad}"
            );
        }
    }
}
