api::main!(reviews::put_user);
