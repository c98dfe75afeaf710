//! PUT /regions, /countries, /locations, /departments, /warehouses: HR reference data.

use hr::put_reference as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
