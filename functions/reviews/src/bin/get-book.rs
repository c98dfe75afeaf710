api::main!(reviews::get_book);
