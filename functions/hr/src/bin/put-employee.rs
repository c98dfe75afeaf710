//! PUT /employees/{employeeId}: create or replace an employee (staff)

use hr::put_employee as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
