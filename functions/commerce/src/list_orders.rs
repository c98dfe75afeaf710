//! O5: `GET /orders?status=OPEN&from=YYYY-MM-DD&to=YYYY-MM-DD&limit=&cursor=`: every order in a
//! status placed in the date range (UTC, both ends included; open-ended when omitted), across
//! customers, newest first. Staff only.
//!
//! The write-sharded GSI2 of AWS's relational example: an order header stands in `ORDERS#<shard>`
//! (its id's code points modulo 15: the example's worked figures, 13 shards, padded to 15), sorted
//! by `<STATUS>#<orderId>`. Every shard is queried in parallel with `GSI2SK BETWEEN <STATUS>#<first
//! ULID of from> AND <STATUS>#<last ULID of to>`, backwards, and the shards are merged into ONE
//! order with ONE signed cursor (`store::merge`). The status projection rewrites the header's GSI2
//! key when a tracking event changes the status, so an order leaves the OPEN list as it ships.

use crate::data::{ORDER_STATUS_SHARDS, order_shards};
use crate::views as view;
use api::declare::*;
use keys::{
    Shard,
    commerce::{self as k, OrderStatus},
};
use model::commerce::OrderHeader;
use store::merge::Direction;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-orders",
    Access::Staff,
    &Route::get(
        "/orders",
        "O5: orders in a status across customers (15 GSI2 shards merged), newest first",
        &[Pattern {
            id: "O5",
            route: "`GET /orders?status=&from=&to=&limit=&cursor=` (staff)",
            index: Index::Gsi2,
            request: "15 Queries in parallel `GSI2PK = ORDERS#<00..14> AND GSI2SK BETWEEN <STATUS>#<first ULID of from> AND <STATUS>#<last ULID of to>`, backwards, merged; within 32 read units at 4 KB an order",
            returns: "`{status, orders, nextCursor}` newest first",
            example: Example::staff("/orders?status=OPEN&from=2020-11-01&to=2020-12-31"),
        }],
    )
    .paged(20),
)
.needs(Needs::TABLE.with_settings(&[ORDER_STATUS_SHARDS]));

api::refusals! {
    InvalidRange = crate::params::INVALID_RANGE,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>("a page of the orders, newest first")
    .refusals(Refused::ALL)
    .query(&[
        Query::of::<OrderStatus>("status", "").required(),
        crate::params::ORDER_DATES[0],
        crate::params::ORDER_DATES[1],
    ])];

api::page! {
    /// A page of the orders in a status.
    Page {
        status: OrderStatus,
        orders: Vec<view::OrderSummary>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let status: OrderStatus = api::query_parsed(&req, "status")?.ok_or_else(|| {
        ApiError::invalid_parameter("status", "give status=OPEN (or another status)")
    })?;
    let (from, to) = crate::params::query_order_dates(&req)?;
    let streams = Shard::all(order_shards(deps)?)
        .map(|shard| k::order_status_range(shard, status, from, to))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ApiError::invalid_parameter("to", e))?;
    let paging = api::paging(deps, &req, &FUNCTION, |limit| {
        format!("O5|{status}|{from}|{to}|{limit}")
    })?;
    let largest = model::commerce::Order::LARGEST_BYTES;
    let (items, next) = paging
        .merged_page(&deps.table, streams, Direction::Descending, largest)
        .await?;
    let orders = store::shown(items, |h: &OrderHeader| view::order_summary(&h.0))?;
    api::json(
        200,
        &Page {
            status,
            orders,
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use serde_json::Value;
    use store::Table;
    use testkit::Harness;
    use testkit::walk_pages;

    async fn get(table: &Table, query: &[(&str, &str)]) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.as_staff().get("/orders", query).await
    }

    #[tokio::test]
    async fn o5_merges_every_shard_newest_first_and_follows_status() {
        let table = testkit::table().await;
        let mut placed = Vec::new();
        for c in 0..3 {
            fixtures::customer(&table, &format!("c{c}")).await;
        }
        // 24 orders a day apart from 2026-01-01, over three customers.
        for n in 0..24u64 {
            let ms = 1_767_225_600_000 + n * 86_400_000;
            let order = fixtures::order(&table, &format!("c{}", n % 3), ms, &[(1, 1, 100)]).await;
            placed.push(order.order_id.to_string());
        }
        // One shipped: it leaves the OPEN list (as the status projection writes it).
        let shipped = keys::SortableId::parse(&placed[23]).unwrap();
        let event = keys::SortableId::at_ms(1_780_000_000_000);
        assert!(
            crate::data::apply_order_status(
                &table,
                Default::default(),
                shipped,
                event,
                OrderStatus::Shipped
            )
            .await
            .unwrap()
        );
        let walk = async |query: Vec<(&'static str, &'static str)>| {
            walk_pages("5", async |page: &[(&str, &str)]| {
                let mut q = query.clone();
                q.extend_from_slice(page);
                let (s, b) = get(&table, &q).await;
                assert_eq!(s, 200, "{b}");
                b
            })
            .await
            .iter()
            .flat_map(|p| p["orders"].as_array().unwrap().clone())
            .map(|o| o["orderId"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
        };
        let open = walk(vec![("status", "OPEN")]).await;
        let mut expected: Vec<_> = placed[..23].to_vec();
        expected.reverse();
        assert_eq!(open, expected, "every open order once, newest first");
        assert_eq!(
            walk(vec![("status", "SHIPPED")]).await,
            [placed[23].clone()]
        );
        // 2026-01-05 to 2026-01-07: three days.
        let range = walk(vec![
            ("status", "OPEN"),
            ("from", "2026-01-05"),
            ("to", "2026-01-07"),
        ])
        .await;
        assert_eq!(
            range,
            [placed[6].clone(), placed[5].clone(), placed[4].clone()]
        );
    }

    #[tokio::test]
    async fn placed_on_4_shards_then_read_on_4_or_raised_to_15_every_order_is_listed() {
        let table = testkit::table().await;
        fixtures::customer(&table, "c0").await;
        let mut placed = Vec::new();
        for n in 0..10u64 {
            let ms = 1_767_225_600_000 + n * 3_600_000;
            let order = crate::data::NewOrder {
                customer: fixtures::id("c0"),
                order_id: keys::SortableId::at_ms(ms),
                created_at: fixtures::at(ms),
                lines: vec![(fixtures::sku(1), 1, 100)],
                design: crate::data::OrderDesign {
                    status_shards: 4,
                    ..Default::default()
                },
            };
            let placed_now = crate::fixtures::place_order(&table, &order, None).await;
            assert_eq!(placed_now.unwrap(), crate::data::PlaceOutcome::Placed);
            placed.push(order.order_id.to_string());
        }
        placed.reverse();
        for count in [4, 15] {
            let deps = testkit::deps(table.clone(), FUNCTION.needs)
                .with_setting(&ORDER_STATUS_SHARDS, &count.to_string())
                .unwrap();
            let h = Harness::with_deps(&FUNCTION, handle, deps);
            let (s, body) = h.as_staff().get("/orders", &[("status", "OPEN")]).await;
            assert_eq!(s, 200, "{body}");
            let listed = testkit::column(&body["orders"], "orderId");
            assert_eq!(listed, placed, "read on {count} shards");
        }
    }

    #[tokio::test]
    async fn bad_input_is_a_400() {
        let table = testkit::table().await;
        for q in [
            vec![],
            vec![("status", "open")],
            vec![("status", "OPEN"), ("from", "2026-02-30")],
            vec![
                ("status", "OPEN"),
                ("from", "2026-02-03"),
                ("to", "2026-02-01"),
            ],
            vec![("status", "OPEN"), ("cursor", "forged")],
        ] {
            assert_eq!(get(&table, &q).await.0, 400, "{q:?}");
        }
    }
}
