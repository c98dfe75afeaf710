api::main!(hr::list_employee_jobs);
