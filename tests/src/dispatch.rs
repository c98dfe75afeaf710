//! Every function's handler by name: the "every route has a handler" half of the contract. A
//! function of the template missing here fails the tests.

use api::ApiError;
use lambda_http::{Body, Request, Response};
use store::{Table, cursor::CursorCodec};

pub const TEST_CURSOR_KEY: &str = "tests-cursor-signing-key-0123456789";
/// Write shards of the sharded counters in these tests (the template's default).
pub const TEST_SHARDS: u32 = 10;

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
        "put-book" => put_book::handle(table, req).await,
        "put-user" => put_user::handle(table, req).await,
        "put-review" => put_review::handle(table, req).await,
        "delete-review" => delete_review::handle(table, req).await,
        "get-book" => {
            let deps = get_book::Deps {
                table: table.clone(),
                cursors: CursorCodec::new(TEST_CURSOR_KEY).expect("long enough"),
            };
            get_book::handle(&deps, req).await
        }
        "get-user" => {
            let deps = get_user::Deps {
                table: table.clone(),
                cursors: CursorCodec::new(TEST_CURSOR_KEY).expect("long enough"),
            };
            get_user::handle(&deps, req).await
        }
        "get-product-sales" => {
            let deps = get_product_sales::Deps {
                table: table.clone(),
                shards: TEST_SHARDS,
            };
            get_product_sales::handle(&deps, req).await
        }
        "get-daily-stats" => {
            let deps = get_daily_stats::Deps {
                table: table.clone(),
                shards: TEST_SHARDS,
            };
            get_daily_stats::handle(&deps, req).await
        }
        _ => return None,
    })
}

/// Every stream handler by name.
pub async fn handle_stream(
    function: &str,
    table: &Table,
    event: &streams::Event,
) -> Option<streams::BatchResponse> {
    Some(match function {
        "project-order-status" => project_order_status::handle(table, event).await,
        "aggregate-orders" => {
            let deps = aggregate_orders::Deps {
                table: table.clone(),
                shards: TEST_SHARDS,
            };
            aggregate_orders::handle(&deps, event).await
        }
        "aggregate-reviews" => {
            let deps = aggregate_reviews::Deps {
                table: table.clone(),
                shards: TEST_SHARDS,
            };
            aggregate_reviews::handle(&deps, event).await
        }
        _ => return None,
    })
}
