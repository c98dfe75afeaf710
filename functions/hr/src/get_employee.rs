//! H1: `GET /employees/{employeeId}` → the employee, its current job and its warehouse, from
//! ONE query of its partition (`SK <= A`: the edges sort before the employee's `A` record, the
//! job history after it, so the history is never read). Staff only; 404 `employee_not_found`.

use api::declare::*;
use api::{Access, ApiError, views::hr as view};
use lambda_http::{Body, Request, Response};
use store::{Deps, Needs, hr};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "get-employee",
    access: Access::Staff,
    needs: Needs::TABLE,
    routes: &[Route::get(
        "/employees/{employeeId}",
        "H1: an employee with current job and warehouse, in one query that never reads the job history",
        &[Pattern {
            id: "H1",
            route: "`GET /employees/{employeeId}` (staff)",
            index: Index::Table,
            request: "Query `PK = EMPLOYEE#<id> AND SK <= A` (edges `#JOB`, `#WAREHOUSE#<w>` and `A`; never the history)",
            returns: "the employee with `currentJob` and `warehouse`; 404 `employee_not_found`",
            example: Example::staff("/employees/E100"),
        }],
    )],
};

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let id = api::path_id(&req, "employeeId")?;
    let found = hr::employee(&deps.table, &id, false).await?;
    let employee = ApiError::or_not_found(found, "employee_not_found", || {
        format!("No such employee: {id}")
    })?;
    api::json(200, &view::employee_view(&employee))
}

#[cfg(test)]
mod tests {
    use super::*;
    use testkit::Harness;

    #[tokio::test]
    async fn h1_is_one_query_that_never_reads_the_history() {
        let table = testkit::table().await;
        testkit::fixtures::org(&table).await;
        testkit::fixtures::employee(&table, "E1", "Ada Lovelace").await;
        for (job, start) in [
            ("CLERK", "2023-01-01"),
            ("REP", "2024-01-01"),
            ("LEAD", "2025-01-01"),
        ] {
            let j = testkit::fixtures::job("E1", job, start);
            store::hr::add_job(&table, &j).await.unwrap();
        }
        table.meter().reset();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let (s, b) = h.as_staff().get("/employees/E1", &[]).await;
        assert_eq!(s, 200, "{b}");
        assert_eq!(b["currentJob"]["jobId"], "LEAD");
        assert_eq!(b["warehouse"]["warehouseId"], "W1");
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1, "one query");
        assert_eq!(requests[0].items, 3, "employee and two edges, no history");
        assert_eq!(requests[0].read_units, 0.5);
        let (s, b) = h.as_staff().get("/employees/E2", &[]).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("employee_not_found")));
    }
}
