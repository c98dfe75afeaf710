//! O9: `GET /reps/{repId}/customers` → the customers an account rep (an employee) looks after,
//! from GSI1's `REP#<repId>` partition, where a customer with a rep stands at
//! `CUSTOMER#<customerId>` (AWS's relational example, pattern 9), a page at a time (`limit`,
//! default 50, 1..=100, signed `cursor`), by customer id. Staff only.
//!
//! The rep's orders share that partition (`<STATUS>#<orderId>`, O10); `begins_with(GSI1SK,
//! "CUSTOMER#")` reads the customers only, so a page never pays for an order. An unknown rep, or
//! one without customers, is an empty list.

use crate::views as view;
use api::declare::*;
use keys::commerce as k;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-rep-customers",
    Access::Staff,
    &Route::get(
        "/reps/{repId}/customers",
        "O9: the customers of an account rep (GSI1), by customer id",
        &[Pattern {
            id: "O9",
            route: "`GET /reps/{repId}/customers?limit=&cursor=` (staff; default 50, 1–100)",
            index: Index::Gsi1,
            request: r#"Query `GSI1PK = REP#<repId> AND begins_with(GSI1SK, "CUSTOMER#")` (never the rep's orders, which share the partition); within 32 read units at 4 KB a customer"#,
            returns: "`{repId, customers, nextCursor}` by customer id",
            example: Example::staff("/reps/E100/customers"),
        }],
    )
    .paged(50),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>(
    "a page of the rep's customers (empty for an unknown rep)",
)];

api::page! {
    /// A page of a rep's customers.
    Page {
        rep_id: keys::Id,
        customers: Vec<view::Customer>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let rep = api::path_id(&req, "repId")?;
    let paging = api::paging(deps, &req, &FUNCTION, |limit| format!("O9|{rep}|{limit}"))?;
    let query = deps.table.query(k::rep_customers(&rep));
    let largest = crate::data::LARGEST_CUSTOMER_BYTES;
    let (customers, next_cursor) = paging
        .page_shown_within(query, largest, view::customer)
        .await?;
    api::json(
        200,
        &Page {
            rep_id: rep,
            customers,
            next_cursor,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use model::Item;
    use serde_json::Value;
    use serde_json::json;
    use store::Table;
    use testkit::Harness;
    use testkit::{anonymous, as_staff, signed_in_as, walk_pages};

    /// The answer to `GET /reps/<rep>/customers?<query>` sent by `who` (an event as API Gateway
    /// passes it), authorized as `main` does.
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
        signed_in_as(ev, "c1", &[])
    }

    fn customer_ids(body: &Value) -> Vec<String> {
        testkit::column(&body["customers"], "customerId")
    }

    /// Reps E1 and E2; E1 looks after c1, c2, c3 (each with two orders, which stand in E1's GSI1
    /// partition too), E2 after c4; c5 has no rep.
    async fn seeded() -> Table {
        let table = hr::fixtures::org_with(
            testkit::table().await,
            &[("E1", "Ada Lovelace"), ("E2", "Alan Turing")],
        )
        .await;
        for c in ["c3", "c1", "c2"] {
            fixtures::customer_of_rep(&table, c, "E1").await;
            for day in 0..2u64 {
                let ms = 1_767_225_600_000 + day * 86_400_000;
                fixtures::order(&table, c, ms, &[(1, 1, 100)]).await;
            }
        }
        fixtures::customer_of_rep(&table, "c4", "E2").await;
        fixtures::customer(&table, "c5").await;
        table.meter().reset();
        table
    }

    #[tokio::test]
    async fn o9_lists_the_reps_customers_only_in_one_minimal_query() {
        let table = seeded().await;
        let (s, body) = get(&table, "E1", &[], as_staff).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(customer_ids(&body), ["c1", "c2", "c3"]);
        assert_eq!(body["repId"], "E1");
        assert_eq!(body["nextCursor"], Value::Null);
        assert_eq!(body["customers"][0]["accountRepId"], "E1");
        assert_eq!(body["customers"][0]["name"], "Customer c1");
        // One GSI1 query, paying for the three customers and nothing else: the rep's six orders
        // share the partition.
        let partition = testkit::items_with(&table, "GSI1PK", "REP#E1").await;
        assert_eq!(partition.len(), 9, "three customers and their six orders");
        let customers: Vec<Item> = partition
            .into_iter()
            .filter(|i| i["Type"].as_s().unwrap() == "Customer")
            .collect();
        testkit::assert_one_index_query(&table, "GSI1", 3, &customers);

        assert_eq!(
            customer_ids(&get(&table, "E2", &[], as_staff).await.1),
            ["c4"]
        );
        // An unknown rep, or an employee who looks after nobody: an empty list.
        assert_eq!(
            get(&table, "E9", &[], as_staff).await.1["customers"],
            json!([])
        );
    }

    #[tokio::test]
    async fn reassigning_a_customer_moves_it_to_the_new_reps_list() {
        let table = seeded().await;
        crate::data::put_customer(
            &table,
            &table,
            &fixtures::id("c2"),
            "Customer c2",
            "c2@example.com",
            crate::data::RepChange::Assign(fixtures::id("E2")),
            fixtures::at(1_790_000_000_000),
        )
        .await
        .unwrap();
        assert_eq!(
            customer_ids(&get(&table, "E1", &[], as_staff).await.1),
            ["c1", "c3"]
        );
        assert_eq!(
            customer_ids(&get(&table, "E2", &[], as_staff).await.1),
            ["c2", "c4"]
        );
    }

    #[tokio::test]
    async fn walking_the_pages_returns_every_customer_once_one_query_per_page() {
        let table = seeded().await;
        let pages = walk_pages("2", async |q| {
            table.meter().reset();
            let (s, body) = get(&table, "E1", q, as_staff).await;
            assert_eq!(s, 200, "{body}");
            assert_eq!(table.meter().requests().len(), 1, "one query per page");
            body
        })
        .await;
        let seen: Vec<_> = pages.iter().flat_map(customer_ids).collect();
        assert_eq!(seen, ["c1", "c2", "c3"]);
        assert!(pages.len() >= 2);
    }

    #[tokio::test]
    async fn a_customer_is_refused_and_bad_input_is_a_4xx_reading_nothing() {
        let table = seeded().await;
        let (_, page) = get(&table, "E1", &[("limit", "1")], as_staff).await;
        let cursor = page["nextCursor"].as_str().unwrap().to_owned();
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
            (("E1", vec![], anonymous), 401, "unauthorized"),
            (("E#1", vec![], as_staff), 400, "invalid_parameter"),
            ((&long_id, vec![], as_staff), 400, "invalid_parameter"),
            // A cursor of another rep, or of another page size.
            (("E2", vec![("cursor", &cursor)], as_staff), 400, "invalid_cursor"),
            (("E1", vec![("cursor", &cursor), ("limit", "2")], as_staff), 400, "invalid_cursor"),
        ];
        testkit::assert_errors(cases, async |(rep, q, who)| get(&table, rep, q, *who).await).await;
        assert!(table.meter().requests().is_empty(), "nothing read");
    }
}
