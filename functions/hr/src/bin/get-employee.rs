api::main!(hr::get_employee);
