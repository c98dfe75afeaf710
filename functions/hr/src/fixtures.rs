//! HR's fixtures: the small org, its employees and their jobs every HR test (and every commerce
//! test that needs a rep or a warehouse) starts from, written through this crate's own writes
//! ([`crate::data`]), as the functions write them. Not behind a feature: one build serves the
//! functions, the tools and the tests.

use keys::{Date, Id};
use store::Table;

use crate::data as hr;

pub fn id(s: &str) -> Id {
    Id::parse("id", s).expect("a valid test id")
}

/// A small org (written): region EU, country DE, location BER, department D1, warehouses W1, W2.
pub async fn org(table: &Table) {
    use model::hr::{Country, Department, Location, Region, Warehouse};
    hr::put_reference(
        table,
        &Region {
            region_id: id("EU"),
            name: "Europe".into(),
        },
    )
    .await
    .expect("a region");
    hr::put_reference(
        table,
        &Country {
            country_id: id("DE"),
            name: "Germany".into(),
            region_id: id("EU"),
        },
    )
    .await
    .expect("a country");
    hr::put_reference(
        table,
        &Location {
            location_id: id("BER"),
            name: "Berlin".into(),
            country_id: id("DE"),
        },
    )
    .await
    .expect("a location");
    hr::put_reference(
        table,
        &Department {
            department_id: id("D1"),
            name: "Sales".into(),
            location_id: id("BER"),
        },
    )
    .await
    .expect("a department");
    for w in ["W1", "W2"] {
        hr::put_reference(
            table,
            &Warehouse {
                warehouse_id: id(w),
                name: format!("Warehouse {w}"),
                region_id: id("EU"),
            },
        )
        .await
        .expect("a warehouse");
    }
}

/// An employee (written) of warehouse W1, hired 2024-01-15 (needs [`org`]).
pub async fn employee(table: &Table, employee: &str, name: &str) {
    let input = hr::EmployeeInput {
        employee_id: id(employee),
        name: keys::Name::parse("name", name).expect("a valid test name"),
        hire_date: Date::parse_iso("2024-01-15").expect("a date"),
        warehouse_id: Some(id("W1")),
    };
    hr::put_employee(table, &input).await.expect("an employee");
}

/// A job held (not written) in department D1.
pub fn job(employee: &str, job: &str, start: &str) -> model::hr::JobHistory {
    model::hr::JobHistory {
        employee_id: id(employee),
        job_id: id(job),
        department_id: id("D1"),
        start_date: Date::parse_iso(start).expect("a valid test date"),
    }
}

/// The job `job` (written, or replaced), titled as its id.
pub async fn job_record(table: &Table, job: &str) {
    let record = model::hr::Job {
        job_id: id(job),
        title: keys::Name::parse("title", job).expect("a valid title"),
    };
    hr::put_reference(table, &record).await.expect("a job");
}

/// `employee` holds `job` (written, with the job itself: [`job_record`]) from `start`, in
/// department D1 (needs [`org`] and the employee).
pub async fn add_job(table: &Table, employee: &str, job: &str, start: &str) {
    job_record(table, job).await;
    let added = hr::add_job(table, &self::job(employee, job, start))
        .await
        .expect("a job added");
    assert!(matches!(added, hr::JobAdded::Added { .. }), "{added:?}");
}

/// `employee` holds each of `jobs` (job, start) in turn, written in this order ([`add_job`]).
pub async fn add_jobs(table: &Table, employee: &str, jobs: &[(&str, &str)]) {
    for (job, start) in jobs {
        add_job(table, employee, job, start).await;
    }
}

/// `table` with the small org of [`org`] and `employees` (id, name) of warehouse W1
/// ([`employee`]): where the HR tests start (`org_with(testkit::table().await, &[..])`).
pub async fn org_with(table: Table, employees: &[(&str, &str)]) -> Table {
    org(&table).await;
    for (id, name) in employees {
        employee(&table, id, name).await;
    }
    table
}
