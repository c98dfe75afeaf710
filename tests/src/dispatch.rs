//! Every function's handler by name: the "every route has a handler" half of the contract. A
//! function of the template missing here fails the tests.

use api::ApiError;
use lambda_http::{Body, Request, Response};
use store::{Table, cursor::CursorCodec};

pub const TEST_CURSOR_KEY: &str = "tests-cursor-signing-key-0123456789";

pub async fn handle(
    function: &str,
    table: &Table,
    req: Request,
) -> Option<Result<Response<Body>, ApiError>> {
    Some(match function {
        "put-customer" => put_customer::handle(table, req).await,
        "get-customer" => get_customer::handle(table, req).await,
        "place-order" => place_order::handle(table, req).await,
        "list-customer-orders" => {
            let deps = list_customer_orders::Deps {
                table: table.clone(),
                cursors: CursorCodec::new(TEST_CURSOR_KEY).expect("long enough"),
            };
            list_customer_orders::handle(&deps, req).await
        }
        "get-order" => get_order::handle(table, req).await,
        "add-order-event" => add_order_event::handle(table, req).await,
        "put-cart-line" => put_cart_line::handle(table, req).await,
        "delete-cart-line" => delete_cart_line::handle(table, req).await,
        "get-cart" => get_cart::handle(table, req).await,
        _ => return None,
    })
}
