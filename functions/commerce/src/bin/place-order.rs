api::main!(commerce::place_order);
