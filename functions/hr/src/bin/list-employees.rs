//! H2, H6, H11: GET /employees?name= | hiredSince= | jobTitle= (staff)

use hr::list_employees as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
