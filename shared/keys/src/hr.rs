//! HR keys (the HR half of AWS's relational example): reference data, employees as adjacency
//! lists, and the GSI1 and GSI2 entries the HR read patterns use.
//!
//! Each key shape is declared once, below (`key_shapes!`: one line makes the builder and the
//! registry's kind); `docs/keys.md` shows them all as tables, generated from these declarations.
//!
//! An employee's partition is the adjacency list of AWS's relational example: the entity item and
//! its edges. The edges sort before the `A` record (`#` < `A`) and the job history after it (`J` >
//! `A`), so H1 (the employee, current job and warehouse) is ONE query, `SK <= A`, that never reads
//! the history, and H3 (the current job's details, AWS's relational example: "SK starts with JH")
//! is one query backwards, `begins_with(SK, "JH#")`, `Limit = 1`: start dates are written broad to
//! narrow, so the newest comes first.
//!
//! The current-job edge is the newest job history entry, copied: it alone stands in GSI1 under its
//! job, so H11 finds employees by their current job only, and a promotion moves them. A job's
//! title is on the job alone (in GSI1 under it): H11 reads the jobs of a title, then their
//! holders, so a renamed job is found under its new title at once and no edge holds a stale copy.
//! Names and titles are free text, normalised (case and spacing ignored) and escaped ([`Text`]).
//!
//! Every reference record also stands in GSI2 under its kind (`REFERENCE#<TAG>`), so the records
//! of one kind are listed by one query: reference data is small and rarely written, so one
//! partition per kind is never hot.
//!
//! H6 (hired since a date) is the `HR-CONFIDENTIAL` partition of AWS's relational example,
//! write-sharded: every hire lands in one of [`HIRE_SHARDS`] partitions, by its employee id's code
//! points, and a read queries them all in parallel and merges them.

use crate::{
    Base, Composite, Date, Gsi1, Gsi2, Gsi2Key, Id, KeyCondition, PrimaryKey, Shard, SortCondition,
    Text, code_point_shard,
};

/// Static tags of HR keys (the registry declares where each one stands).
pub mod tag {
    pub const REGION: &str = "REGION";
    pub const COUNTRY: &str = "COUNTRY";
    pub const LOCATION: &str = "LOCATION";
    pub const DEPARTMENT: &str = "DEPARTMENT";
    pub const WAREHOUSE: &str = "WAREHOUSE";
    pub const EMPLOYEE: &str = "EMPLOYEE";
    pub const EMPLOYEE_NAME: &str = "EMPLOYEENAME";
    pub const JOB: &str = "JOB";
    pub const JOB_TITLE: &str = "JOBTITLE";
    pub const JOB_HISTORY: &str = "JH";
    /// The GSI2 partitions that list reference records, one per kind: `REFERENCE#<TAG>`.
    pub const REFERENCE: &str = "REFERENCE";
    pub const HIRED: &str = "HIRED";
    pub const A_RECORD: &str = "A";
    /// The empty segment that starts an edge's sort key (`#JOB`), as the `#ORDER#` of Good's
    /// data-modeling post.
    pub const LEADING: &str = "";
}

/// `Type` attribute values.
pub mod types {
    pub const REGION: &str = "Region";
    pub const COUNTRY: &str = "Country";
    pub const LOCATION: &str = "Location";
    pub const DEPARTMENT: &str = "Department";
    pub const WAREHOUSE: &str = "Warehouse";
    pub const JOB: &str = "Job";
    pub const EMPLOYEE: &str = "Employee";
    pub const CURRENT_JOB: &str = "CurrentJob";
    pub const EMPLOYEE_WAREHOUSE: &str = "EmployeeWarehouse";
    pub const JOB_HISTORY: &str = "JobHistory";
}

/// Shards of the hires partition (H6). Hires are few (an org hires hundreds a year, not
/// thousands a second), so the formula of AWS's relational example gives 1; 4 spreads the writes
/// of a bulk load and keeps the merged read cheap (4 × 0.5 RCU at least per page).
pub const HIRE_SHARDS: u32 = 4;

/// The kinds of reference data: each is `<TAG>#<id>`, `A`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    Region,
    Country,
    Location,
    Department,
    Warehouse,
    /// A job (the HR-Job of AWS's relational example): an id and a title.
    Job,
}

impl Reference {
    pub const ALL: [Reference; 6] = [
        Reference::Region,
        Reference::Country,
        Reference::Location,
        Reference::Department,
        Reference::Warehouse,
        Reference::Job,
    ];

    pub fn tag(self) -> &'static str {
        match self {
            Reference::Region => tag::REGION,
            Reference::Country => tag::COUNTRY,
            Reference::Location => tag::LOCATION,
            Reference::Department => tag::DEPARTMENT,
            Reference::Warehouse => tag::WAREHOUSE,
            Reference::Job => tag::JOB,
        }
    }

    /// The kind its records name as parent (the relational schema of AWS's relational example: a
    /// country is in a region, a location in a country, a department at a location, a warehouse
    /// in a region).
    pub const fn parent(self) -> Option<Reference> {
        match self {
            Reference::Region | Reference::Job => None,
            Reference::Country => Some(Reference::Region),
            Reference::Location => Some(Reference::Country),
            Reference::Department => Some(Reference::Location),
            Reference::Warehouse => Some(Reference::Region),
        }
    }
}

crate::shape::key_shapes! {
    context: "hr";
    // Reference records, each in its own partition, and listed by kind in GSI2 (see
    // [`reference`] and [`reference_list_index`]).
    pub fn region(id: &Id) -> Base<REGION> { REGION # {id} / A_RECORD }
    pub fn country(id: &Id) -> Base<COUNTRY> { COUNTRY # {id} / A_RECORD }
    pub fn location(id: &Id) -> Base<LOCATION> { LOCATION # {id} / A_RECORD }
    pub fn department(id: &Id) -> Base<DEPARTMENT> { DEPARTMENT # {id} / A_RECORD }
    pub fn warehouse(id: &Id) -> Base<WAREHOUSE> { WAREHOUSE # {id} / A_RECORD }
    pub fn job(id: &Id) -> Base<JOB> { JOB # {id} / A_RECORD }
    pub fn region_listed(id: &Id) -> Gsi2<REGION> { REFERENCE # REGION / REGION # {id} }
    pub fn country_listed(id: &Id) -> Gsi2<COUNTRY> { REFERENCE # COUNTRY / COUNTRY # {id} }
    pub fn location_listed(id: &Id) -> Gsi2<LOCATION> { REFERENCE # LOCATION / LOCATION # {id} }
    pub fn department_listed(id: &Id) -> Gsi2<DEPARTMENT> {
        REFERENCE # DEPARTMENT / DEPARTMENT # {id}
    }
    pub fn warehouse_listed(id: &Id) -> Gsi2<WAREHOUSE> { REFERENCE # WAREHOUSE / WAREHOUSE # {id} }
    pub fn job_listed(id: &Id) -> Gsi2<JOB> { REFERENCE # JOB / JOB # {id} }

    /// The employee's own record.
    pub fn employee(employee: &Id) -> Base<EMPLOYEE> { EMPLOYEE # {employee} / A_RECORD }
    /// The employee's current-job edge.
    pub fn current_job(employee: &Id) -> Base<CURRENT_JOB> { EMPLOYEE # {employee} / # JOB }
    /// The employee's warehouse edge.
    pub fn employee_warehouse(employee: &Id, warehouse: &Id) -> Base<EMPLOYEE_WAREHOUSE> {
        EMPLOYEE # {employee} / # WAREHOUSE # {warehouse}
    }
    /// One job an employee held, by its start date.
    pub fn job_history(employee: &Id, start: Date, job: &Id) -> Base<JOB_HISTORY> {
        EMPLOYEE # {employee} / JOB_HISTORY # {start} # {job}
    }
    /// GSI1 of an employee (H2).
    pub fn employee_name_index(name: &Text, employee: &Id) -> Gsi1<EMPLOYEE> {
        EMPLOYEE_NAME # {name} / EMPLOYEE # {employee}
    }
    /// GSI1 of a job (H11, first step).
    pub fn job_title_index(title: &Text, job: &Id) -> Gsi1<JOB> {
        JOB_TITLE # {title} / JOB # {job}
    }
    /// GSI1 of a current-job edge (H11).
    pub fn job_holder_index(job: &Id, employee: &Id) -> Gsi1<CURRENT_JOB> {
        JOB # {job} / EMPLOYEE # {employee}
    }
    /// GSI1 of a warehouse edge (H7).
    pub fn warehouse_employee_index(warehouse: &Id, employee: &Id) -> Gsi1<EMPLOYEE_WAREHOUSE> {
        WAREHOUSE # {warehouse} / EMPLOYEE # {employee}
    }
    /// GSI2 of an employee, on its hires shard (H6).
    pub fn hire_index(employee: &Id, hired: Date) -> Gsi2<EMPLOYEE> {
        HIRED # {hire_shard(employee)} / {hired} # {employee}
    }
}

/// A reference record: `<TAG>#<id>`, `A`.
pub fn reference(kind: Reference, id: &Id) -> PrimaryKey {
    let key = match kind {
        Reference::Region => region,
        Reference::Country => country,
        Reference::Location => location,
        Reference::Department => department,
        Reference::Warehouse => warehouse,
        Reference::Job => job,
    };
    key(id)
}

/// GSI2 of a reference record: `REFERENCE#<TAG>`, `<TAG>#<id>` (the records of a kind, by id).
pub fn reference_list_index(kind: Reference, id: &Id) -> Gsi2Key {
    let key = match kind {
        Reference::Region => region_listed,
        Reference::Country => country_listed,
        Reference::Location => location_listed,
        Reference::Department => department_listed,
        Reference::Warehouse => warehouse_listed,
        Reference::Job => job_listed,
    };
    key(id)
}

fn references_pk(kind: Reference) -> String {
    Composite::new().lit(tag::REFERENCE).lit(kind.tag()).build()
}

/// The records of one kind, by id.
pub fn references(kind: Reference) -> KeyCondition<Gsi2> {
    KeyCondition::new(
        references_pk(kind),
        SortCondition::BeginsWith(Composite::new().lit(kind.tag()).build_delimited()),
    )
}

fn employee_pk(employee: &Id) -> String {
    Composite::new().lit(tag::EMPLOYEE).seg(employee).build()
}

/// The warehouse a warehouse edge's sort key names (`#WAREHOUSE#W1`: `W1`), the inverse of
/// [`employee_warehouse`]'s sort key; `None` for any other sort key.
pub fn warehouse_of_edge(sk: &str) -> Option<Id> {
    let prefix = Composite::new()
        .lit(tag::LEADING)
        .lit(tag::WAREHOUSE)
        .build_delimited();
    Id::parse("warehouseId", sk.strip_prefix(prefix.as_str())?).ok()
}

/// H1: the employee, its current job and its warehouse, never its job history: `SK <= A`
/// (the edges sort before `A`, the history after it).
pub fn employee_with_edges(employee: &Id) -> KeyCondition<Base> {
    KeyCondition::new(
        employee_pk(employee),
        SortCondition::AtMost(tag::A_RECORD.to_owned()),
    )
}

/// H3: the employee's job history (read backwards, newest start date first).
pub fn jobs_of(employee: &Id) -> KeyCondition<Base> {
    KeyCondition::new(
        employee_pk(employee),
        SortCondition::BeginsWith(Composite::new().lit(tag::JOB_HISTORY).build_delimited()),
    )
}

/// The employees listed in a GSI1 partition (their sort keys are `EMPLOYEE#<id>`).
fn employees_in(pk: String) -> KeyCondition<Gsi1> {
    KeyCondition::new(
        pk,
        SortCondition::BeginsWith(Composite::new().lit(tag::EMPLOYEE).build_delimited()),
    )
}

/// H2: employees by name (normalised: `john smith` finds `John  Smith`).
pub fn employees_named(name: &Text) -> KeyCondition<Gsi1> {
    employees_in(Composite::new().lit(tag::EMPLOYEE_NAME).seg(name).build())
}

fn job_title_pk(title: &Text) -> String {
    Composite::new().lit(tag::JOB_TITLE).seg(title).build()
}

/// H11, first step: the jobs with this title (normally one).
pub fn jobs_titled(title: &Text) -> KeyCondition<Gsi1> {
    KeyCondition::new(
        job_title_pk(title),
        SortCondition::BeginsWith(Composite::new().lit(tag::JOB).build_delimited()),
    )
}

fn job_holders_pk(job: &Id) -> String {
    Composite::new().lit(tag::JOB).seg(job).build()
}

/// H11, second step: the employees whose current job is this one.
pub fn job_holders(job: &Id) -> KeyCondition<Gsi1> {
    employees_in(job_holders_pk(job))
}

/// H7: the employees of a warehouse.
pub fn warehouse_employees(warehouse: &Id) -> KeyCondition<Gsi1> {
    employees_in(Composite::new().lit(tag::WAREHOUSE).seg(warehouse).build())
}

/// The hires shard of an employee: its id's code points, so a rewrite lands on the same shard.
pub fn hire_shard(employee: &Id) -> Shard {
    code_point_shard(employee.as_str(), HIRE_SHARDS)
}

fn hired_pk(shard: Shard) -> String {
    Composite::new().lit(tag::HIRED).seg(&shard).build()
}

/// H6, one shard: employees hired on `since` or later (read backwards: newest first).
pub fn hired_since(shard: Shard, since: Date) -> KeyCondition<Gsi2> {
    KeyCondition::new(
        hired_pk(shard),
        SortCondition::AtLeast(Composite::new().seg(&since).build_delimited()),
    )
}

/// This context's part of the registry's proof (`registry::tests`): every key its builders make
/// from one set of inputs, with its entity, and every read's key condition with the entities its decoder expects. Beside the declarations, so that a new key
/// shape or key condition and its line here are one change.
#[cfg(test)]
pub(crate) mod proof {
    use super::{types as ht, *};
    use crate::registry::proof::{Inputs, Made, Read, made as k, read as q};

    pub(crate) fn keys(i: &Inputs) -> Vec<Made> {
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        vec![
            k(ht::REGION, reference(Reference::Region, &i.a)),
            k(ht::COUNTRY, reference(Reference::Country, &i.a)),
            k(ht::LOCATION, reference(Reference::Location, &i.a)),
            k(ht::DEPARTMENT, reference(Reference::Department, &i.a)),
            k(ht::WAREHOUSE, reference(Reference::Warehouse, &i.a)),
            k(ht::JOB, reference(Reference::Job, &i.a)),
            k(ht::JOB, job_title_index(&i.course, &i.b)),
            k(ht::CURRENT_JOB, job_holder_index(&i.b, &i.a)),
            k(ht::EMPLOYEE, employee(&i.a)),
            k(ht::CURRENT_JOB, current_job(&i.a)),
            k(ht::EMPLOYEE_WAREHOUSE, employee_warehouse(&i.a, &i.b)),
            k(ht::JOB_HISTORY, job_history(&i.a, date, &i.b)),
            k(ht::EMPLOYEE, employee_name_index(&i.course, &i.a)),
            k(ht::EMPLOYEE_WAREHOUSE, warehouse_employee_index(&i.b, &i.a)),
            k(ht::EMPLOYEE, hire_index(&i.a, date)),
        ]
        .into_iter()
        .chain(Reference::ALL.map(|kind| k(types_of(kind)[0], reference_list_index(kind, &i.a))))
        .collect()
    }

    pub(crate) fn reads(i: &Inputs) -> Vec<Read> {
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        vec![
            q(
                "H1",
                employee_with_edges(&i.a),
                &[ht::EMPLOYEE, ht::CURRENT_JOB, ht::EMPLOYEE_WAREHOUSE],
            ),
            q("H2", employees_named(&i.course), &[ht::EMPLOYEE]),
            q("H3", jobs_of(&i.a), &[ht::JOB_HISTORY]),
            q(
                "H6",
                hired_since(
                    Shard::new(i.shard.number() % HIRE_SHARDS, HIRE_SHARDS).unwrap(),
                    date,
                ),
                &[ht::EMPLOYEE],
            ),
            q("H7", warehouse_employees(&i.b), &[ht::EMPLOYEE_WAREHOUSE]),
            q("H11 jobs", jobs_titled(&i.course), &[ht::JOB]),
            q("H11", job_holders(&i.b), &[ht::CURRENT_JOB]),
            q("H12", jobs_of(&i.a), &[ht::JOB_HISTORY]),
        ]
        .into_iter()
        .chain(Reference::ALL.map(|kind| q("reference list", references(kind), types_of(kind))))
        .collect()
    }

    /// The `Type` of each kind of reference record.
    fn types_of(kind: Reference) -> &'static [&'static str] {
        match kind {
            Reference::Region => &[ht::REGION],
            Reference::Country => &[ht::COUNTRY],
            Reference::Location => &[ht::LOCATION],
            Reference::Department => &[ht::DEPARTMENT],
            Reference::Warehouse => &[ht::WAREHOUSE],
            Reference::Job => &[ht::JOB],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Id {
        Id::parse("id", s).unwrap()
    }

    #[test]
    fn an_employee_partition_is_an_adjacency_list_read_without_its_history() {
        let e = id("E1");
        let date = Date::parse_iso("2024-02-01").unwrap();
        assert_eq!(employee(&e).pk(), "EMPLOYEE#E1");
        assert_eq!(employee(&e).sk(), "A");
        assert_eq!(current_job(&e).sk(), "#JOB");
        let w = Id::parse("w", "W1").unwrap();
        assert_eq!(warehouse_of_edge(employee_warehouse(&e, &w).sk()), Some(w));
        assert_eq!(warehouse_of_edge(current_job(&e).sk()), None);
        assert_eq!(employee_warehouse(&e, &id("W1")).sk(), "#WAREHOUSE#W1");
        assert_eq!(
            job_history(&e, date, &id("SA_REP")).sk(),
            "JH#2024/02/01#SA_REP"
        );
        let h1 = employee_with_edges(&e);
        for k in [
            employee(&e),
            current_job(&e),
            employee_warehouse(&e, &id("W1")),
        ] {
            assert!(h1.matches(&k), "H1 reads {k}");
        }
        assert!(!h1.matches(&job_history(&e, date, &id("SA_REP"))));
        let h3 = jobs_of(&e);
        assert!(h3.matches(&job_history(&e, date, &id("SA_REP"))));
        for k in [
            employee(&e),
            current_job(&e),
            employee_warehouse(&e, &id("W1")),
        ] {
            assert!(!h3.matches(&k), "H3 does not read {k}");
        }
    }

    #[test]
    fn names_and_titles_are_normalised_and_ids_are_whole() {
        let name = Text::parse("name", "John  Smith").unwrap();
        let k = employee_name_index(&name, &id("E1"));
        assert_eq!((k.pk(), k.sk()), ("EMPLOYEENAME#johnsmith", "EMPLOYEE#E1"));
        assert!(employees_named(&Text::parse("name", "john smith").unwrap()).matches(&k));
        let title = Text::parse("title", "Sales Rep").unwrap();
        let job = job_title_index(&title, &id("SA_REP"));
        assert_eq!((job.pk(), job.sk()), ("JOBTITLE#salesrep", "JOB#SA_REP"));
        assert!(jobs_titled(&title).matches(&job));
        let holder = job_holder_index(&id("SA_REP"), &id("E1"));
        assert_eq!((holder.pk(), holder.sk()), ("JOB#SA_REP", "EMPLOYEE#E1"));
        assert!(job_holders(&id("SA_REP")).matches(&holder));
        assert!(
            !job_holders(&id("SA")).matches(&holder),
            "SA never reaches SA_REP"
        );
        let listed = reference_list_index(Reference::Job, &id("SA_REP"));
        assert_eq!((listed.pk(), listed.sk()), ("REFERENCE#JOB", "JOB#SA_REP"));
        assert!(references(Reference::Job).matches(&listed));
        assert!(!references(Reference::Region).matches(&listed));
        let w = warehouse_employee_index(&id("W1"), &id("E1"));
        assert!(warehouse_employees(&id("W1")).matches(&w));
        assert!(
            !warehouse_employees(&id("W")).matches(&w),
            "W never reaches W1"
        );
    }

    #[test]
    fn hires_since_a_date_include_that_day_on_every_shard() {
        let e = id("E7");
        let day = Date::parse_iso("2025-06-30").unwrap();
        let k = hire_index(&e, day);
        assert_eq!(k.pk(), format!("HIRED#{}", hire_shard(&e).key()));
        assert_eq!(k.sk(), "2025/06/30#E7");
        assert!(hired_since(hire_shard(&e), day).matches(&k));
        let next = Date::parse_iso("2025-07-01").unwrap();
        assert!(!hired_since(hire_shard(&e), next).matches(&k));
        let shards: std::collections::BTreeSet<_> = (0..100)
            .map(|n| hire_shard(&id(&format!("E{n}"))).number())
            .collect();
        assert_eq!(shards.len(), HIRE_SHARDS as usize, "every shard used");
    }
}
