api::main!(commerce::get_product);
