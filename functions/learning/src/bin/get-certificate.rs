api::main!(learning::get_certificate);
