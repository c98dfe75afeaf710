api::main!(commerce::list_orders);
