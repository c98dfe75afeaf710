//! PUT /employees/{employeeId}: create or replace an employee (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_employee::PATTERN,
        put_employee::NEEDS,
        put_employee::ACCESS,
        put_employee::handle,
    )
    .await
}
