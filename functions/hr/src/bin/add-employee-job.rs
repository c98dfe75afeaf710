//! POST /employees/{employeeId}/jobs: add a job to an employee's history (staff)

use hr::add_employee_job as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
