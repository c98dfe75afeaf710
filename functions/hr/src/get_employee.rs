//! H1: `GET /employees/{employeeId}` → the employee, its current job and its warehouse, from
//! ONE query of its partition (`SK <= A`: the edges sort before the employee's `A` record, the
//! job history after it, so the history is never read), then ONE BatchGetItem of the job and the
//! warehouse the edges name, for their title and name as they are now (edges copy neither).
//! Staff only; 404 `employee_not_found`.

use crate::data as hr;
use crate::views as view;
use api::declare::*;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-employee",
    Access::Staff,
    &Route::get(
        "/employees/{employeeId}",
        "H1: an employee with current job and warehouse (one query that never reads the job history, one batch read of their names)",
        &[Pattern {
            id: "H1",
            route: "`GET /employees/{employeeId}` (staff)",
            index: Index::Table,
            request: "Query `PK = EMPLOYEE#<id> AND SK <= A` (edges `#JOB`, `#WAREHOUSE#<w>` and `A`; never the history); BatchGetItem of the job and warehouse they name",
            returns: "the employee with `currentJob` and `warehouse`; 404 `employee_not_found`",
            example: Example::staff("/employees/E100"),
        }],
    ),
);

api::refusals! {
    EmployeeNotFound = crate::refusals::EMPLOYEE_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::ok::<view::EmployeeDetail>("the employee").refusals(Refused::ALL)];

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let id = api::path_id(&req, "employeeId")?;
    let found = hr::employee_shown(&deps.table, &id).await?;
    let show = |(employee, sources): &(_, _)| view::employee_view(employee, sources);
    api::found(found, show, Refused::EmployeeNotFound, || {
        format!("No such employee: {id}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use testkit::Harness;

    #[tokio::test]
    async fn h1_is_one_query_that_never_reads_the_history() {
        let table =
            crate::fixtures::org_with(testkit::table().await, &[("E1", "Ada Lovelace")]).await;
        let jobs = [
            ("CLERK", "2023-01-01"),
            ("REP", "2024-01-01"),
            ("LEAD", "2025-01-01"),
        ];
        crate::fixtures::add_jobs(&table, "E1", &jobs).await;
        table.meter().reset();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let (s, b) = h.as_staff().get("/employees/E1", &[]).await;
        assert_eq!(s, 200, "{b}");
        assert_eq!(b["currentJob"]["jobId"], "LEAD");
        assert_eq!(b["currentJob"]["title"], "LEAD");
        assert_eq!(
            b["warehouse"],
            serde_json::json!({"warehouseId": "W1", "name": "Warehouse W1"})
        );
        let requests = table.meter().requests();
        assert_eq!(
            requests.len(),
            2,
            "one query, one batch of the job and warehouse"
        );
        assert_eq!(requests[0].items, 3, "employee and two edges, no history");
        assert_eq!(requests[0].read_units, 0.5);
        assert_eq!(requests[1].items, 2, "the job and the warehouse");
        let (s, b) = h.as_staff().get("/employees/E2", &[]).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("employee_not_found")));
    }

    /// Issue 29: a warehouse or job renamed through the API shows its new name on every employee
    /// that refers to it (H1 reads the names from their sources).
    #[tokio::test]
    async fn h1_shows_the_warehouse_and_job_as_they_are_named_now() {
        let table =
            crate::fixtures::org_with(testkit::table().await, &[("E1", "Ada Lovelace")]).await;
        let refs = Harness::new(
            &crate::put_reference::FUNCTION,
            crate::put_reference::handle,
            table.clone(),
        );
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let (s, b) = refs
            .as_staff()
            .put(
                "/warehouses/W1",
                r#"{"name":"Spandau Nord","regionId":"EU"}"#,
            )
            .await;
        assert_eq!(s, 200, "{b}");
        let (s, b) = h.as_staff().get("/employees/E1", &[]).await;
        assert_eq!(s, 200, "{b}");
        assert_eq!(b["warehouse"]["name"], "Spandau Nord");
        let jobs = Harness::new(
            &crate::add_employee_job::FUNCTION,
            crate::add_employee_job::handle,
            table.clone(),
        );
        let (s, b) = refs.as_staff().put("/jobs/REP", r#"{"title":"Rep"}"#).await;
        assert_eq!(s, 201, "{b}");
        let body = r#"{"jobId":"REP","departmentId":"D1","startDate":"2025-01-01"}"#;
        let (s, b) = jobs.as_staff().post("/employees/E1/jobs", body).await;
        assert_eq!(s, 201, "{b}");
        let (s, b) = refs
            .as_staff()
            .put("/jobs/REP", r#"{"title":"Sales Representative"}"#)
            .await;
        assert_eq!(s, 200, "{b}");
        let (s, b) = h.as_staff().get("/employees/E1", &[]).await;
        assert_eq!(s, 200, "{b}");
        assert_eq!(b["currentJob"]["title"], "Sales Representative");
    }
}
