//! How HR's records are shown to clients (camelCase JSON): employees, their jobs and warehouses.

use crate::data::{EmployeeView, Sources};
use model::hr::{CurrentJob, Employee, EmployeeWarehouse, JobHistory};
use serde_json::{Value, json};

pub fn employee(e: &Employee) -> Value {
    json!({
        "employeeId": e.employee_id.as_str(),
        "name": e.name.as_str(),
        "hireDate": e.hire_date,
        "warehouseId": e.warehouse_id.as_ref().map(|w| w.as_str()),
    })
}

/// A job held, with its title as the job has it now (read from the job).
pub fn job(j: &JobHistory, sources: &Sources) -> Value {
    json!({
        "jobId": j.job_id.as_str(),
        "title": sources.title(&j.job_id),
        "departmentId": j.department_id.as_str(),
        "startDate": j.start_date,
    })
}

/// An employee as a GSI1 list shows them: from an edge or the employee item.
pub fn listed(employee_id: &keys::Id, name: &keys::Name) -> Value {
    json!({"employeeId": employee_id.as_str(), "name": name.as_str()})
}

pub fn with_job(c: &CurrentJob, sources: &Sources) -> Value {
    let mut v = listed(&c.employee_id, &c.employee_name);
    v["job"] = job(&c.job(), sources);
    v
}

/// A warehouse edge, with the warehouse's name as the warehouse has it now.
pub fn warehouse(w: &EmployeeWarehouse, sources: &Sources) -> Value {
    json!({
        "warehouseId": w.warehouse_id.as_str(),
        "name": sources.warehouse_name(&w.warehouse_id),
    })
}

/// H1: the employee, its current job and its warehouse.
pub fn employee_view(v: &EmployeeView, sources: &Sources) -> Value {
    let mut out = employee(&v.employee);
    out["currentJob"] = v
        .current_job
        .as_ref()
        .map_or(Value::Null, |c| job(&c.job(), sources));
    out["warehouse"] = v
        .warehouse
        .as_ref()
        .map_or(Value::Null, |w| warehouse(w, sources));
    out
}
