//! H3: GET /employees/{employeeId}/job: an employee's current job details (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_employee_job::PATTERN,
        get_employee_job::NEEDS,
        get_employee_job::ACCESS,
        get_employee_job::handle,
    )
    .await
}
