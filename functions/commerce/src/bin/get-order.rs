api::main!(commerce::get_order);
