//! H1: GET /employees/{employeeId}: an employee with current job and warehouse (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        get_employee::PATTERN,
        get_employee::NEEDS,
        get_employee::ACCESS,
        get_employee::handle,
    )
    .await
}
