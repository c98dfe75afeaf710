api::main!(commerce::put_product);
