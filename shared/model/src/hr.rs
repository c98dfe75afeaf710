//! HR entities (the HR half of AWS's relational example): reference data, employees, and the
//! edges of an employee's adjacency list. Their keys are in `keys::hr`.
//!
//! Edges copy one thing, the employee's name (on its current-job and warehouse edges), so H7 and
//! H11 list employees without reading them; the employee's own writes keep those copies in step in
//! the same transaction. A warehouse's name and a job's title are copied nowhere: an edge names
//! its warehouse or job by id, and readers take the name from the record itself (H1 and H3 read
//! it with the edge, H11 finds jobs by title first), so a rename shows everywhere at once and no
//! stream consumer has copies to chase (the table's stream already has its two readers).

use keys::{
    Date, Gsi1Key, Gsi2Key, Id, Name, PrimaryKey,
    hr::{self as k, Reference, types},
};

use crate::{Entity, record};

/// Reference data: a record per kind, each `<TAG>#<id>`, `A`, naming its parent where seed
/// 003's relational schema has one, and listed by kind in GSI2 (`REFERENCE#<TAG>`).
pub trait ReferenceRecord: Entity {
    const KIND: Reference;
    fn id(&self) -> &Id;
    fn parent(&self) -> Option<&Id>;
    /// Its name (a job's title).
    fn name(&self) -> &str;
}

macro_rules! reference_record {
    ($(#[$meta:meta])* $name:ident, $kind:ident, $id:ident = $id_attr:literal, $id_const:ident
     $(, parent $parent:ident = $parent_attr:literal, $parent_const:ident)?) => {
        record! {
            $(#[$meta])*
            pub struct $name {
                $id: Id => $id_const = $id_attr,
                name: String => NAME = "Name",
                $($parent: Id => $parent_const = $parent_attr,)?
            }
        }

        impl Entity for $name {
            const TYPE: &'static str = types::$kind;
            fn key(&self) -> PrimaryKey {
                k::reference(Reference::$name, &self.$id)
            }
            fn gsi2(&self) -> Option<Gsi2Key> {
                Some(k::reference_list_index(Reference::$name, &self.$id))
            }
        }

        impl ReferenceRecord for $name {
            const KIND: Reference = Reference::$name;
            fn id(&self) -> &Id {
                &self.$id
            }
            fn parent(&self) -> Option<&Id> {
                None$(.or(Some(&self.$parent)))?
            }
            fn name(&self) -> &str {
                &self.name
            }
        }
    };
}

reference_record!(
    /// A region (the HR-Region of AWS's relational example).
    Region, REGION, region_id = "RegionId", REGION_ID
);
reference_record!(
    /// A country, in a region.
    Country, COUNTRY, country_id = "CountryId", COUNTRY_ID,
    parent region_id = "RegionId", REGION_ID
);
reference_record!(
    /// A location (an office), in a country.
    Location, LOCATION, location_id = "LocationId", LOCATION_ID,
    parent country_id = "CountryId", COUNTRY_ID
);
reference_record!(
    /// A department, at a location.
    Department, DEPARTMENT, department_id = "DepartmentId", DEPARTMENT_ID,
    parent location_id = "LocationId", LOCATION_ID
);
reference_record!(
    /// A warehouse (the OE-Warehouse of AWS's relational example), in a region.
    Warehouse, WAREHOUSE, warehouse_id = "WarehouseId", WAREHOUSE_ID,
    parent region_id = "RegionId", REGION_ID
);

record! {
    /// A job (the HR-Job of AWS's relational example): the one place its title is written. In
    /// GSI1 under its title (H11 finds the jobs of a title, then their holders).
    pub struct Job {
        job_id: Id => JOB_ID = "JobId",
        title: Name => TITLE = "Title",
    }
}

impl Entity for Job {
    const TYPE: &'static str = types::JOB;
    fn key(&self) -> PrimaryKey {
        k::reference(Reference::Job, &self.job_id)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::job_title_index(&self.title.key(), &self.job_id))
    }
    fn gsi2(&self) -> Option<Gsi2Key> {
        Some(k::reference_list_index(Reference::Job, &self.job_id))
    }
}

impl ReferenceRecord for Job {
    const KIND: Reference = Reference::Job;
    fn id(&self) -> &Id {
        &self.job_id
    }
    fn parent(&self) -> Option<&Id> {
        None
    }
    fn name(&self) -> &str {
        self.title.as_str()
    }
}

record! {
    /// An employee's own record (the HR-Employee of AWS's relational example).
    pub struct Employee {
        employee_id: Id => EMPLOYEE_ID = "EmployeeId",
        name: Name => NAME = "Name",
        hire_date: Date => HIRE_DATE = "HireDate",
        #[serde(default, skip_serializing_if = "Option::is_none")]
        warehouse_id: Option<Id> => WAREHOUSE_ID = "WarehouseId",
        /// Every write to the employee's partition bumps it, on condition that it is still what
        /// the writer read: the partition's writes are serialised through this item.
        revision: u64 => REVISION = "Revision",
    }
}

impl Entity for Employee {
    const TYPE: &'static str = types::EMPLOYEE;
    fn key(&self) -> PrimaryKey {
        k::employee(&self.employee_id)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::employee_name_index(&self.name.key(), &self.employee_id))
    }
    fn gsi2(&self) -> Option<Gsi2Key> {
        Some(k::hire_index(&self.employee_id, self.hire_date))
    }
}

record! {
    /// A job an employee held from a date (the job history of AWS's relational example, `JH#`).
    /// Its title is the job's ([`Job`]), read from there.
    pub struct JobHistory {
        employee_id: Id => EMPLOYEE_ID = "EmployeeId",
        job_id: Id => JOB_ID = "JobId",
        department_id: Id => DEPARTMENT_ID = "DepartmentId",
        start_date: Date => START_DATE = "StartDate",
    }
}

impl JobHistory {
    /// Whether this job is newer than `other`: by start date, then job id, as the history's sort
    /// key orders them (H3 reads it backwards).
    pub fn is_newer_than(&self, other: &JobHistory) -> bool {
        (self.start_date, self.job_id.as_str()) > (other.start_date, other.job_id.as_str())
    }
}

impl Entity for JobHistory {
    const TYPE: &'static str = types::JOB_HISTORY;
    fn key(&self) -> PrimaryKey {
        k::job_history(&self.employee_id, self.start_date, &self.job_id)
    }
}

record! {
    /// The employee's current job: its newest job history entry, with the employee's name, in
    /// GSI1 under its job (H11).
    pub struct CurrentJob {
        employee_id: Id => EMPLOYEE_ID = "EmployeeId",
        employee_name: Name => EMPLOYEE_NAME = "EmployeeName",
        job_id: Id => JOB_ID = "JobId",
        department_id: Id => DEPARTMENT_ID = "DepartmentId",
        start_date: Date => START_DATE = "StartDate",
    }
}

impl CurrentJob {
    pub fn of(job: &JobHistory, employee_name: &Name) -> CurrentJob {
        CurrentJob {
            employee_id: job.employee_id.clone(),
            employee_name: employee_name.clone(),
            job_id: job.job_id.clone(),
            department_id: job.department_id.clone(),
            start_date: job.start_date,
        }
    }

    pub fn job(&self) -> JobHistory {
        JobHistory {
            employee_id: self.employee_id.clone(),
            job_id: self.job_id.clone(),
            department_id: self.department_id.clone(),
            start_date: self.start_date,
        }
    }
}

impl Entity for CurrentJob {
    const TYPE: &'static str = types::CURRENT_JOB;
    fn key(&self) -> PrimaryKey {
        k::current_job(&self.employee_id)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::job_holder_index(&self.job_id, &self.employee_id))
    }
}

record! {
    /// The warehouse an employee works at: an edge in the employee's partition, in GSI1 under
    /// the warehouse (H7). The warehouse's name is the warehouse's ([`Warehouse`]), read from there.
    pub struct EmployeeWarehouse {
        employee_id: Id => EMPLOYEE_ID = "EmployeeId",
        employee_name: Name => EMPLOYEE_NAME = "EmployeeName",
        warehouse_id: Id => WAREHOUSE_ID = "WarehouseId",
    }
}

impl Entity for EmployeeWarehouse {
    const TYPE: &'static str = types::EMPLOYEE_WAREHOUSE;
    fn key(&self) -> PrimaryKey {
        k::employee_warehouse(&self.employee_id, &self.warehouse_id)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::warehouse_employee_index(
            &self.warehouse_id,
            &self.employee_id,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_item, s, to_item};

    fn id(v: &str) -> Id {
        Id::parse("id", v).unwrap()
    }

    #[test]
    fn reference_records_name_their_parents() {
        let country = Country {
            country_id: id("DE"),
            name: "Germany".into(),
            region_id: id("EU"),
        };
        let item = to_item(&country).unwrap();
        assert_eq!(item["PK"], s("COUNTRY#DE"));
        assert_eq!(item["SK"], s("A"));
        assert_eq!(item[Country::REGION_ID], s("EU"));
        assert_eq!(country.parent(), Some(&id("EU")));
        assert_eq!(Country::KIND.parent(), Some(Reference::Region));
        assert_eq!(item["GSI2PK"], s("REFERENCE#COUNTRY"));
        assert_eq!(from_item::<Country>(item).unwrap(), country);
        let job = Job {
            job_id: id("SA_REP"),
            title: Name::parse("title", "Sales  Representative").unwrap(),
        };
        let item = to_item(&job).unwrap();
        assert_eq!((&item["PK"], &item["SK"]), (&s("JOB#SA_REP"), &s("A")));
        assert_eq!(item["GSI1PK"], s("JOBTITLE#salesrepresentative"));
        assert_eq!(item["GSI2SK"], s("JOB#SA_REP"));
        assert_eq!((job.name(), job.parent()), ("Sales Representative", None));
        let region = Region {
            region_id: id("EU"),
            name: "Europe".into(),
        };
        assert_eq!(region.parent(), None);
    }

    #[test]
    fn an_employee_and_its_edges_carry_their_index_keys() {
        let e = Employee {
            employee_id: id("E1"),
            name: Name::parse("name", "Ada  Lovelace").unwrap(),
            hire_date: Date::parse_iso("2024-02-01").unwrap(),
            warehouse_id: None,
            revision: 1,
        };
        let item = to_item(&e).unwrap();
        assert_eq!(item["GSI1PK"], s("EMPLOYEENAME#adalovelace"));
        assert_eq!(item["GSI1SK"], s("EMPLOYEE#E1"));
        assert_eq!(item["GSI2SK"], s("2024/02/01#E1"));
        assert_eq!(item[Employee::NAME], s("Ada Lovelace"));
        assert!(!item.contains_key(Employee::WAREHOUSE_ID));
        assert_eq!(from_item::<Employee>(item).unwrap(), e);

        let job = JobHistory {
            employee_id: id("E1"),
            job_id: id("SA_REP"),
            department_id: id("D80"),
            start_date: Date::parse_iso("2024-02-01").unwrap(),
        };
        assert_eq!(to_item(&job).unwrap()["SK"], s("JH#2024/02/01#SA_REP"));
        assert!(
            !to_item(&job).unwrap().contains_key("GSI1PK"),
            "history is not in GSI1"
        );
        let current = to_item(&CurrentJob::of(&job, &e.name)).unwrap();
        assert_eq!(current["SK"], s("#JOB"));
        assert_eq!(current["GSI1PK"], s("JOB#SA_REP"));
        assert!(
            !current.contains_key("Title"),
            "the title is the job's alone"
        );
        let later = JobHistory {
            start_date: Date::parse_iso("2025-01-01").unwrap(),
            ..job.clone()
        };
        assert!(later.is_newer_than(&job) && !job.is_newer_than(&later));
    }
}
