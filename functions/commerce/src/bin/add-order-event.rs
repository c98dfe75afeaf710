api::main!(commerce::add_order_event);
