//! PUT /regions, /countries, /locations, /departments, /warehouses: HR reference data.
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        put_reference::PATTERN,
        put_reference::NEEDS,
        put_reference::ACCESS,
        put_reference::handle,
    )
    .await
}
