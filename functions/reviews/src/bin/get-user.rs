api::main!(reviews::get_user);
