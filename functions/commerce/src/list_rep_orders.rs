//! O10: `GET /reps/{repId}/orders?status=&from=YYYY-MM-DD&to=YYYY-MM-DD&limit=&cursor=`: the
//! orders placed under an account rep (an employee) in the date range (UTC, both ends included;
//! open-ended when omitted), newest first, a page at a time. Staff only.
//!
//! An order summary placed under a rep stands in GSI1's `REP#<repId>` partition at
//! `<STATUS>#<orderId>`, and the status projection rewrites that sort key as the order moves on
//! (AWS's relational example, pattern 10: "for each StatusCode"):
//! - with `status`: ONE query, `GSI1SK BETWEEN <STATUS>#<first ULID of from> AND <STATUS>#<last
//!   ULID of to>`, backwards;
//! - without: that query for every status, in parallel, merged into ONE order, newest first,
//!   with ONE signed cursor (`store::merge`). The streams' sort keys start with their status, so
//!   they are merged by the order id (a ULID: creation order), which each stream follows.
//!
//! The rep's customers share the partition (`CUSTOMER#<id>`, O9) and fall outside every status
//! range: a page never pays for them. An unknown rep, or one without orders, is an empty list.

use crate::data::{ByStatus, ORDER_STATUS_KEYS, RepOrders, StatusKeys, StatusRead};
use crate::views as view;
use api::declare::*;
use keys::commerce::OrderStatus;
use model::commerce::OrderSummary;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-rep-orders",
    Access::Staff,
    &Route::get(
        "/reps/{repId}/orders",
        "O10: the orders placed under an account rep in a date range, newest first (one status: one GSI1 query; else every status merged)",
        &[Pattern {
            id: "O10",
            route: "`GET /reps/{repId}/orders?status=&from=&to=&limit=&cursor=` (staff)",
            index: Index::Gsi1,
            request: "with `status`: Query `GSI1PK = REP#<repId> AND GSI1SK BETWEEN <STATUS>#<first ULID of from> AND <STATUS>#<last ULID of to>` (order summaries), backwards; without: that Query for each of the 8 statuses in parallel, merged by order id; with `OrderStatusKeys=multi-attribute`, on `RepOrdersByStatus`: `AccountRepId = <repId> AND Type = Order AND Status = <STATUS> AND OrderId BETWEEN ...`; within 32 read units at 4 KB an order",
            returns: "`{repId, orders, nextCursor}` newest first",
            example: Example::staff("/reps/E100/orders?from=2020-11-01&to=2020-12-31"),
        }],
    )
    .paged(20),
)
.needs(Needs::TABLE.with_settings(&[ORDER_STATUS_KEYS]));

api::refusals! {
    InvalidRange = crate::params::INVALID_RANGE,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>(
    "a page of the rep's orders, newest first (empty for an unknown rep)",
)
.refusals(Refused::ALL)
.query(&[
    Query::of::<OrderStatus>(
        "status",
        "only the orders in this status; every status, merged newest first, when absent",
    ),
    crate::params::ORDER_DATES[0],
    crate::params::ORDER_DATES[1],
])];

api::page! {
    /// A page of a rep's orders.
    Page {
        rep_id: keys::Id,
        orders: Vec<view::OrderSummary>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let rep = api::path_id(&req, "repId")?;
    let status: Option<OrderStatus> = api::query_parsed(&req, "status")?;
    let (from, to) = crate::params::query_order_dates(&req)?;
    let bad_range = |e| ApiError::invalid_parameter("to", e);
    let read = match status {
        Some(status) => StatusRead::One(ByStatus::rep(&rep, status, from, to).map_err(bad_range)?),
        None => StatusRead::Every(RepOrders::new(&rep, from, to).map_err(bad_range)?),
    };
    // A cursor is bound to this rep, status (or all of them), range and page size: a merged
    // cursor holds every status's position, a single one DynamoDB's key (of either design).
    let paging = api::paging(deps, &req, &FUNCTION, |limit| {
        let status = status.map_or("*", OrderStatus::as_str);
        format!("O10|{rep}|{status}|{from}|{to}|{limit}")
    })?;
    let keys = StatusKeys::of(deps)?;
    let page = read
        .page(&deps.table, keys, paging.limit, paging.start.as_ref())
        .await?;
    let next = paging.next_cursor(page.last_key)?;
    let orders = store::shown(page.items, |o: &OrderSummary| view::order_summary(&o.0))?;
    api::json(
        200,
        &Page {
            rep_id: rep,
            orders,
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use keys::SortableId;
    use model::Item;
    use serde_json::Value;
    use serde_json::json;
    use store::Table;
    use testkit::Harness;
    use testkit::{anonymous, as_staff, query_read_units, signed_in_as, walk_pages};

    /// 2026-01-01T00:00:00Z.
    const JAN_1_2026: u64 = 1_767_225_600_000;
    const DAY: u64 = 86_400_000;

    /// The answer to `GET /reps/<rep>/orders?<query>` sent by `who`, authorized as `main` does.
    async fn get(
        table: &Table,
        rep: &str,
        query: &[(&str, &str)],
        who: fn(Value) -> Value,
    ) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone()).dispatched();
        h.get_as(who, &h.path(&[rep]), query).await
    }

    /// A signed-in customer (of rep E1), not staff.
    fn as_customer(ev: Value) -> Value {
        signed_in_as(ev, "c0", &[])
    }

    fn order_ids(body: &Value) -> Vec<String> {
        testkit::column(&body["orders"], "orderId")
    }

    /// Every order of a walk over all pages (`limit` per page), after the page itself was
    /// checked to be a 200.
    async fn walk(table: &Table, rep: &str, query: &[(&str, &str)], limit: &str) -> Vec<String> {
        walk_pages(limit, async |page: &[(&str, &str)]| {
            let mut q = query.to_vec();
            q.extend_from_slice(page);
            let (s, b) = get(table, rep, &q, as_staff).await;
            assert_eq!(s, 200, "{b}");
            b
        })
        .await
        .iter()
        .flat_map(order_ids)
        .collect()
    }

    async fn set_status(table: &Table, order: &str, at_ms: u64, status: OrderStatus) {
        let changed = crate::data::apply_order_status(
            table,
            Default::default(),
            SortableId::parse(order).unwrap(),
            SortableId::at_ms(at_ms),
            status,
        )
        .await
        .unwrap();
        assert!(changed);
    }

    /// The items of `rep`'s GSI1 partition whose sort key starts with `prefix`.
    async fn partition(table: &Table, rep: &str, prefix: &str) -> Vec<Item> {
        let partition = testkit::items_with(table, "GSI1PK", &format!("REP#{rep}")).await;
        let in_prefix = |i: &Item| i["GSI1SK"].as_s().unwrap().starts_with(prefix);
        partition.into_iter().filter(in_prefix).collect()
    }

    /// Rep E1 looks after c0, c1, c2, rep E2 after c3; c4 has none. E1's customers place 12
    /// orders, one a day from 2026-01-01 (customer n % 3); orders 2 and 5 shipped, 7 delivered,
    /// 10 cancelled. c3 and c4 place two orders each. Returns E1's order ids, oldest first.
    async fn seeded() -> (Table, Vec<String>) {
        let table = hr::fixtures::org_with(
            testkit::table().await,
            &[("E1", "Ada Lovelace"), ("E2", "Alan Turing")],
        )
        .await;
        for c in ["c0", "c1", "c2"] {
            fixtures::customer_of_rep(&table, c, "E1").await;
        }
        fixtures::customer_of_rep(&table, "c3", "E2").await;
        fixtures::customer(&table, "c4").await;
        let mut ids = Vec::new();
        for n in 0..12u64 {
            let customer = format!("c{}", n % 3);
            let order =
                fixtures::order(&table, &customer, JAN_1_2026 + n * DAY, &[(1, 2, 150)]).await;
            assert_eq!(order.account_rep_id, Some(fixtures::id("E1")));
            ids.push(order.order_id.to_string());
        }
        for c in ["c3", "c4"] {
            for n in 0..2u64 {
                fixtures::order(&table, c, JAN_1_2026 + n * DAY + 1, &[(1, 1, 100)]).await;
            }
        }
        let later = JAN_1_2026 + 30 * DAY;
        for (n, status) in [
            (2, OrderStatus::Shipped),
            (5, OrderStatus::Shipped),
            (7, OrderStatus::Delivered),
            (10, OrderStatus::Cancelled),
        ] {
            set_status(&table, &ids[n], later, status).await;
        }
        table.meter().reset();
        (table, ids)
    }

    fn newest_first(ids: &[String], picked: &[usize]) -> Vec<String> {
        let mut out: Vec<String> = picked.iter().map(|&n| ids[n].clone()).collect();
        out.sort();
        out.reverse();
        out
    }

    #[tokio::test]
    async fn o10_one_status_is_one_minimal_query_newest_first() {
        let (table, ids) = seeded().await;
        let (s, body) = get(&table, "E1", &[("status", "OPEN")], as_staff).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(body["repId"], "E1");
        assert_eq!(
            order_ids(&body),
            newest_first(&ids, &[0, 1, 3, 4, 6, 8, 9, 11])
        );
        assert!(
            body["orders"].as_array().unwrap().iter().all(|o| {
                o["status"] == "OPEN" && o["accountRepId"] == "E1" && o["total"] == 300
            })
        );
        assert_eq!(body["nextCursor"], Value::Null);
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(
            (requests[0].operation, requests[0].index, requests[0].items),
            ("Query", Some("GSI1"), 8)
        );
        let read = partition(&table, "E1", "OPEN#").await;
        assert_eq!(requests[0].index_read_units, query_read_units(&read, false));
        assert_eq!(requests[0].read_units, 0.0, "nothing read from the table");

        let (_, shipped) = get(&table, "E1", &[("status", "SHIPPED")], as_staff).await;
        assert_eq!(order_ids(&shipped), newest_first(&ids, &[2, 5]));
        // 2026-01-04 to 2026-01-10: days 3..=9.
        let range = [
            ("status", "OPEN"),
            ("from", "2026-01-04"),
            ("to", "2026-01-10"),
        ];
        assert_eq!(
            order_ids(&get(&table, "E1", &range, as_staff).await.1),
            newest_first(&ids, &[3, 4, 6, 8, 9])
        );
        // Another rep's list holds its own orders only; an employee without orders, nothing.
        assert_eq!(
            order_ids(&get(&table, "E2", &[("status", "OPEN")], as_staff).await.1).len(),
            2
        );
        let (_, none) = get(&table, "E9", &[("status", "OPEN")], as_staff).await;
        assert_eq!(none["orders"], json!([]));
    }

    /// Switched to the multi-attribute index (`ORDER_STATUS_KEYS=multi-attribute`), O10 reads
    /// `RepOrdersByStatus` and answers every page as it does from GSI1, cursors included.
    #[tokio::test]
    async fn the_multi_attribute_index_answers_the_same_pages() {
        let (table, _) = seeded().await;
        let by = |keys: StatusKeys| {
            let deps = testkit::deps(table.clone(), FUNCTION.needs)
                .with_setting(&ORDER_STATUS_KEYS, keys.as_str())
                .expect("a design");
            Harness::with_deps(&FUNCTION, handle, deps)
        };
        let [gsi1, multi] = crate::data::Design::ALL.map(|d| by(StatusKeys::only(d)));
        let index = ("GSI1", "RepOrdersByStatus");
        for query in [
            vec![("status", "OPEN")],
            vec![],
            vec![("from", "2026-01-03")],
        ] {
            let mut q = query.clone();
            q.push(("limit", "3"));
            let get =
                async |h: &Harness, q: &[(&str, &str)]| h.as_staff().get(&h.path(&["E1"]), q).await;
            crate::designs::same_pages_in_both_designs((&gsi1, &multi), index, &q, get).await;
        }
    }

    #[tokio::test]
    async fn a_status_change_moves_an_order_between_status_lists() {
        let (table, ids) = seeded().await;
        let newest = &ids[11];
        let open = |b: &Value| order_ids(b).contains(newest);
        assert!(open(
            &get(&table, "E1", &[("status", "OPEN")], as_staff).await.1
        ));
        set_status(&table, newest, JAN_1_2026 + 40 * DAY, OrderStatus::Shipped).await;
        assert!(!open(
            &get(&table, "E1", &[("status", "OPEN")], as_staff).await.1
        ));
        let (_, shipped) = get(&table, "E1", &[("status", "SHIPPED")], as_staff).await;
        assert_eq!(order_ids(&shipped), newest_first(&ids, &[2, 5, 11]));
        assert_eq!(shipped["orders"][0]["status"], "SHIPPED");
        // In the list of every status, still once, with its new status.
        let (_, all) = get(&table, "E1", &[], as_staff).await;
        assert_eq!(
            order_ids(&all),
            newest_first(&ids, &(0..12).collect::<Vec<_>>())
        );
        assert_eq!(all["orders"][0]["status"], "SHIPPED");
    }

    #[tokio::test]
    async fn o10_without_status_merges_one_query_per_status_newest_first() {
        let (table, ids) = seeded().await;
        let (s, body) = get(&table, "E1", &[("limit", "100")], as_staff).await;
        assert_eq!(s, 200, "{body}");
        // Every order of the rep once, newest first whatever its status; never a customer (they
        // share the partition), never another rep's order or one placed without a rep.
        assert_eq!(
            order_ids(&body),
            newest_first(&ids, &(0..12).collect::<Vec<_>>())
        );
        let statuses = testkit::column(&body["orders"], "status");
        assert_eq!(
            statuses,
            [
                "OPEN",
                "CANCELLED",
                "OPEN",
                "OPEN",
                "DELIVERED",
                "OPEN",
                "SHIPPED",
                "OPEN",
                "OPEN",
                "SHIPPED",
                "OPEN",
                "OPEN"
            ]
        );
        assert_eq!(body["nextCursor"], Value::Null);
        // One query per status, in parallel, each paying for its status's orders only: at most
        // the share of the read budget a status is given at 4 KB an order (7 of 32 units / 8);
        // a status that fills its share is asked once more, and that query finds nothing.
        let share = store::budget_items(
            store::PAGE_READ_BUDGET / OrderStatus::ALL.len() as f64,
            model::commerce::Order::LARGEST_BYTES,
        ) as usize;
        let mut requests: Vec<(usize, f64)> = table
            .meter()
            .requests()
            .iter()
            .map(|r| {
                assert_eq!((r.operation, r.index), ("Query", Some("GSI1")));
                (r.items, r.index_read_units)
            })
            .collect();
        let mut expected = Vec::new();
        // DynamoDB charges 0.5 for a query that reads nothing; DynamoDB Local reports 0.
        let units = |read: &[Item]| {
            if read.is_empty() {
                0.0
            } else {
                query_read_units(read, false)
            }
        };
        for status in OrderStatus::ALL {
            let read = partition(&table, "E1", &format!("{status}#")).await;
            let (first, rest) = read.split_at(read.len().min(share));
            expected.push((first.len(), units(first)));
            if read.len() >= share {
                expected.push((rest.len(), units(rest)));
            }
        }
        requests.sort_by(|a, b| a.partial_cmp(b).unwrap());
        expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(requests, expected);
    }

    #[tokio::test]
    async fn walking_the_merged_pages_returns_every_order_once_in_order() {
        let (table, ids) = seeded().await;
        let all = newest_first(&ids, &(0..12).collect::<Vec<_>>());
        for limit in ["1", "3", "5", "12"] {
            assert_eq!(walk(&table, "E1", &[], limit).await, all, "limit {limit}");
        }
        // 2026-01-03 to 2026-01-08: days 2..=7, of every status.
        let range = [("from", "2026-01-03"), ("to", "2026-01-08")];
        assert_eq!(
            walk(&table, "E1", &range, "2").await,
            newest_first(&ids, &[2, 3, 4, 5, 6, 7])
        );
        // One status, paged too.
        assert_eq!(
            walk(&table, "E1", &[("status", "OPEN")], "3").await,
            newest_first(&ids, &[0, 1, 3, 4, 6, 8, 9, 11])
        );
    }

    #[tokio::test]
    async fn a_customer_is_refused_and_bad_input_is_a_4xx_reading_nothing() {
        let (table, _) = seeded().await;
        let (_, merged) = get(&table, "E1", &[("limit", "2")], as_staff).await;
        let merged = merged["nextCursor"].as_str().unwrap().to_owned();
        let (_, single) = get(
            &table,
            "E1",
            &[("limit", "2"), ("status", "OPEN")],
            as_staff,
        )
        .await;
        let single = single["nextCursor"].as_str().unwrap().to_owned();
        table.meter().reset();
        let long_id = "x".repeat(65);
        type Case<'a> = (
            (&'a str, Vec<(&'a str, &'a str)>, fn(Value) -> Value),
            u16,
            &'static str,
        );
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("E1", vec![], as_customer), 403, "forbidden"),
            (("E1", vec![("status", "OPEN")], as_customer), 403, "forbidden"),
            (("E1", vec![], anonymous), 401, "unauthorized"),
            (("E#1", vec![], as_staff), 400, "invalid_parameter"),
            ((&long_id, vec![], as_staff), 400, "invalid_parameter"),
            (("E1", vec![("status", "open")], as_staff), 400, "invalid_parameter"),
            (("E1", vec![("status", "LOST")], as_staff), 400, "invalid_parameter"),
            (("E1", vec![("from", "2026-02-30")], as_staff), 400, "invalid_parameter"),
            (("E1", vec![("to", "tomorrow")], as_staff), 400, "invalid_parameter"),
            (("E1", vec![("from", "1969-12-31")], as_staff), 400, "invalid_parameter"),
            (("E1", vec![("from", "2026-01-03"), ("to", "2026-01-01")], as_staff), 400, "invalid_range"),
            // A merged cursor for one status, one status's cursor for all of them, another
            // rep's, another range's.
            (("E1", vec![("limit", "2"), ("status", "OPEN"), ("cursor", &merged)], as_staff), 400, "invalid_cursor"),
            (("E1", vec![("limit", "2"), ("cursor", &single)], as_staff), 400, "invalid_cursor"),
            (("E2", vec![("limit", "2"), ("cursor", &merged)], as_staff), 400, "invalid_cursor"),
            (("E1", vec![("limit", "2"), ("from", "2026-01-02"), ("cursor", &merged)], as_staff), 400, "invalid_cursor"),
        ];
        testkit::assert_errors(cases, async |(rep, q, who)| get(&table, rep, q, *who).await).await;
        assert!(table.meter().requests().is_empty(), "nothing read");
    }
}
