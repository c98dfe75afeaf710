//! `POST /employees/{employeeId}/jobs` `{jobId, title, departmentId, startDate}`: adds a job to
//! an employee's history (`JH#<start date>#<jobId>`), staff only, 201. ONE transaction bumps the
//! employee's revision, checks the department exists and, when the job is the newest (by start
//! date, then job id), moves the current-job edge to it, so H11 finds the employee under the new
//! title only. 404 `employee_not_found` / `department_not_found`, 409 `job_exists` (the same job
//! from the same date); nothing written then.

use api::declare::*;
use api::{Access, ApiError, views::hr as view};
use keys::{Date, Id, Name};
use lambda_http::{Body, Request, Response};
use model::hr::JobHistory;
use serde::Deserialize;
use store::{
    Deps, Needs,
    hr::{self, JobAdded},
};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "add-employee-job",
    access: Access::Staff,
    needs: Needs::TABLE,
    routes: &[
        Route::post(
            "/employees/{employeeId}/jobs",
            "Add a job to an employee's history; the newest becomes the current job",
            &[
                Pattern {
                    id: "",
                    route: "`POST /employees/{employeeId}/jobs` `{jobId, title, departmentId, startDate}` (staff)",
                    index: Index::Table,
                    request: "Query H1 (consistent); TransactWriteItems: Update the employee's revision (conditioned), ConditionCheck department, Put `JH#<date>#<jobId>` (`attribute_not_exists`), Put `#JOB` when newest",
                    returns: "201 the job and `current`; 404 `employee_not_found`, `department_not_found`; 409 `job_exists`",
                    example: Example::staff("/employees/E100/jobs").with_body(r#"{"jobId": "SA_MAN", "title": "Sales Manager", "departmentId": "SALES", "startDate": "2026-01-05"}"#),
                },
            ],
),
    ],
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NewJob {
    job_id: String,
    title: String,
    department_id: String,
    start_date: String,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let employee_id = api::path_id(&req, "employeeId")?;
    let body: NewJob = api::json_body(&req)?;
    let job = JobHistory {
        employee_id,
        job_id: api::field("jobId", Id::parse("jobId", &body.job_id))?,
        title: api::field("title", Name::parse("title", &body.title))?,
        department_id: api::field(
            "departmentId",
            Id::parse("departmentId", &body.department_id),
        )?,
        start_date: api::field("startDate", Date::parse_iso(&body.start_date))?,
    };
    match hr::add_job(&deps.table, &job).await? {
        JobAdded::Added { current } => {
            let mut out = view::job(&job);
            out["current"] = current.into();
            api::json(201, &out)
        }
        JobAdded::EmployeeNotFound => Err(ApiError::not_found(
            "employee_not_found",
            format!("No such employee: {}", job.employee_id),
        )),
        JobAdded::DepartmentNotFound => Err(ApiError::not_found(
            "department_not_found",
            format!("No such department: {}", job.department_id),
        )),
        JobAdded::Exists => Err(ApiError::new(
            409,
            "job_exists",
            format!(
                "{} holds {} from {} already.",
                job.employee_id, job.job_id, job.start_date
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use testkit::Harness;

    const REP: &str = r#"{"jobId":"SA_REP","title":"Sales Representative","departmentId":"D1","startDate":"2025-03-01"}"#;

    #[tokio::test]
    async fn a_newer_job_becomes_current_an_older_one_does_not() {
        let table = testkit::table().await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let post = async |path: &str, body: &str| h.as_staff().post(path, body).await;
        let (s, b) = post("/employees/E1/jobs", REP).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("employee_not_found")));
        testkit::fixtures::org(&table).await;
        testkit::fixtures::employee(&table, "E1", "Ada Lovelace").await;
        let (s, b) = post("/employees/E1/jobs", REP).await;
        assert_eq!((s, &b["current"]), (201, &Value::Bool(true)), "{b}");
        let older =
            r#"{"jobId":"CLERK","title":"Clerk","departmentId":"D1","startDate":"2024-01-15"}"#;
        let (s, b) = post("/employees/E1/jobs", older).await;
        assert_eq!((s, &b["current"]), (201, &Value::Bool(false)));
        let (s, b) = post("/employees/E1/jobs", REP).await;
        assert_eq!((s, b["code"].as_str()), (409, Some("job_exists")));
        let elsewhere = REP.replace("D1", "D9").replace("2025", "2026");
        let (s, b) = post("/employees/E1/jobs", &elsewhere).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("department_not_found")));
        for bad in [
            REP.replace("2025-03-01", "2025-02-30"),
            REP.replace("SA_REP", "SA#REP"),
            REP.replace("Sales Representative", " "),
            REP.replace("\"D1\"", "\"\""),
        ] {
            assert_eq!(post("/employees/E1/jobs", &bad).await.0, 400, "{bad}");
        }
    }
}
