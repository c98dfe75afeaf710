api::main!(commerce::adjust_inventory);
