//! H1: GET /employees/{employeeId}: an employee with current job and warehouse (staff)

use hr::get_employee as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
