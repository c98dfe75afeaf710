//! `POST /employees/{employeeId}/jobs` `{jobId, departmentId, startDate}`: adds a job to an
//! employee's history (`JH#<start date>#<jobId>`), staff only, 201. The job is one `PUT
//! /jobs/{jobId}` made, and its title is the job's: a body that sends a `title` is refused (400
//! `invalid_body`), so one job id can never carry two titles. ONE transaction bumps the
//! employee's revision, checks the job and the department exist and, when the job is the newest
//! (by start date, then job id), moves the current-job edge to it, so H11 finds the employee under
//! the new job only. 404 `employee_not_found` / `job_not_found` / `department_not_found`, 409
//! `job_exists` (the same job from the same date); nothing written then.

use crate::data::{self as hr, JobAdded};
use api::declare::*;
use keys::{Date, Id};
use model::hr::JobHistory;
use serde::{Deserialize, Serialize};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "add-employee-job",
    Access::Staff,
    &Route::post(
        "/employees/{employeeId}/jobs",
        "Add a job to an employee's history; the newest becomes the current job",
        &[Pattern {
            id: "",
            route: "`POST /employees/{employeeId}/jobs` `{jobId, departmentId, startDate}` (staff)",
            index: Index::Table,
            request: "GetItem `JOB#<jobId>` (its title); Query H1 (consistent); TransactWriteItems: Update the employee's revision (conditioned), ConditionCheck job and department, Put `JH#<date>#<jobId>` (`attribute_not_exists`), Put `#JOB` when newest",
            returns: "201 the job (its title the job's) and `current`; 404 `employee_not_found`, `job_not_found`, `department_not_found`; 409 `job_exists`",
            example: Example::staff("/employees/E100/jobs").with_body(
                r#"{"jobId": "SA_MAN", "departmentId": "SALES", "startDate": "2026-01-05"}"#,
            ),
        }],
    ),
);

api::refusals! {
    EmployeeNotFound = crate::refusals::EMPLOYEE_NOT_FOUND,
    JobNotFound = crate::reference::NotFound::Job.refusal(),
    DepartmentNotFound = crate::reference::NotFound::Department.refusal(),
    JobExists = Refusal::new(409, "job_exists", "the employee has that job on that start date already"),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::created::<Added>("the job, and whether it is now the current one")
            .body::<NewJob>()
            .refusals(Refused::ALL)
            .worst(|| {
                const JOBS: usize = 5;
                let job = crate::put_reference::largest(JOBS);
                api::function::Worst::new(
        format!(
            "the newest job (it becomes the current one) of a title of {} characters of 4 bytes",
            crate::put_reference::longest_name(JOBS).1
        ),
        Example::staff("/employees/E100/jobs").with_body(
            r#"{"jobId": "SA_MAN", "departmentId": "SALES", "startDate": "2026-01-05"}"#,
        ),
    )
    .after("put-reference", job)
            }),
    ];

/// the job is one PUT /jobs/{jobId} made; its title is the job's (a body with a title is
/// refused, 400 invalid_body)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(inline)]
struct NewJob {
    #[schemars(with = "Id")]
    job_id: String,
    #[schemars(with = "Id")]
    department_id: String,
    #[schemars(with = "Date")]
    start_date: String,
    /// Refused with its own message: the title is the job's (`PUT /jobs/{jobId}`).
    #[schemars(skip)]
    title: Option<serde::de::IgnoredAny>,
}

/// The job added: its title is the job's, which exists.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
struct Added {
    job_id: Id,
    title: String,
    department_id: Id,
    start_date: Date,
    /// whether it is now the employee's current job (the newest of the history)
    current: bool,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let employee_id = api::path_id(&req, "employeeId")?;
    let body: NewJob = api::json_body(&req)?;
    if body.title.is_some() {
        return Err(Common::InvalidBody.because("title: a job's title is the job's own, set by PUT /jobs/{jobId}; send only jobId, departmentId and startDate",
        ));
    }
    let job = JobHistory {
        employee_id,
        job_id: api::field("jobId", Id::parse("jobId", &body.job_id))?,
        department_id: api::field(
            "departmentId",
            Id::parse("departmentId", &body.department_id),
        )?,
        start_date: api::field("startDate", Date::parse_iso(&body.start_date))?,
    };
    match hr::add_job(&deps.table, &job).await? {
        JobAdded::Added {
            current,
            job: record,
        } => {
            let added = Added {
                job_id: job.job_id.clone(),
                title: model::hr::ReferenceRecord::name(&record).to_owned(),
                department_id: job.department_id.clone(),
                start_date: job.start_date,
                current,
            };
            api::json(201, &added)
        }
        JobAdded::EmployeeNotFound => {
            Err(Refused::EmployeeNotFound.because(format!("No such employee: {}", job.employee_id)))
        }
        JobAdded::JobNotFound => Err(Refused::JobNotFound.because(format!(
            "No such job: {} (PUT /jobs/{{jobId}} creates it)",
            job.job_id
        ))),
        JobAdded::DepartmentNotFound => Err(Refused::DepartmentNotFound
            .because(format!("No such department: {}", job.department_id))),
        JobAdded::Exists => Err(Refused::JobExists.because(format!(
            "{} holds {} from {} already.",
            job.employee_id, job.job_id, job.start_date
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use testkit::Harness;

    const REP: &str = r#"{"jobId":"SA_REP","departmentId":"D1","startDate":"2025-03-01"}"#;

    #[tokio::test]
    async fn a_newer_job_becomes_current_an_older_one_does_not() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let post = async |path: &str, body: &str| h.as_staff().post(path, body).await;
        let (s, b) = post("/employees/E1/jobs", REP).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("employee_not_found")));
        crate::fixtures::org(table).await;
        crate::fixtures::employee(table, "E1", "Ada Lovelace").await;
        for job in ["SA_REP", "CLERK"] {
            crate::fixtures::job_record(table, job).await;
        }
        let (s, b) = post("/employees/E1/jobs", REP).await;
        assert_eq!((s, &b["current"]), (201, &Value::Bool(true)), "{b}");
        let older = r#"{"jobId":"CLERK","departmentId":"D1","startDate":"2024-01-15"}"#;
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
            REP.replace("\"jobId\"", "\"job\""),
            REP.replace("\"D1\"", "\"\""),
        ] {
            assert_eq!(post("/employees/E1/jobs", &bad).await.0, 400, "{bad}");
        }
    }

    /// Issue 29: a job added to an employee is a job that exists (created by `PUT /jobs`); its
    /// title is the job's, and a body that still sends one is refused, naming the field.
    #[tokio::test]
    async fn a_job_added_refers_to_an_existing_job_and_takes_its_title() {
        let table =
            crate::fixtures::org_with(testkit::table().await, &[("E1", "Ada Lovelace")]).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let refs = Harness::new(
            &crate::put_reference::FUNCTION,
            crate::put_reference::handle,
            table.clone(),
        );
        let body = r#"{"jobId":"SA_REP","departmentId":"D1","startDate":"2025-03-01"}"#;
        let before = testkit::all_items(&table).await;
        let (s, b) = h.as_staff().post("/employees/E1/jobs", body).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("job_not_found")), "{b}");
        assert_eq!(testkit::all_items(&table).await, before, "nothing written");
        let (s, b) = refs
            .as_staff()
            .put("/jobs/SA_REP", r#"{"title":"Sales Representative"}"#)
            .await;
        assert_eq!(s, 201, "{b}");
        assert_eq!(
            b,
            serde_json::json!({"jobId": "SA_REP", "title": "Sales Representative"})
        );
        let titled = body.replace("{", r#"{"title":"Sales Rep","#);
        let (s, b) = h.as_staff().post("/employees/E1/jobs", &titled).await;
        assert_eq!((s, b["code"].as_str()), (400, Some("invalid_body")), "{b}");
        assert!(b["message"].as_str().unwrap().contains("title"), "{b}");
        let (s, b) = h.as_staff().post("/employees/E1/jobs", body).await;
        assert_eq!(s, 201, "{b}");
        assert_eq!(
            (&b["title"], &b["current"]),
            (&Value::from("Sales Representative"), &Value::Bool(true))
        );
    }
}
