api::main!(hr::get_employee_job);
