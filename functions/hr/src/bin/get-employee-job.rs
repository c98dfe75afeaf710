//! H3: GET /employees/{employeeId}/job: an employee's current job details (staff)

use hr::get_employee_job as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
