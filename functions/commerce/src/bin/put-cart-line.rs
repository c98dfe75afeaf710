api::main!(commerce::put_cart_line);
