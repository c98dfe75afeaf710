//! How HR's records are shown to clients (camelCase JSON): employees, their jobs and warehouses.
//! Each view is a type whose JSON Schema is `openapi.yaml`'s.

use crate::data::{EmployeeView, Sources};
use keys::{Date, Id};
use model::hr::{CurrentJob, Employee as EmployeeRecord, EmployeeWarehouse, JobHistory};
use schemars::JsonSchema;
use serde::Serialize;

/// An employee.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Employee {
    pub employee_id: Id,
    pub name: String,
    pub hire_date: Date,
    pub warehouse_id: Option<Id>,
}

/// a job held from a date; its title is the job's now (read from the job, null if the job no
/// longer exists)
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    pub job_id: Id,
    pub title: Option<String>,
    pub department_id: Id,
    pub start_date: Date,
}

/// An employee as a list shows them: from an edge (their id and name), or the employee item
/// (with their hire date and warehouse), or with their current job (H11).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub employee_id: Id,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Date")]
    pub hire_date: Option<Date>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warehouse_id: Option<Option<Id>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Job")]
    pub job: Option<Job>,
}

/// An employee as a warehouse's edge names them.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
pub struct Named {
    pub employee_id: Id,
    pub name: String,
}

/// An employee's warehouse, with its name now.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
pub struct Warehouse {
    pub warehouse_id: Id,
    /// the warehouse's name now (read from the warehouse); null if it no longer exists
    pub name: Option<String>,
}

/// H1: an employee, its current job and its warehouse.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
pub struct EmployeeDetail {
    #[serde(flatten)]
    pub employee: Employee,
    pub current_job: Option<Job>,
    pub warehouse: Option<Warehouse>,
}

pub fn employee(e: &EmployeeRecord) -> Employee {
    Employee {
        employee_id: e.employee_id.clone(),
        name: e.name.as_str().to_owned(),
        hire_date: e.hire_date,
        warehouse_id: e.warehouse_id.clone(),
    }
}

/// An employee of a list, from the employee item.
pub fn listed_employee(e: &EmployeeRecord) -> Listed {
    Listed {
        hire_date: Some(e.hire_date),
        warehouse_id: Some(e.warehouse_id.clone()),
        ..listed(&e.employee_id, &e.name)
    }
}

/// A job held, with its title as the job has it now (read from the job).
pub fn job(j: &JobHistory, sources: &Sources) -> Job {
    Job {
        job_id: j.job_id.clone(),
        title: sources.title(&j.job_id).map(str::to_owned),
        department_id: j.department_id.clone(),
        start_date: j.start_date,
    }
}

/// An employee as a GSI1 list shows them: from an edge or the employee item.
pub fn listed(employee_id: &Id, name: &keys::Name) -> Listed {
    Listed {
        employee_id: employee_id.clone(),
        name: name.as_str().to_owned(),
        hire_date: None,
        warehouse_id: None,
        job: None,
    }
}

pub fn with_job(c: &CurrentJob, sources: &Sources) -> Listed {
    Listed {
        job: Some(job(&c.job(), sources)),
        ..listed(&c.employee_id, &c.employee_name)
    }
}

/// An employee of a warehouse, as its edge names them (H7).
pub fn warehouse_employee(e: &EmployeeWarehouse) -> Named {
    Named {
        employee_id: e.employee_id.clone(),
        name: e.employee_name.as_str().to_owned(),
    }
}

/// A warehouse edge, with the warehouse's name as the warehouse has it now.
pub fn warehouse(w: &EmployeeWarehouse, sources: &Sources) -> Warehouse {
    Warehouse {
        warehouse_id: w.warehouse_id.clone(),
        name: sources.warehouse_name(&w.warehouse_id).map(str::to_owned),
    }
}

/// H1: the employee, its current job and its warehouse.
pub fn employee_view(v: &EmployeeView, sources: &Sources) -> EmployeeDetail {
    EmployeeDetail {
        employee: employee(&v.employee),
        current_job: v.current_job.as_ref().map(|c| job(&c.job(), sources)),
        warehouse: v.warehouse.as_ref().map(|w| warehouse(w, sources)),
    }
}
