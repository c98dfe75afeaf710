api::main!(commerce::get_cart);
