api::main!(hr::list_warehouse_employees);
