//! C4: `GET /customers/{customerId}/orders?from=YYYY-MM-DD&to=YYYY-MM-DD&status=&limit=&cursor=`:
//! the customer's orders placed in the date range (UTC, both ends included), newest first, a page
//! at a time. One query per page:
//! - without `status`: order ids are ULIDs, so a date range is a sort-key range of the customer's
//!   collection (its order summaries);
//! - with `status` (AWS's relational example, pattern 4): the order headers stand in GSI1's
//!   `CUSTOMER#<customerId>` partition at `<STATUS>#<orderId>` (rewritten by the status projection
//!   as the order moves on), so one status in a date range is one GSI1 sort-key range.
//!
//! An unknown customer is a 404. Telling it apart from a customer without orders in the range
//! costs a second request (a GetItem of the key only), made only when a first page is empty.

use crate::data::{self as commerce, ByStatus, ORDER_STATUS_KEYS, StatusKeys};
use crate::views as view;
use api::declare::*;
use keys::commerce::{self as k, OrderStatus};
use model::commerce::{Order, OrderHeader, OrderSummary};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-customer-orders",
    Access::owner("customerId", Refused::CustomerNotFound.refusal()),
    &Route::get(
        "/customers/{customerId}/orders",
        "C4: a customer's orders in a date range (and a status), newest first, paginated",
        &[
            Pattern {
                id: "C4",
                route: "`GET /customers/{customerId}/orders?from=&to=&limit=&cursor=`",
                index: Index::Table,
                request: "Query `PK = CUSTOMER#<id> AND SK BETWEEN #ORDER#<first ULID of from> AND #ORDER#<last ULID of to>`, backwards; within 32 read units at 4 KB an order",
                returns: "`{customerId, orders, nextCursor}`; 404 unknown customer",
                example: Example::sub(
                    "123",
                    "/customers/123/orders?from=2020-11-25&to=2020-12-06&limit=2",
                ),
            },
            Pattern {
                id: "C4 by status",
                route: "`GET /customers/{customerId}/orders?status=&from=&to=&limit=&cursor=`",
                index: Index::Gsi1,
                request: "Query `GSI1PK = CUSTOMER#<id> AND GSI1SK BETWEEN <STATUS>#<first ULID of from> AND <STATUS>#<last ULID of to>` (order headers), backwards; with `OrderStatusKeys=multi-attribute`, on `CustomerOrdersByStatus`: `CustomerId = <id> AND Type = OrderHeader AND Status = <STATUS> AND OrderId BETWEEN <first ULID of from> AND <last ULID of to>`; within 32 read units at 4 KB an order",
                returns: "`{customerId, orders, nextCursor}` newest first; 404 unknown customer",
                example: Example::sub(
                    "123",
                    "/customers/123/orders?status=OPEN&from=2020-11-25&to=2020-12-06&limit=2",
                ),
            },
        ],
    )
    .paged(20),
)
.needs(Needs::TABLE.with_settings(&[ORDER_STATUS_KEYS]));

api::refusals! {
    CustomerNotFound = crate::refusals::CUSTOMER_NOT_FOUND,
    InvalidRange = crate::params::INVALID_RANGE,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::ok::<Page>("one page of orders")
.refusals(Refused::ALL).query(&[
            Query::of::<keys::commerce::OrderStatus>(
                "status",
                "only the orders in this status (one GSI1 query of the order headers); every status when absent",
            ),
            crate::params::ORDER_DATES[0],
            crate::params::ORDER_DATES[1],
        ]),
];

api::page! {
    /// A page of a customer's orders.
    Page {
        customer_id: keys::Id,
        orders: Vec<view::OrderSummary>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let customer = api::path_id(&req, "customerId")?;
    let status: Option<OrderStatus> = api::query_parsed(&req, "status")?;
    let (from, to) = crate::params::query_order_dates(&req)?;
    if status.is_some() {
        api::count_as_pattern("C4 by status");
    }
    // A cursor is bound to this pattern, this customer, this status (if any) and this range.
    let paging = api::paging(deps, &req, &FUNCTION, |_| match status {
        None => format!("C4|{customer}|{from}|{to}"),
        Some(status) => format!("C4|{customer}|{status}|{from}|{to}"),
    })?;

    // Without a status the summaries in the customer's collection, with one the headers in GSI1.
    let bad_range = |e: keys::KeyError| ApiError::invalid_parameter("from", e);
    let (orders, next): (Vec<Order>, _) = match status {
        None => {
            let range = k::orders_in_range(&customer, from, to).map_err(bad_range)?;
            let query = deps.table.query(range).backwards();
            let largest = model::commerce::Order::LARGEST_BYTES;
            let (summaries, next) = paging
                .page_within::<OrderSummary, _>(query, largest)
                .await?;
            (summaries.into_iter().map(|o| o.0).collect(), next)
        }
        Some(status) => {
            let read = ByStatus::customer(&customer, status, from, to).map_err(bad_range)?;
            let keys = StatusKeys::of(deps)?;
            let page = read
                .page(&deps.table, keys, paging.limit, paging.start.as_ref())
                .await?;
            let headers = page.items.into_iter().map(model::from_item::<OrderHeader>);
            let headers = headers.map(|h| h.map(|h| h.0)).collect::<Result<_, _>>()?;
            (headers, paging.next_cursor(page.last_key)?)
        }
    };
    if paging.is_first()
        && orders.is_empty()
        && !commerce::customer_exists(&deps.table, &customer).await?
    {
        return Err(Refused::CustomerNotFound.because(format!("There is no customer {customer}.")));
    }
    api::json(
        200,
        &Page {
            customer_id: customer,
            orders: orders.iter().map(view::order_summary).collect(),
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use serde_json::Value;
    use serde_json::json;
    use testkit::Harness;
    use testkit::{all_items, query_read_units};

    fn day_ms(iso: &str, plus_ms: i128) -> u64 {
        (keys::Date::parse_iso(iso).unwrap().start_ms() + plus_ms) as u64
    }

    /// Customer 123 with one order per day from 2020-11-25 to 2020-12-06 (12 orders).
    async fn seeded() -> (Harness, Vec<String>) {
        let table = testkit::table().await;
        fixtures::customer(&table, "123").await;
        let mut ids = Vec::new();
        for day in 0..12 {
            let ms = day_ms("2020-11-25", day * 86_400_000 + 3_600_000);
            let order = fixtures::order(&table, "123", ms, &[(1, 1, 100)]).await;
            ids.push(order.order_id.to_string());
        }
        table.meter().reset();
        (Harness::new(&FUNCTION, handle, table), ids)
    }

    async fn get(h: &Harness, customer: &str, query: &[(&str, &str)]) -> (u16, Value) {
        h.get(&h.path(&[customer]), query).await
    }

    fn ids_of(body: &Value) -> Vec<String> {
        testkit::column(&body["orders"], "orderId")
    }

    #[tokio::test]
    async fn a_range_newest_first_in_one_minimal_query() {
        let (d, ids) = seeded().await;
        let (s, body) = get(&d, "123", &[("from", "2020-12-01"), ("to", "2020-12-03")]).await;
        assert_eq!(s, 200);
        // Dec 1..=3 are days 6, 7, 8.
        assert_eq!(
            ids_of(&body),
            [ids[8].clone(), ids[7].clone(), ids[6].clone()]
        );
        assert_eq!(body["nextCursor"], Value::Null);
        let requests = d.table.meter().requests();
        assert_eq!(requests.len(), 1);
        let read: Vec<_> = all_items(&d.table)
            .await
            .into_iter()
            .filter(|i| {
                ids[6..=8]
                    .iter()
                    .any(|id| i["SK"].as_s().unwrap() == &format!("#ORDER#{id}"))
            })
            .collect();
        assert_eq!(requests[0].read_units, query_read_units(&read, false));
    }

    #[tokio::test]
    async fn walking_the_pages_returns_every_order_once() {
        let (d, ids) = seeded().await;
        let pages = testkit::walk_pages("5", async |q| {
            let (s, body) = get(&d, "123", q).await;
            assert_eq!(s, 200);
            body
        })
        .await;
        let seen: Vec<_> = pages.iter().flat_map(ids_of).collect();
        let mut expected = ids.clone();
        expected.reverse();
        assert_eq!(seen, expected);
        assert!(pages.len() >= 3);
    }

    #[tokio::test]
    async fn bad_input_and_foreign_cursors_are_400() {
        let (d, _) = seeded().await;
        let (_, page) = get(&d, "123", &[("limit", "2")]).await;
        let cursor = page["nextCursor"].as_str().unwrap().to_owned();
        let mut tampered = cursor.clone();
        tampered.replace_range(3..4, if &cursor[3..4] == "A" { "B" } else { "A" });
        type Case<'a> = ((&'a str, Vec<(&'a str, &'a str)>), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("123", vec![("from", "2020-02-30")]), 400, "invalid_parameter"),
            (("123", vec![("to", "2020-13-01")]), 400, "invalid_parameter"),
            (("123", vec![("from", "yesterday")]), 400, "invalid_parameter"),
            (("123", vec![("from", "1969-12-31")]), 400, "invalid_parameter"),
            (("123", vec![("from", "2020-12-02"), ("to", "2020-12-01")]), 400, "invalid_range"),
            (("123", vec![("cursor", &tampered)]), 400, "invalid_cursor"),
            // The cursor of another range, or of another customer.
            (("123", vec![("cursor", &cursor), ("from", "2020-12-01")]), 400, "invalid_cursor"),
            (("456", vec![("cursor", &cursor)]), 400, "invalid_cursor"),
            (("nobody", vec![]), 404, "customer_not_found"),
            (("1#2", vec![]), 400, "invalid_parameter"),
        ];
        testkit::assert_errors(cases, async |(customer, q)| get(&d, customer, q).await).await;
        // A known customer with nothing in the range is an empty page, not a 404.
        let (s, b) = get(&d, "123", &[("from", "2021-01-01")]).await;
        assert_eq!((s, b["orders"].clone()), (200, json!([])));
    }

    async fn set_status(d: &Deps, order: &str, at: &str, status: OrderStatus) {
        let changed = commerce::apply_order_status(
            &d.table,
            Default::default(),
            keys::SortableId::parse(order).unwrap(),
            keys::SortableId::at_ms(day_ms(at, 0)),
            status,
        )
        .await
        .unwrap();
        assert!(changed);
    }

    /// [`seeded`], orders 3 and 8 shipped, and customer 456 with an open order of its own.
    async fn seeded_with_statuses() -> (Harness, Vec<String>) {
        let (d, ids) = seeded().await;
        set_status(&d, &ids[3], "2021-01-01", OrderStatus::Shipped).await;
        set_status(&d, &ids[8], "2021-01-01", OrderStatus::Shipped).await;
        fixtures::customer(&d.table, "456").await;
        fixtures::order(&d.table, "456", day_ms("2020-12-01", 5), &[(1, 1, 100)]).await;
        d.table.meter().reset();
        (d, ids)
    }

    fn pick(ids: &[String], newest_first: &[usize]) -> Vec<String> {
        newest_first.iter().map(|&n| ids[n].clone()).collect()
    }

    #[tokio::test]
    async fn by_status_one_minimal_index_query_of_the_headers_newest_first() {
        let (d, ids) = seeded_with_statuses().await;
        // Dec 1..=6 are days 6..=11; 8 shipped.
        let q = [
            ("status", "OPEN"),
            ("from", "2020-12-01"),
            ("to", "2020-12-06"),
        ];
        let (s, body) = get(&d, "123", &q).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(ids_of(&body), pick(&ids, &[11, 10, 9, 7, 6]));
        assert!(
            body["orders"]
                .as_array()
                .unwrap()
                .iter()
                .all(|o| o["status"] == "OPEN" && o["customerId"] == "123")
        );
        assert_eq!(body["nextCursor"], Value::Null);
        let requests = d.table.meter().requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(
            (requests[0].operation, requests[0].index, requests[0].items),
            ("Query", Some("GSI1"), 5)
        );
        let read: Vec<_> = all_items(&d.table)
            .await
            .into_iter()
            .filter(|i| {
                i["Type"].as_s().unwrap() == "OrderHeader"
                    && ids_of(&body).contains(i["OrderId"].as_s().unwrap())
            })
            .collect();
        assert_eq!(read.len(), 5);
        assert_eq!(requests[0].index_read_units, query_read_units(&read, false));
        assert_eq!(requests[0].read_units, 0.0, "nothing read from the table");

        let (_, shipped) = get(&d, "123", &[("status", "SHIPPED")]).await;
        assert_eq!(ids_of(&shipped), pick(&ids, &[8, 3]));
        assert_eq!(shipped["orders"][0]["status"], "SHIPPED");
        // Another customer's list holds its own orders only.
        let (_, other) = get(&d, "456", &[("status", "OPEN")]).await;
        assert_eq!(other["orders"].as_array().unwrap().len(), 1);
        assert_eq!(other["orders"][0]["customerId"], "456");
        // A known customer with nothing in that status: an empty page; an unknown one: a 404.
        let (s, b) = get(&d, "123", &[("status", "RETURNED")]).await;
        assert_eq!((s, b["orders"].clone()), (200, json!([])));
        let (s, b) = get(&d, "nobody", &[("status", "OPEN")]).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("customer_not_found")));
    }

    /// Switched to the multi-attribute index (`ORDER_STATUS_KEYS=multi-attribute`), C4 by
    /// status reads `CustomerOrdersByStatus` and answers every page as it does from GSI1,
    /// cursors included.
    #[tokio::test]
    async fn by_status_the_multi_attribute_index_answers_the_same_pages() {
        let (d, _) = seeded_with_statuses().await;
        let by = |keys: StatusKeys| {
            let deps = testkit::deps(d.table.clone(), FUNCTION.needs)
                .with_setting(&ORDER_STATUS_KEYS, keys.as_str())
                .expect("a design");
            Harness::with_deps(&FUNCTION, handle, deps)
        };
        let [gsi1, multi] = crate::data::Design::ALL.map(|d| by(StatusKeys::only(d)));
        let index = ("GSI1", "CustomerOrdersByStatus");
        for status in ["OPEN", "SHIPPED"] {
            let q = [("status", status), ("from", "2020-11-26"), ("limit", "2")];
            crate::designs::same_pages_in_both_designs((&gsi1, &multi), index, &q, async |h, q| {
                get(h, "123", q).await
            })
            .await;
        }
    }

    #[tokio::test]
    async fn a_status_change_moves_an_order_between_status_lists() {
        let (d, ids) = seeded_with_statuses().await;
        set_status(&d, &ids[8], "2021-01-02", OrderStatus::Delivered).await;
        set_status(&d, &ids[11], "2021-01-02", OrderStatus::Shipped).await;
        let list = async |status| ids_of(&get(&d, "123", &[("status", status)]).await.1);
        assert_eq!(list("SHIPPED").await, pick(&ids, &[11, 3]));
        assert_eq!(list("DELIVERED").await, pick(&ids, &[8]));
        assert_eq!(
            list("OPEN").await,
            pick(&ids, &[10, 9, 7, 6, 5, 4, 2, 1, 0])
        );
        // Without a status: every order, as before.
        let (_, all) = get(&d, "123", &[]).await;
        assert_eq!(ids_of(&all), pick(&ids, &(0..12).rev().collect::<Vec<_>>()));
        assert_eq!(all["orders"][0]["status"], "SHIPPED");
    }

    #[tokio::test]
    async fn walking_a_status_returns_every_order_in_it_once() {
        let (d, ids) = seeded_with_statuses().await;
        let pages = testkit::walk_pages("3", async |q| {
            let mut query = vec![("status", "OPEN")];
            query.extend_from_slice(q);
            d.table.meter().reset();
            let (s, body) = get(&d, "123", &query).await;
            assert_eq!(s, 200, "{body}");
            assert_eq!(d.table.meter().requests().len(), 1, "one query per page");
            body
        })
        .await;
        let seen: Vec<_> = pages.iter().flat_map(ids_of).collect();
        assert_eq!(seen, pick(&ids, &[11, 10, 9, 7, 6, 5, 4, 2, 1, 0]));
    }

    #[tokio::test]
    async fn a_bad_status_or_a_cursor_of_another_list_is_400_and_reads_nothing() {
        let (d, _) = seeded_with_statuses().await;
        let (_, all) = get(&d, "123", &[("limit", "2")]).await;
        let all = all["nextCursor"].as_str().unwrap().to_owned();
        let (_, open) = get(&d, "123", &[("limit", "2"), ("status", "OPEN")]).await;
        let open = open["nextCursor"].as_str().unwrap().to_owned();
        d.table.meter().reset();
        type Case<'a> = (Vec<(&'a str, &'a str)>, u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (vec![("status", "open")], 400, "invalid_parameter"),
            (vec![("status", "LOST")], 400, "invalid_parameter"),
            (vec![("status", "OPEN"), ("from", "2020-12-02"), ("to", "2020-12-01")], 400, "invalid_range"),
            (vec![("status", "OPEN"), ("limit", "0")], 400, "invalid_parameter"),
            // The plain list's cursor for a status, a status's for the plain list or another
            // status.
            (vec![("status", "OPEN"), ("cursor", &all)], 400, "invalid_cursor"),
            (vec![("cursor", &open)], 400, "invalid_cursor"),
            (vec![("status", "SHIPPED"), ("cursor", &open)], 400, "invalid_cursor"),
        ];
        testkit::assert_errors(cases, async |q| get(&d, "123", q).await).await;
        assert!(d.table.meter().requests().is_empty(), "nothing read");
    }
}
