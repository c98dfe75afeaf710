//! GET /regions, /countries, /locations, /departments, /warehouses, /jobs: HR reference data
//! listed by kind (GSI2).

use hr::list_references as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
