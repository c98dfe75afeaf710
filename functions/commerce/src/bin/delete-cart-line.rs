api::main!(commerce::delete_cart_line);
