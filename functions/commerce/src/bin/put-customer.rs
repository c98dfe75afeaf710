api::main!(commerce::put_customer);
