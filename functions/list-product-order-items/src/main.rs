//! O8: GET /products/{sku}/order-items: a product's warehouse inventories and order lines, one GSI1 query (staff).
//! Wiring only: configuration and client are made once, at start-up; the handler is in lib.rs.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(
        list_product_order_items::PATTERN,
        list_product_order_items::NEEDS,
        list_product_order_items::ACCESS,
        list_product_order_items::handle,
    )
    .await
}
