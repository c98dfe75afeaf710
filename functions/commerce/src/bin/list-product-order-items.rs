//! O8: GET /products/{sku}/order-items: a product's warehouse inventories and order lines, one GSI1 query (staff).

use commerce::list_product_order_items as function;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    api::serve(&function::FUNCTION, function::handle).await
}
