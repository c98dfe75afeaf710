api::main!(hr::put_reference);
