//! H3: `GET /employees/{employeeId}/job` → the employee's current job details: ONE query of its job
//! history backwards, `begins_with(SK, "JH#")`, `Limit = 1` (AWS's relational example, pattern 3):
//! start dates are written broad to narrow, so the newest comes first and only it is read; then
//! its job, for the title (one GetItem: the history does not copy it). Staff only; 404
//! `job_not_found` when the employee has no job (or does not exist).

use crate::data as hr;
use crate::views as view;
use api::declare::*;
use serde::Serialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-employee-job",
    Access::Staff,
    &Route::get(
        "/employees/{employeeId}/job",
        "H3: an employee's current job details: one query of the job history, newest first, one item",
        &[Pattern {
            id: "H3",
            route: "`GET /employees/{employeeId}/job` (staff)",
            index: Index::Table,
            request: r#"Query `PK = EMPLOYEE#<id> AND begins_with(SK, "JH#")`, backwards, `Limit = 1`; GetItem `JOB#<jobId>` / `A` (its title)"#,
            returns: "the current job; 404 `job_not_found`",
            example: Example::staff("/employees/E100/job"),
        }],
    ),
);

api::refusals! {
    JobNotFound = Refusal::new(404, "job_not_found", "no employee has that id, or the employee has no job"),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::ok::<CurrentJob>("the newest job of the history").refusals(Refused::ALL)];

/// An employee's current job.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
struct CurrentJob {
    #[serde(flatten)]
    job: view::Job,
    employee_id: keys::Id,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let id = api::path_id(&req, "employeeId")?;
    let found = hr::current_job(&deps.table, &id).await?;
    let (job, record) = Refused::JobNotFound.unless_found(found, || format!("{id} has no job"))?;
    let job = view::job(&job, &hr::Sources::of_jobs(record));
    api::json(
        200,
        &CurrentJob {
            job,
            employee_id: id,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use testkit::Harness;

    #[tokio::test]
    async fn h3_reads_one_item_the_newest() {
        let table =
            crate::fixtures::org_with(testkit::table().await, &[("E1", "Ada Lovelace")]).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let get = async || h.as_staff().get("/employees/E1/job", &[]).await;
        let (s, b) = get().await;
        assert_eq!((s, b["code"].as_str()), (404, Some("job_not_found")));
        // Written out of date order: the newest start wins, not the last write.
        let jobs = [
            ("REP", "2024-01-01"),
            ("LEAD", "2025-01-01"),
            ("CLERK", "2023-01-01"),
        ];
        crate::fixtures::add_jobs(&table, "E1", &jobs).await;
        table.meter().reset();
        let (s, b) = get().await;
        assert_eq!((s, b["jobId"].as_str()), (200, Some("LEAD")), "{b}");
        assert_eq!(b["title"], "LEAD");
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 2, "the newest history entry, then its job");
        assert_eq!((requests[0].items, requests[1].items), (1, 1));
    }
}
