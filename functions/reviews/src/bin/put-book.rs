api::main!(reviews::put_book);
