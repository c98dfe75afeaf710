//! POST /employees/{employeeId}/jobs: add a job to an employee's history (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        add_employee_job::PATTERN,
        add_employee_job::NEEDS,
        add_employee_job::ACCESS,
        add_employee_job::handle,
    )
    .await
}
