//! H3, the whole history: `GET /employees/{employeeId}/jobs` → every job the employee held, newest
//! first, a page at a time (`limit`, default 20, 1..=100, signed `cursor`), staff only. ONE query
//! of the job history backwards, `begins_with(SK, "JH#")` (start dates are written broad to
//! narrow), then ONE BatchGetItem of the page's jobs, for their titles (the history does not copy
//! them). An employee with no job answers an empty list; one that does not exist, 404
//! `employee_not_found` (known from a GetItem, made only when a first page is empty).

use crate::data as hr;
use crate::views as view;
use api::declare::*;
use keys::hr as k;
use model::hr::JobHistory;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-employee-jobs",
    Access::Staff,
    &Route::get(
        "/employees/{employeeId}/jobs",
        "H3 (whole history): an employee's jobs, newest first, a page at a time",
        &[Pattern {
            id: "H3 history",
            route: "`GET /employees/{employeeId}/jobs?limit=&cursor=` (staff)",
            index: Index::Table,
            request: r#"Query `PK = EMPLOYEE#<id> AND begins_with(SK, "JH#")`, backwards; BatchGetItem of the page's jobs (their titles); within 32 read units at their largest (42 jobs a page at most)"#,
            returns: "`{employeeId, jobs, nextCursor}` newest first; 404 `employee_not_found`",
            example: Example::staff("/employees/E100/jobs"),
        }],
    )
    .paged(20),
);

api::refusals! {
    EmployeeNotFound = crate::refusals::EMPLOYEE_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>(
    "a page of the employee's job history, newest first (titles as the jobs have them now)",
)
.refusals(Refused::ALL)];

api::page! {
    /// A page of an employee's job history.
    Page {
        employee_id: keys::Id,
        jobs: Vec<view::Job>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let id = api::path_id(&req, "employeeId")?;
    let mut paging = api::paging(deps, &req, &FUNCTION, |limit| {
        format!("H3 history|{id}|{limit}")
    })?;
    // Within the read budget: the Query of the history and the BatchGetItem of its jobs (each
    // rounded up to 4 KB), at their largest sizes: 42 jobs a page at most.
    let most = store::budget_fetches(
        store::PAGE_READ_BUDGET,
        crate::data::LARGEST_EMPLOYEE_BYTES,
        crate::reference::LARGEST_REFERENCE_BYTES,
        0,
    );
    paging.limit = paging.limit.min(most);
    let (jobs, next) = paging
        .page::<JobHistory, _>(deps.table.query(k::jobs_of(&id)).backwards())
        .await?;
    if jobs.is_empty() && paging.is_first() && !deps.table.exists(&k::employee(&id)).await? {
        return Err(Refused::EmployeeNotFound.because(format!("No such employee: {id}")));
    }
    let sources = hr::sources(&deps.table, jobs.iter().map(|j| &j.job_id), []).await?;
    let jobs = jobs.iter().map(|j| view::job(j, &sources)).collect();
    api::json(
        200,
        &Page {
            employee_id: id,
            jobs,
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use serde_json::json;
    use testkit::Harness;

    #[tokio::test]
    async fn the_whole_history_newest_first_a_page_at_a_time_with_titles_as_they_are() {
        let table = crate::fixtures::org_with(
            testkit::table().await,
            &[("E1", "Ada Lovelace"), ("E2", "Alan Turing")],
        )
        .await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let (s, b) = h.as_staff().get("/employees/E2/jobs", &[]).await;
        assert_eq!(
            (s, b),
            (
                200,
                json!({"employeeId": "E2", "jobs": [], "nextCursor": null})
            )
        );
        let (s, b) = h.as_staff().get("/employees/E9/jobs", &[]).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("employee_not_found")));
        for (job, start) in [
            ("CLERK", "2023-01-01"),
            ("REP", "2024-01-01"),
            ("LEAD", "2025-01-01"),
            ("REP", "2025-06-01"),
            ("MGR", "2026-01-01"),
        ] {
            crate::fixtures::add_job(&table, "E1", job, start).await;
        }
        crate::fixtures::add_job(&table, "E2", "CLERK", "2026-02-01").await;
        table.meter().reset();
        let pages = h.as_staff().walk("/employees/E1/jobs", &[], "2").await;
        assert_eq!(pages.len(), 3);
        let jobs: Vec<(String, String)> = pages
            .iter()
            .flat_map(|p| p["jobs"].as_array().unwrap().clone())
            .map(|j: Value| {
                (
                    j["startDate"].as_str().unwrap().to_owned(),
                    j["title"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want = [
            ("2026-01-01", "MGR"),
            ("2025-06-01", "REP"),
            ("2025-01-01", "LEAD"),
            ("2024-01-01", "REP"),
            ("2023-01-01", "CLERK"),
        ]
        .map(|(d, t)| (d.to_owned(), t.to_owned()));
        assert_eq!(jobs, want, "newest first, E2's job not among them");
        let operations = table.meter().operations();
        assert_eq!(
            operations,
            [
                "Query",
                "BatchGetItem",
                "Query",
                "BatchGetItem",
                "Query",
                "BatchGetItem"
            ],
            "a page: one query, one batch of its jobs"
        );
        // A job renamed shows under its new title in the whole history.
        let renamed = model::hr::Job {
            job_id: keys::Id::parse("id", "REP").unwrap(),
            title: keys::Name::parse("title", "Sales Representative").unwrap(),
        };
        crate::data::put_reference(&table, &renamed).await.unwrap();
        let (_, b) = h
            .as_staff()
            .get("/employees/E1/jobs", &[("limit", "2")])
            .await;
        assert_eq!(b["jobs"][1]["title"], "Sales Representative");
    }
}
