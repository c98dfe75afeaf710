api::main!(hr::put_employee);
