api::main!(hr::add_employee_job);
