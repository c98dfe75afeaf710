//! `GET /products/{sku}/sales` (the numeric SKU; answered as `productId`): units sold and revenue
//! (cents), kept by the `commerce-stream` stream consumer on `AGGREGATE_SHARDS` write shards and
//! summed here from ONE BatchGetItem of every shard.

use api::declare::*;
use api::wire::sharded_counter;
use keys::commerce::{self as k, Sku};
use model::commerce::ProductSales;
use serde_json::json;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-product-sales",
    Access::Staff,
    &Route::get(
        "/products/{sku}/sales",
        "Units sold and revenue of a product (a sharded counter, summed)",
        &[Pattern {
            id: "",
            route: "`GET /products/{sku}/sales`",
            index: Index::Table,
            request: "BatchGetItem of every `SALES#<sku>#<shard>`",
            returns: "`{productId, unitsSold, revenue}`",
            example: Example::staff("/products/1003/sales"),
        }],
    ),
)
.needs(Needs::SHARDS);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::ok::<Sales>("the sums over every shard (zero for a product never sold), over the order lines placed, less those of orders since cancelled or returned")
        .tag("derived"),
];

// What `handle`'s sharded counter answers: its identity and each total, as `totals` names them.
/// A product's sales, summed over its shards.
#[derive(JsonSchema)]
#[schemars(inline, rename_all = "camelCase")]
#[allow(dead_code)]
struct Sales {
    product_id: Sku,
    units_sold: api::wire::DerivedInteger,
    revenue: api::wire::DerivedInteger,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    let shards = k::product_sales_shards(sku, deps.shards()?);
    let totals = [
        (ProductSales::UNITS_SOLD, "unitsSold"),
        (ProductSales::REVENUE, "revenue"),
    ];
    let view = sharded_counter(&deps.table, &shards, json!({ "productId": sku }), &totals).await?;
    api::json(200, &view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::sku;
    use keys::Shard;
    use model::Entity;
    use testkit::Harness;

    /// On 5 shards.
    async fn harness() -> Harness {
        Harness::with_shards(&FUNCTION, handle, testkit::table().await, 5)
    }

    #[tokio::test]
    async fn sums_every_shard_in_one_request() {
        let h = harness().await;
        for (shard, units) in [(0, 3), (2, 4), (4, 10)] {
            let shard = ProductSales {
                sku: sku(42),
                shard: Shard::new(shard, 5).unwrap(),
                units_sold: units.into(),
                revenue: (units * 100).into(),
            };
            assert_eq!(
                shard.key().pk(),
                format!("SALES#000000000042#0{}", shard.shard.number())
            );
            h.table.put(&shard, None).await.unwrap();
        }
        let (status, body) = h.get("/products/42/sales", &[]).await;
        assert_eq!(status, 200);
        assert_eq!(
            body,
            json!({ "productId": 42, "unitsSold": 17, "revenue": 1700 })
        );
        let requests = h.table.meter().requests();
        let requests = &requests[3..];
        assert_eq!((requests.len(), requests[0].operation), (1, "BatchGetItem"));
        // BatchGetItem bills each item found like a GetItem: half a unit per 4 KB, eventually
        // consistent (DynamoDB Local bills the 3 shards found; DynamoDB may also bill the
        // missing ones their minimum).
        assert_eq!(requests[0].items, 3);
        assert_eq!(requests[0].read_units, 0.5 * 3.0);

        let (status, body) = h.get("/products/7/sales", &[]).await;
        assert_eq!(
            (status, body["unitsSold"].as_i64()),
            (200, Some(0)),
            "no sales yet is zero"
        );
    }

    #[tokio::test]
    async fn bad_product_ids_are_400() {
        let h = harness().await;
        for bad in ["0", "-1", "abc", "1.5", "1000000000000", "007", "4#2"] {
            let mut ev = h.anyone().event("GET", "/products/x/sales", &[], None);
            ev["pathParameters"]["sku"] = json!(bad);
            let (status, body) = h.send(&ev).await;
            assert_eq!(
                (status, body["code"].as_str().unwrap()),
                (400, "invalid_parameter"),
                "{bad}"
            );
        }
        assert!(h.table.meter().requests().is_empty());
    }
}
