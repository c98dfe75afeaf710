//! H3, the whole history: GET /employees/{employeeId}/jobs (staff)

use hr::list_employee_jobs as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
