//! `GET /employees` with exactly one of, staff only, a page at a time (`limit`, default 50,
//! 1..=100, signed `cursor`):
//! - H2 `?name=Ada Lovelace`: GSI1 `EMPLOYEENAME#<name>` (normalised: case and spacing ignored);
//! - H11 `?jobTitle=Sales Representative`: GSI1 `JOBTITLE#<title>`, where only the current-job
//!   edge stands, so an employee is listed under their current title only;
//! - H6 `?hiredSince=2025-01-01`: GSI2's write-sharded `HIRED#<shard>` partitions, every shard
//!   queried in parallel (`SK >= <date>#`, backwards) and merged newest first with ONE cursor.

use api::declare::*;
use api::{Access, ApiError, views::hr as view};
use keys::{
    Name, Shard,
    hr::{self as k, HIRE_SHARDS},
};
use lambda_http::{Body, Request, Response};
use model::hr::{CurrentJob, Employee};
use serde_json::{Value, json};
use store::{Deps, Needs, merge::Direction};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "list-employees",
    access: Access::Staff,
    needs: Needs::CURSORS,
    routes: &[Route::get(
        "/employees",
        "H2 (name), H11 (current job title), H6 (hired since, 4 shards merged newest first): exactly one",
        &[
            Pattern {
                id: "H2",
                route: "`GET /employees?name=&limit=&cursor=` (staff)",
                index: Index::Gsi1,
                request: "Query `GSI1PK = EMPLOYEENAME#<name>`",
                returns: "`{employees, nextCursor}`",
                example: Example::staff("/employees?name=Ada%20Lovelace"),
            },
            Pattern {
                id: "H6",
                route: "`GET /employees?hiredSince=&limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: "4 Queries in parallel `GSI2PK = HIRED#<00..03> AND GSI2SK >= <yyyy/mm/dd>#`, backwards, merged",
                returns: "`{employees, nextCursor}` newest first",
                example: Example::staff("/employees?hiredSince=2024-01-01"),
            },
            Pattern {
                id: "H11",
                route: "`GET /employees?jobTitle=&limit=&cursor=` (staff)",
                index: Index::Gsi1,
                request: "Query `GSI1PK = JOBTITLE#<title>` (current-job edges only)",
                returns: "`{employees, nextCursor}`",
                example: Example::staff("/employees?jobTitle=Sales%20Representative"),
            },
        ],
    )],
};
pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 100;

const CHOICES: &str = "give exactly one of name, jobTitle, hiredSince";

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let name = api::query(&req, "name");
    let title = api::query(&req, "jobTitle");
    let since = api::query_date(&req, "hiredSince")?;
    let employees: Vec<Value>;
    let next;
    match (name, title, since) {
        (Some(name), None, None) => {
            api::count_as_pattern("H2");
            let name =
                Name::parse("name", &name).map_err(|e| ApiError::invalid_parameter("name", e))?;
            let page = api::page_request(&req, DEFAULT_LIMIT, MAX_LIMIT)?;
            let paging = store::Paging::new(deps, page, |limit| {
                format!("H2|{}|{limit}", name.key().as_key())
            })?;
            let (items, after) = paging
                .page::<Employee, _>(deps.table.query(k::employees_named(&name.key())))
                .await?;
            employees = items.iter().map(view::employee).collect();
            next = after;
        }
        (None, Some(title), None) => {
            api::count_as_pattern("H11");
            let title = Name::parse("jobTitle", &title)
                .map_err(|e| ApiError::invalid_parameter("jobTitle", e))?;
            let page = api::page_request(&req, DEFAULT_LIMIT, MAX_LIMIT)?;
            let paging = store::Paging::new(deps, page, |limit| {
                format!("H11|{}|{limit}", title.key().as_key())
            })?;
            let (items, after) = paging
                .page::<CurrentJob, _>(deps.table.query(k::employees_titled(&title.key())))
                .await?;
            employees = items.iter().map(view::with_job).collect();
            next = after;
        }
        (None, None, Some(since)) => {
            api::count_as_pattern("H6");
            let streams = Shard::all(HIRE_SHARDS)
                .map(|shard| k::hired_since(shard, since))
                .collect();
            let page = api::page_request(&req, DEFAULT_LIMIT, MAX_LIMIT)?;
            let paging = store::Paging::new(deps, page, |limit| format!("H6|{since}|{limit}"))?;
            let (items, cursor) = paging
                .merged_page(&deps.table, streams, Direction::Descending)
                .await?;
            employees = items
                .into_iter()
                .map(|i| model::from_item::<Employee>(i).map(|e| view::employee(&e)))
                .collect::<Result<_, _>>()?;
            next = cursor;
        }
        _ => return Err(ApiError::bad_request("invalid_parameter", CHOICES)),
    }
    api::json(200, &json!({"employees": employees, "nextCursor": next}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::{Date, Id};
    use store::hr::EmployeeInput;
    use testkit::Harness;

    fn ids(pages: &[Value]) -> Vec<String> {
        pages
            .iter()
            .flat_map(|p| p["employees"].as_array().unwrap().clone())
            .map(|e| e["employeeId"].as_str().unwrap().to_owned())
            .collect()
    }

    #[tokio::test]
    async fn h2_h6_h11_each_return_their_own_employees() {
        let table = testkit::table().await;
        testkit::fixtures::org(&table).await;
        // 12 employees hired a month apart; every third is named Sam Lee; the even ones are reps.
        for n in 1..=12u8 {
            let input = EmployeeInput {
                employee_id: Id::parse("id", &format!("E{n}")).unwrap(),
                name: Name::parse("n", if n % 3 == 0 { "Sam Lee" } else { "Kim Park" }).unwrap(),
                hire_date: Date::from_ymd(2024, n, 1).unwrap(),
                warehouse_id: None,
            };
            store::hr::put_employee(&table, &input).await.unwrap();
            if n % 2 == 0 {
                let job = testkit::fixtures::job(&format!("E{n}"), "REP", "2024-06-01");
                store::hr::add_job(&table, &job).await.unwrap();
            }
        }
        // A promotion: E2 is no longer a rep.
        store::hr::add_job(&table, &testkit::fixtures::job("E2", "LEAD", "2025-01-01"))
            .await
            .unwrap();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let walk = async |query: Vec<(&str, &str)>| {
            ids(&h.as_staff().walk("/employees", &query, "2").await)
        };
        let mut sams = walk(vec![("name", "sam  LEE")]).await;
        sams.sort();
        assert_eq!(sams, ["E12", "E3", "E6", "E9"]);
        let mut reps = walk(vec![("jobTitle", "rep")]).await;
        reps.sort();
        assert_eq!(reps, ["E10", "E12", "E4", "E6", "E8"], "E2 moved to LEAD");
        assert_eq!(walk(vec![("jobTitle", "LEAD")]).await, ["E2"]);
        // Newest first across the shards, from the day given on.
        assert_eq!(
            walk(vec![("hiredSince", "2024-08-01")]).await,
            ["E12", "E11", "E10", "E9", "E8"]
        );
    }

    #[tokio::test]
    async fn exactly_one_selector_and_valid_values() {
        let h = Harness::new(&FUNCTION, handle, testkit::table().await);
        for q in [
            vec![],
            vec![("name", "a"), ("jobTitle", "b")],
            vec![("hiredSince", "2024-02-30")],
            vec![("name", " ")],
            vec![("name", "a"), ("limit", "0")],
            vec![("hiredSince", "2024-01-01"), ("cursor", "forged")],
        ] {
            assert_eq!(h.as_staff().get("/employees", &q).await.0, 400, "{q:?}");
        }
    }
}
