//! GET /regions/{id}, /countries/{id}, /locations/{id}, /departments/{id}, /warehouses/{id},
//! /jobs/{id}: HR reference data read back.

use hr::get_reference as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
