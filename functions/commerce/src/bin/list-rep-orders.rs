api::main!(commerce::list_rep_orders);
