//! H7: GET /warehouses/{warehouseId}/employees (staff)

use hr::list_warehouse_employees as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
