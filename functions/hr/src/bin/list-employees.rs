api::main!(hr::list_employees);
