//! HR: reference data (regions, countries, locations, departments, warehouses), employees and their jobs.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, a few lines that serve the module. Beside them, what the context does with the table
//! and shows of it: [`data`] (its reads and writes), [`views`] (its records as clients read them),
//! and [`fixtures`] (the entities its tests, the seeds and the tools start from).

api::functions![
    put_reference,
    put_employee,
    get_employee,
    add_employee_job,
    get_employee_job,
    list_employees,
    list_warehouse_employees,
    get_reference,
    list_references,
    list_employee_jobs,
];

pub mod reference;

pub mod data;
pub mod fixtures;
pub mod views;
