api::main!(hr::get_reference);
