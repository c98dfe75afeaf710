//! `GET /employees` with exactly one of, staff only, a page at a time (`limit`, default 50,
//! 1..=100, signed `cursor`):
//! - H2 `?name=Ada Lovelace`: GSI1 `EMPLOYEENAME#<name>` (normalised: case and spacing ignored);
//! - H11 `?jobTitle=Sales Representative`: GSI1 `JOBTITLE#<title>`, where the jobs stand under
//!   their titles (one query: normally one job, at most [`MAX_JOBS_PER_TITLE`]), then GSI1
//!   `JOB#<jobId>` of each, where only current-job edges stand (merged by employee id with ONE
//!   cursor), so an employee is listed under their current job only, and a renamed job under its
//!   new title at once (the title is the job's alone);
//! - H6 `?hiredSince=2025-01-01`: GSI2's write-sharded `HIRED#<shard>` partitions, every shard
//!   queried in parallel (`SK >= <date>#`, backwards) and merged newest first with ONE cursor.

use crate::data::LARGEST_EMPLOYEE_BYTES;
use crate::views as view;
use api::declare::*;
use keys::{
    Name, Shard,
    hr::{self as k, HIRE_SHARDS},
};
use model::hr::{CurrentJob, Job};
use store::merge::{Budget, Direction, MergeKey};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-employees",
    Access::Staff,
    &Route::get(
        "/employees",
        "H2 (name), H11 (current job title), H6 (hired since, 4 shards merged newest first): exactly one",
        &[
            Pattern {
                id: "H2",
                route: "`GET /employees?name=&limit=&cursor=` (staff)",
                index: Index::Gsi1,
                request: "Query `GSI1PK = EMPLOYEENAME#<name>`; within 32 read units at 2 KB an employee",
                returns: "`{employees, nextCursor}`",
                example: Example::staff("/employees?name=Ada%20Lovelace"),
            },
            Pattern {
                id: "H6",
                route: "`GET /employees?hiredSince=&limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: "4 Queries in parallel `GSI2PK = HIRED#<00..03> AND GSI2SK >= <yyyy/mm/dd>#`, backwards, merged; within 32 read units at 2 KB an employee",
                returns: "`{employees, nextCursor}` newest first",
                example: Example::staff("/employees?hiredSince=2024-01-01"),
            },
            Pattern {
                id: "H11",
                route: "`GET /employees?jobTitle=&limit=&cursor=` (staff)",
                index: Index::Gsi1,
                request: "Query `GSI1PK = JOBTITLE#<title>` (the jobs); Query `GSI1PK = JOB#<jobId>` of each (current-job edges only), merged; within 32 read units, the jobs' query included, at 2 KB an edge",
                returns: "`{employees, nextCursor}`",
                example: Example::staff("/employees?jobTitle=Sales%20Representative"),
            },
        ],
    )
    .paged(50),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::ok::<Page>("a page of employees (with their current job for H11)").query(&[
            Query::of::<keys::schema::FreeText>("name", ""),
            Query::of::<keys::schema::FreeText>("jobTitle", ""),
            Query::of::<keys::Date>("hiredSince", ""),
        ]),
    ];

api::page! {
    /// A page of employees.
    Page {
        employees: Vec<view::Listed>,
    }
}
/// H11 lists the holders of at most this many jobs of one title (jobs are staff's reference
/// data; a title normally names one).
pub const MAX_JOBS_PER_TITLE: u32 = 10;

const CHOICES: &str = "give exactly one of name, jobTitle, hiredSince";

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let name = api::query(&req, "name");
    let title = api::query(&req, "jobTitle");
    let since = api::query_date(&req, "hiredSince")?;
    let employees: Vec<view::Listed>;
    let next;
    match (name, title, since) {
        (Some(name), None, None) => {
            api::count_as_pattern("H2");
            let name =
                Name::parse("name", &name).map_err(|e| ApiError::invalid_parameter("name", e))?;
            let paging = api::paging(deps, &req, &FUNCTION, |limit| {
                format!("H2|{}|{limit}", name.key().as_key())
            })?;
            let query = deps.table.query(k::employees_named(&name.key()));
            (employees, next) = paging
                .page_shown_within(query, LARGEST_EMPLOYEE_BYTES, view::listed_employee)
                .await?;
        }
        (None, Some(title), None) => {
            api::count_as_pattern("H11");
            let title = Name::parse("jobTitle", &title)
                .map_err(|e| ApiError::invalid_parameter("jobTitle", e))?;
            let paging = api::paging(deps, &req, &FUNCTION, |limit| {
                format!("H11|{}|{limit}", title.key().as_key())
            })?;
            let jobs = deps
                .table
                .query(k::jobs_titled(&title.key()))
                .limit(MAX_JOBS_PER_TITLE)
                .send()
                .await?;
            // The holders are read within what the jobs left of the page's budget.
            let budget = Budget {
                units: store::PAGE_READ_BUDGET - jobs.read_units,
                largest: LARGEST_EMPLOYEE_BYTES,
            };
            let jobs = jobs
                .items
                .into_iter()
                .map(model::from_item::<Job>)
                .collect::<Result<Vec<_>, _>>()?;
            let streams: Vec<_> = jobs.iter().map(|j| k::job_holders(&j.job_id)).collect();
            let sources = crate::data::Sources::of_jobs(jobs);
            let (items, after) = if streams.is_empty() {
                (Vec::new(), None)
            } else {
                let by = MergeKey::SortKey;
                paging
                    .merged_page_by(&deps.table, streams, Direction::Ascending, by, budget)
                    .await?
            };
            employees = store::shown(items, |c: &CurrentJob| view::with_job(c, &sources))?;
            next = after;
        }
        (None, None, Some(since)) => {
            api::count_as_pattern("H6");
            let streams = Shard::all(HIRE_SHARDS)
                .map(|shard| k::hired_since(shard, since))
                .collect();
            let paging = api::paging(deps, &req, &FUNCTION, |limit| format!("H6|{since}|{limit}"))?;
            let (items, cursor) = paging
                .merged_page(
                    &deps.table,
                    streams,
                    Direction::Descending,
                    LARGEST_EMPLOYEE_BYTES,
                )
                .await?;
            employees = store::shown(items, view::listed_employee)?;
            next = cursor;
        }
        _ => return Err(Common::InvalidParameter.because(CHOICES)),
    }
    api::json(
        200,
        &Page {
            employees,
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::EmployeeInput;
    use keys::{Date, Id};
    use serde_json::{Value, json};
    use testkit::Harness;

    fn ids(pages: &[Value]) -> Vec<String> {
        testkit::column_of_pages(pages, "employees", "employeeId")
    }

    #[tokio::test]
    async fn h2_h6_h11_each_return_their_own_employees() {
        let table = crate::fixtures::org_with(testkit::table().await, &[]).await;
        // 12 employees hired a month apart; every third is named Sam Lee; the even ones are reps.
        for n in 1..=12u8 {
            let input = EmployeeInput {
                employee_id: Id::parse("id", &format!("E{n}")).unwrap(),
                name: Name::parse("n", if n % 3 == 0 { "Sam Lee" } else { "Kim Park" }).unwrap(),
                hire_date: Date::from_ymd(2024, n, 1).unwrap(),
                warehouse_id: None,
            };
            crate::data::put_employee(&table, &input).await.unwrap();
            if n % 2 == 0 {
                crate::fixtures::add_job(&table, &format!("E{n}"), "REP", "2024-06-01").await;
            }
        }
        // A promotion: E2 is no longer a rep.
        crate::fixtures::add_job(&table, "E2", "LEAD", "2025-01-01").await;
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
        let h = Harness::on_new_table(&FUNCTION, handle).await;
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

    /// Issue 29: a job id has one title, its job's: H11 lists every holder under it, and after a
    /// rename under the new title only.
    #[tokio::test]
    async fn h11_lists_a_jobs_holders_under_its_title_as_it_is_now() {
        let table = crate::fixtures::org_with(testkit::table().await, &[]).await;
        let refs = Harness::new(
            &crate::put_reference::FUNCTION,
            crate::put_reference::handle,
            table.clone(),
        );
        let jobs = Harness::new(
            &crate::add_employee_job::FUNCTION,
            crate::add_employee_job::handle,
            table.clone(),
        );
        let (s, b) = refs
            .as_staff()
            .put("/jobs/REP", r#"{"title":"Sales Rep"}"#)
            .await;
        assert_eq!(s, 201, "{b}");
        for e in ["E1", "E2", "E3"] {
            crate::fixtures::employee(&table, e, "Kim Park").await;
            let body = r#"{"jobId":"REP","departmentId":"D1","startDate":"2025-01-01"}"#;
            let (s, b) = jobs
                .as_staff()
                .post(&format!("/employees/{e}/jobs"), body)
                .await;
            assert_eq!(s, 201, "{b}");
        }
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let walk = async |title: &str, shown: &str| {
            let pages = h
                .as_staff()
                .walk("/employees", &[("jobTitle", title)], "2")
                .await;
            for p in &pages {
                for e in p["employees"].as_array().unwrap() {
                    assert_eq!(
                        (&e["job"]["jobId"], &e["job"]["title"]),
                        (&json!("REP"), &json!(shown))
                    );
                }
            }
            ids(&pages)
        };
        assert_eq!(walk("sales  rep", "Sales Rep").await, ["E1", "E2", "E3"]);
        let (s, _) = refs
            .as_staff()
            .put("/jobs/REP", r#"{"title":"Sales Representative"}"#)
            .await;
        assert_eq!(s, 200);
        let renamed = walk("Sales Representative", "Sales Representative").await;
        assert_eq!(renamed, ["E1", "E2", "E3"]);
        assert!(
            walk("Sales Rep", "").await.is_empty(),
            "the old title lists no one"
        );
    }

    /// Two jobs may share a title: H11 merges their holders, in employee order, one cursor.
    #[tokio::test]
    async fn h11_merges_the_holders_of_every_job_of_a_title() {
        let table = crate::fixtures::org_with(testkit::table().await, &[]).await;
        for (job, title) in [("A", "Clerk"), ("B", "clerk"), ("C", "Lead")] {
            let record = model::hr::Job {
                job_id: Id::parse("id", job).unwrap(),
                title: Name::parse("title", title).unwrap(),
            };
            crate::data::put_reference(&table, &record).await.unwrap();
        }
        for (e, job) in [("E1", "A"), ("E2", "B"), ("E3", "A"), ("E4", "C")] {
            crate::fixtures::employee(&table, e, "Kim Park").await;
            let held = crate::fixtures::job(e, job, "2025-01-01");
            crate::data::add_job(&table, &held).await.unwrap();
        }
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let pages = h
            .as_staff()
            .walk("/employees", &[("jobTitle", "CLERK")], "1")
            .await;
        assert_eq!(ids(&pages), ["E1", "E2", "E3"]);
        let jobs: Vec<_> = pages
            .iter()
            .flat_map(|p| p["employees"].as_array().unwrap().clone())
            .map(|e| e["job"]["jobId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(jobs, ["A", "B", "A"]);
    }
}
