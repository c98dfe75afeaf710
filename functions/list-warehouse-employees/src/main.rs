//! H7: GET /warehouses/{warehouseId}/employees (staff)
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_warehouse_employees::PATTERN,
        list_warehouse_employees::NEEDS,
        list_warehouse_employees::ACCESS,
        list_warehouse_employees::handle,
    )
    .await
}
