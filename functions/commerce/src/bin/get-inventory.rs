api::main!(commerce::get_inventory);
