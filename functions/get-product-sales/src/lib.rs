//! `GET /products/{productId}/sales` (productId: the numeric SKU): units sold and revenue
//! (cents), kept by the `aggregate-orders` stream handler on `AGGREGATE_SHARDS` write shards and
//! summed here from ONE BatchGetItem of every shard.

use api::ApiError;
use keys::{Shard, commerce};
use lambda_http::{Body, Request, Response};
use serde_json::json;
use store::{Table, aggregate};

pub struct Deps {
    pub table: Table,
    pub shards: u32,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let raw = api::path_param(&req, "productId")?;
    let sku = raw
        .parse::<u64>()
        .ok()
        .filter(|s| {
            (1..=commerce::MAX_SKU).contains(s) && !raw.starts_with('0') && !raw.starts_with('+')
        })
        .ok_or_else(|| {
            ApiError::invalid_parameter(
                "productId",
                format!("give the SKU, an integer from 1 to {}", commerce::MAX_SKU),
            )
        })?;
    let keys = Shard::all(deps.shards)
        .map(|s| commerce::product_sales(sku, s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ApiError::invalid_parameter("productId", e))?;
    let sums = aggregate::sum_shards(&deps.table, &keys, &["UnitsSold", "Revenue"]).await?;
    api::json(
        200,
        &json!({
            "productId": sku,
            "unitsSold": sums.get("UnitsSold").copied().unwrap_or(0),
            "revenue": sums.get("Revenue").copied().unwrap_or(0),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::item::{key_map, n, s};
    use testkit::{event, request, response_json};

    const ROUTE: &str = "GET /products/{productId}/sales";

    #[tokio::test]
    async fn sums_every_shard_in_one_request() {
        let deps = Deps {
            table: testkit::table().await,
            shards: 5,
        };
        for (shard, units) in [(0, 3), (2, 4), (4, 10)] {
            let mut item =
                key_map(&commerce::product_sales(42, Shard::new(shard, 5).unwrap()).unwrap());
            item.insert("Type".into(), s("ProductSales"));
            item.insert("UnitsSold".into(), n(units));
            item.insert("Revenue".into(), n(units * 100));
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
                request(&event(ROUTE, "/products/42/sales", &[], None)),
            )
            .await
            .unwrap(),
        );
        assert_eq!(status, 200);
        assert_eq!(
            body,
            json!({ "productId": 42, "unitsSold": 17, "revenue": 1700 })
        );
        let requests = deps.table.meter().requests();
        assert_eq!((requests.len(), requests[0].operation), (1, "BatchGetItem"));
        // BatchGetItem bills each item found like a GetItem: half a unit per 4 KB, eventually
        // consistent (DynamoDB Local bills the 3 shards found; DynamoDB may also bill the
        // missing ones their minimum).
        assert_eq!(requests[0].items, 3);
        assert_eq!(requests[0].read_units, 0.5 * 3.0);

        let (status, body) = response_json(
            &handle(
                &deps,
                request(&event(ROUTE, "/products/7/sales", &[], None)),
            )
            .await
            .unwrap(),
        );
        assert_eq!(
            (status, body["unitsSold"].as_i64()),
            (200, Some(0)),
            "no sales yet is zero"
        );
    }

    #[tokio::test]
    async fn bad_product_ids_are_400() {
        let deps = Deps {
            table: testkit::table().await,
            shards: 5,
        };
        for bad in ["0", "-1", "abc", "1.5", "1000000000000", "007", "4#2"] {
            let mut ev = event(ROUTE, "/products/x/sales", &[], None);
            ev["pathParameters"]["productId"] = json!(bad);
            let (status, body) = response_json(&api::respond(handle(&deps, request(&ev)).await));
            assert_eq!(
                (status, body["code"].as_str().unwrap()),
                (400, "invalid_parameter"),
                "{bad}"
            );
        }
        assert!(deps.table.meter().requests().is_empty());
    }
}
