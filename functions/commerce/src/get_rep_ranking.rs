//! O14: `GET /reps/ranking?period=2026-Q4&limit=&cursor=` → the account reps of a sales period
//! (a quarter) ranked by the total of the orders placed under them, highest first, a page at a
//! time (`limit`, default 10, 1..=100, signed `cursor`). Staff only.
//!
//! AWS's relational example (pattern 14) gives the query only (GSI-1, `PK=YYYY-Q1`, backwards);
//! the items it reads are this project's, derived: the stream pipeline keeps one
//! `RepSales` item per rep and period (its total and order count) and writes its total into its
//! GSI1 sort key, in the period's partition: `RANKING#<YYYY-Qn>` / `<total, 19 digits>#<repId>`.
//! The ranking is then ONE query of that partition, backwards: highest total first, equal totals by
//! rep id, descending. Total and order count are derived values: one that drifted is `null` and
//! named in the `X-Derived-Inconsistent` header.

use crate::views as view;
use api::declare::*;
use keys::{Quarter, commerce as k};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-rep-ranking",
    Access::Staff,
    &Route::get(
        "/reps/ranking",
        "O14: account reps ranked by order total in a sales period (derived, GSI1), highest first",
        &[Pattern {
            id: "O14",
            route: "`GET /reps/ranking?period=2026-Q4&limit=&cursor=` (staff; default 10, 1–100)",
            index: Index::Gsi1,
            request: "Query `GSI1PK = RANKING#<YYYY-Qn>` (rep sales, `GSI1SK = <total, 19 digits>#<repId>`), backwards; within 32 read units at 512 bytes a rep's sales",
            returns: "`{period, reps: [{repId, total, orderCount}], nextCursor}` highest total first (ties: rep id descending), over the period's orders placed under each rep less those since cancelled or returned; 400 bad `period`",
            example: Example::staff("/reps/ranking?period=2026-Q4"),
        }],
    )
    .paged(10),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>(
    "a page of the period's reps in rank order (equal totals by rep id, descending)",
)
.query(&[Query::of::<Quarter>("period", "a sales period, a quarter").required()])];

api::page! {
    /// A page of a period's ranking.
    Page {
        period: Quarter,
        reps: Vec<view::RepSales>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let period = api::query(&req, "period")
        .ok_or_else(|| ApiError::invalid_parameter("period", "give period=2026-Q4 (a quarter)"))
        .and_then(|p| Quarter::parse(&p).map_err(|e| ApiError::invalid_parameter("period", e)))?;
    let paging = api::paging(deps, &req, &FUNCTION, |limit| {
        format!("O14|{period}|{limit}")
    })?;
    let query = deps.table.query(k::rep_ranking(period)).backwards();
    let largest = crate::data::LARGEST_REP_SALES_BYTES;
    let (reps, next_cursor) = paging
        .page_shown_within(query, largest, view::rep_sales)
        .await?;
    api::json(
        200,
        &Page {
            period,
            reps,
            next_cursor,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::id;
    use model::{Derived, Item, commerce::RepSales};
    use serde_json::Value;
    use serde_json::json;
    use store::Table;
    use testkit::Harness;
    use testkit::{all_items, anonymous, as_staff, response_json, signed_in_as, walk_pages};

    /// The answer to `GET /reps/ranking?<query>` sent by `who`, authorized as `main` does, and
    /// its `X-Derived-Inconsistent` header.
    async fn get_with_header(
        table: &Table,
        query: &[(&str, &str)],
        who: fn(Value) -> Value,
    ) -> (u16, Value, Option<String>) {
        let h = Harness::new(&FUNCTION, handle, table.clone()).dispatched();
        let response = h
            .respond(&who(h.anyone().event("GET", "/reps/ranking", query, None)))
            .await;
        let drifted = response
            .headers()
            .get(api::DERIVED_INCONSISTENT)
            .map(|v| v.to_str().unwrap().to_owned());
        let (status, body) = response_json(&response);
        (status, body, drifted)
    }

    async fn get(table: &Table, query: &[(&str, &str)], who: fn(Value) -> Value) -> (u16, Value) {
        let (status, body, _) = get_with_header(table, query, who).await;
        (status, body)
    }

    /// A signed-in customer, not staff.
    fn as_customer(ev: Value) -> Value {
        signed_in_as(ev, "123", &[])
    }

    /// A rep's sales in a period, written as the stream pipeline keeps them: the item and its
    /// ranking key, made from `ranked_total` (what the total was when the key was written).
    async fn put_sales(
        table: &Table,
        period: &str,
        rep: &str,
        total: Derived,
        order_count: Derived,
        ranked_total: u64,
    ) {
        let period = Quarter::parse(period).unwrap();
        let sales = RepSales {
            period,
            rep_id: id(rep),
            total,
            order_count,
        };
        let mut item = model::to_item(&sales).unwrap();
        item.extend(model::key_item(
            &k::rep_ranking_index(period, ranked_total, &id(rep)).unwrap(),
        ));
        table
            .client()
            .put_item()
            .table_name(table.name())
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }

    async fn sales(table: &Table, period: &str, rep: &str, total: i64, orders: i64) {
        put_sales(
            table,
            period,
            rep,
            total.into(),
            orders.into(),
            total as u64,
        )
        .await;
    }

    fn reps(body: &Value) -> Vec<String> {
        testkit::column(&body["reps"], "repId")
    }

    /// 2026-Q4: E2 120,000 cents, E1 and E3 50,000 each, E4 nothing yet; E1 also sold in
    /// 2026-Q3 (another ranking).
    async fn seeded() -> Table {
        let table = testkit::table().await;
        sales(&table, "2026-Q4", "E1", 50_000, 2).await;
        sales(&table, "2026-Q4", "E2", 120_000, 3).await;
        sales(&table, "2026-Q4", "E3", 50_000, 1).await;
        sales(&table, "2026-Q4", "E4", 0, 0).await;
        sales(&table, "2026-Q3", "E1", 900_000, 9).await;
        table.meter().reset();
        table
    }

    #[tokio::test]
    async fn o14_ranks_the_periods_reps_highest_first_in_one_minimal_query() {
        let table = seeded().await;
        let (s, body) = get(&table, &[("period", "2026-Q4")], as_staff).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(
            body,
            json!({
                "period": "2026-Q4",
                "reps": [
                    {"repId": "E2", "total": 120_000, "orderCount": 3},
                    // Equal totals: by rep id, descending.
                    {"repId": "E3", "total": 50_000, "orderCount": 1},
                    {"repId": "E1", "total": 50_000, "orderCount": 2},
                    {"repId": "E4", "total": 0, "orderCount": 0},
                ],
                "nextCursor": null,
            })
        );
        let ranked = testkit::items_with(&table, "GSI1PK", "RANKING#2026-Q4").await;
        testkit::assert_one_index_query(&table, "GSI1", 4, &ranked);

        let (_, q3) = get(&table, &[("period", "2026-Q3")], as_staff).await;
        assert_eq!(reps(&q3), ["E1"]);
        assert_eq!(q3["reps"][0]["total"], 900_000);
        let (s, empty) = get(&table, &[("period", "2025-Q1")], as_staff).await;
        assert_eq!((s, &empty["reps"]), (200, &json!([])));
    }

    #[tokio::test]
    async fn a_new_total_moves_a_rep_in_the_ranking() {
        let table = seeded().await;
        // E4's item rewritten, total and ranking key together (as the stream pipeline does).
        sales(&table, "2026-Q4", "E4", 200_000, 4).await;
        let (_, body) = get(&table, &[("period", "2026-Q4")], as_staff).await;
        assert_eq!(reps(&body), ["E4", "E2", "E3", "E1"]);
    }

    #[tokio::test]
    async fn walking_the_pages_returns_every_rep_once_in_rank_order() {
        let table = seeded().await;
        for limit in ["1", "3"] {
            let pages = walk_pages(limit, async |q| {
                let mut query = vec![("period", "2026-Q4")];
                query.extend_from_slice(q);
                table.meter().reset();
                let (s, body) = get(&table, &query, as_staff).await;
                assert_eq!(s, 200, "{body}");
                assert_eq!(table.meter().requests().len(), 1, "one query per page");
                body
            })
            .await;
            let seen: Vec<_> = pages.iter().flat_map(reps).collect();
            assert_eq!(seen, ["E2", "E3", "E1", "E4"], "limit {limit}");
        }
    }

    #[tokio::test]
    async fn a_drifted_total_is_null_and_named_in_a_header() {
        let table = testkit::table().await;
        // A total below zero and a count that is not a number cannot be right.
        put_sales(
            &table,
            "2026-Q4",
            "E1",
            Derived::from(-5),
            Derived::from(2),
            0,
        )
        .await;
        put_sales(
            &table,
            "2026-Q4",
            "E2",
            Derived::from(700),
            Derived(Err("lots".into())),
            700,
        )
        .await;
        let (s, body, drifted) = get_with_header(&table, &[("period", "2026-Q4")], as_staff).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(
            body["reps"],
            json!([
                {"repId": "E2", "total": 700, "orderCount": null},
                {"repId": "E1", "total": null, "orderCount": 2},
            ])
        );
        assert_eq!(drifted.as_deref(), Some("orderCount, total"));
    }

    #[tokio::test]
    async fn a_customer_is_refused_and_bad_input_is_a_4xx_reading_nothing() {
        let table = seeded().await;
        let (_, page) = get(&table, &[("period", "2026-Q4"), ("limit", "1")], as_staff).await;
        let cursor = page["nextCursor"].as_str().unwrap().to_owned();
        table.meter().reset();
        type Case<'a> = (
            (Vec<(&'a str, &'a str)>, fn(Value) -> Value),
            u16,
            &'static str,
        );
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            ((vec![("period", "2026-Q4")], as_customer), 403, "forbidden"),
            ((vec![("period", "2026-Q4")], anonymous), 401, "unauthorized"),
            ((vec![], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "")], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "2026-Q5")], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "2026-Q0")], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "2026Q4")], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "26-Q4")], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "2026-q4")], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "2026-12-01")], as_staff), 400, "invalid_parameter"),
            ((vec![("period", "2026-Q4"), ("cursor", "forged")], as_staff), 400, "invalid_cursor"),
            // The cursor of another period, or of another page size.
            ((vec![("period", "2026-Q3"), ("limit", "1"), ("cursor", &cursor)], as_staff), 400, "invalid_cursor"),
            ((vec![("period", "2026-Q4"), ("limit", "2"), ("cursor", &cursor)], as_staff), 400, "invalid_cursor"),
        ];
        testkit::assert_errors(cases, async |(q, who)| get(&table, q, *who).await).await;
        assert!(table.meter().requests().is_empty(), "nothing read");
    }

    /// Orders of three customers of rep E1 in 2026-Q4 (100, 3,998 and 1 cents, as the issue
    /// reproduced) and one of `huge` cents, placed, and the stream's INSERT records of their
    /// summaries; E1's quarter already at `before` cents.
    async fn rep_orders_on(before: i64, huge: i64) -> (store::Deps, Vec<Value>) {
        let table = hr::fixtures::org_with(testkit::table().await, &[("E1", "Ada Lovelace")]).await;
        let oct_21_2026_ms = 1_792_540_800_000;
        let totals = [100, 3_998, 1, huge];
        for (n, total) in totals.iter().enumerate() {
            let customer = format!("c{n}");
            crate::fixtures::customer_of_rep(&table, &customer, "E1").await;
            crate::fixtures::order(
                &table,
                &customer,
                oct_21_2026_ms + n as u64,
                &[(1, 1, *total)],
            )
            .await;
        }
        put_sales(
            &table,
            "2026-Q4",
            "E1",
            before.into(),
            1.into(),
            before as u64,
        )
        .await;
        let summaries: Vec<Item> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["Type"].as_s().unwrap() == "Order")
            .collect();
        let records = summaries
            .iter()
            .enumerate()
            .map(|(i, item)| {
                testkit::stream_record(
                    &format!("ev{i}"),
                    i as u64 + 1,
                    testkit::Change::Insert(item),
                )
            })
            .collect();
        let deps = store::Deps::new(
            table,
            crate::commerce_stream::CONSUMER.needs,
            testkit::TEST_CURSOR_KEY,
            2,
        )
        .unwrap();
        (deps, records)
    }

    /// The reproduction: once a rep's quarter reached 999,999,999,999,999 cents (all a
    /// 15-digit ranking key holds), every later order of that rep, other customers' too, was
    /// poison for the rep's sums. The key holds any total a sum can reach now: they count, and
    /// the ranking lists the rep by its exact total.
    #[tokio::test]
    async fn a_rep_past_fifteen_digits_still_ranks_and_no_order_is_poison() {
        let (deps, records) = rep_orders_on(999_999_999_999_999, 5).await;
        let (response, _) =
            crate::commerce_stream::totals::handle_counted(&deps, &testkit::stream_event(records))
                .await;
        assert!(response.poison.is_empty(), "{:?}", response.poison);
        assert!(response.batch_item_failures.is_empty());
        let (s, body) = get(&deps.table, &[("period", "2026-Q4")], as_staff).await;
        assert_eq!(s, 200, "{body}");
        let expected: i64 = 999_999_999_999_999 + 100 + 3_998 + 1 + 5;
        assert_eq!(
            body["reps"][0]["total"],
            serde_json::json!(expected),
            "{body}"
        );
    }

    /// A total no number can hold fails the record that makes it overflow, alone, as poison;
    /// the records batched with it are counted.
    #[tokio::test]
    async fn an_order_that_overflows_a_reps_total_is_poison_alone() {
        let before = i64::MAX - 10_000;
        let (deps, records) = rep_orders_on(before, 1_000_000).await;
        let (response, _) =
            crate::commerce_stream::totals::handle_counted(&deps, &testkit::stream_event(records))
                .await;
        assert_eq!(response.poison.len(), 1, "{:?}", response.poison);
        assert!(response.batch_item_failures.is_empty());
        let (s, body) = get(&deps.table, &[("period", "2026-Q4")], as_staff).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(
            body["reps"][0]["total"],
            serde_json::json!(before + 100 + 3_998 + 1),
            "the other three counted: {body}"
        );
    }
}
