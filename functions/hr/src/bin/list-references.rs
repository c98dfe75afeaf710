api::main!(hr::list_references);
