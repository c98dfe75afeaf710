api::main!(reviews::delete_review);
