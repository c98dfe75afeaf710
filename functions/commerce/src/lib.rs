//! Commerce: customers, orders and their tracking, carts, products and inventory, account reps, daily stats; the commerce stream handler.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, a few lines that serve the module. Beside them, what the context does with the table
//! and shows of it: [`data`] (its reads and writes), [`views`] (its records as clients read them),
//! [`params`] (its own request parameters), and [`fixtures`] (the entities its tests, the seeds and
//! the tools start from).

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
    list_product_inventories,
    list_product_order_items,
    get_daily_stats,
    list_orders,
    list_rep_customers,
    list_rep_orders,
    get_rep_ranking,
];

stream_handler::consumers![commerce_stream,];

pub mod data;
pub mod fixtures;
pub mod params;
pub mod views;

#[cfg(test)]
mod designs;
