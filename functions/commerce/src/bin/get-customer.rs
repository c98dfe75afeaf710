api::main!(commerce::get_customer);
