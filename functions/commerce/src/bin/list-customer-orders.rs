api::main!(commerce::list_customer_orders);
