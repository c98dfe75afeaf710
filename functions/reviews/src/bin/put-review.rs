api::main!(reviews::put_review);
