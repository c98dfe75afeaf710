api::main!(commerce::put_inventory);
