//! Commerce: customers, orders and their tracking, carts, products and inventory, account reps, daily stats; the commerce stream handler.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, a few lines that serve the module.

api::functions![
    get_customer,
    put_customer,
    place_order,
    list_customer_orders,
    get_order,
    add_order_event,
    get_cart,
    put_cart_line,
    delete_cart_line,
    get_product_sales,
    put_product,
    get_product,
    put_inventory,
    adjust_inventory,
    get_inventory,
    list_product_order_items,
    get_daily_stats,
    list_orders,
    list_rep_customers,
    list_rep_orders,
    get_rep_ranking,
];

stream_handler::consumers![commerce_stream,];

pub mod params;
pub mod views;
