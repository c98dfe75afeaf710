//! `make reconcile`'s check of HR's denormalised copies, and their correction.
//!
//! HR copies one thing: an employee's name onto its current-job edge (`#JOB`) and its warehouse
//! edge (`#WAREHOUSE#<warehouseId>`), so H7 and H11 list names without reading each employee. The
//! employee's writes keep both in step in the same transaction; this check proves it, item by
//! item: every edge's `EmployeeName` is its employee's `Name`.
//!
//! A warehouse's name and a job's title are copied nowhere (readers take them from the warehouse
//! or the job), so an edge that still carries one (`WarehouseName`, `Title`: written before jobs
//! were entities) holds a copy nothing keeps true, and a current-job edge must stand in GSI1 under
//! its job (`JOB#<jobId>` / `EMPLOYEE#<id>`), not under a title as it once did. The check names
//! those too, and the correction removes them or moves the edge's keys, which is how a table
//! written by older code is brought in step (`make reconcile REPAIR=1`).
//!
//! A value is named `employee <employeeId> <edge sort key> <attribute>`; an attribute that should
//! be absent is expected as [`ABSENT`]. The names are held per employee while the table is read
//! (one name each, and one entry per edge), not the items.

use std::collections::HashMap;

use keys::{Id, PrimaryKey, attr as key_attr, hr as k};
use model::{
    Entity, Item,
    hr::{CurrentJob, Employee, EmployeeWarehouse},
    s,
};
use store::{Condition, StoreError, Table, Update};

use crate::reconcile::values::Values;

/// How an attribute that should not be there is shown.
pub const ABSENT: &str = "(absent)";

/// The first word of every value this check names.
const EMPLOYEE: &str = "employee";

/// Copies that stopped being kept: no copy of a source's name may stand on an edge.
const UNKEPT: [&str; 2] = ["Title", "WarehouseName"];

/// One edge as read.
struct Edge {
    employee: String,
    sk: String,
    copied_name: String,
}

/// What a read of the table learns about the copies, folded in item by item.
#[derive(Default)]
pub struct Copies {
    /// Each employee's name, by id.
    names: HashMap<String, String>,
    edges: Vec<Edge>,
    /// The checks an edge answers alone (its keys, unkept copies).
    expected: Values,
    stored: Values,
}

fn text<'a>(item: &'a Item, attr: &str) -> Option<&'a str> {
    item.get(attr)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

fn name(employee: &str, sk: &str, attr: &str) -> String {
    format!("{EMPLOYEE} {employee} {sk} {attr}")
}

impl Copies {
    /// Takes in one item of the table.
    pub fn read(&mut self, item: &Item) {
        let ty = model::type_of(item);
        if ty == Some(Employee::TYPE) {
            if let (Some(id), Some(name)) = (
                text(item, Employee::EMPLOYEE_ID),
                text(item, Employee::NAME),
            ) {
                self.names.insert(id.to_owned(), name.to_owned());
            }
            return;
        }
        if ty != Some(CurrentJob::TYPE) && ty != Some(EmployeeWarehouse::TYPE) {
            return;
        }
        let employee = text(item, CurrentJob::EMPLOYEE_ID).unwrap_or_default();
        let sk = text(item, key_attr::SK).unwrap_or_default();
        self.edges.push(Edge {
            employee: employee.to_owned(),
            sk: sk.to_owned(),
            copied_name: text(item, CurrentJob::EMPLOYEE_NAME)
                .unwrap_or(ABSENT)
                .to_owned(),
        });
        for attr in UNKEPT {
            let at = name(employee, sk, attr);
            self.expected.insert(at.clone(), ABSENT.to_owned());
            self.stored
                .insert(at, text(item, attr).unwrap_or(ABSENT).to_owned());
        }
        // A current-job edge stands in GSI1 under its job.
        if ty == Some(CurrentJob::TYPE) {
            let ids = (
                text(item, CurrentJob::JOB_ID).map(|j| Id::parse("jobId", j)),
                Id::parse("employeeId", employee),
            );
            if let (Some(Ok(job)), Ok(employee_id)) = ids {
                let key = k::job_holder_index(&job, &employee_id);
                for (attr, want) in [(key_attr::GSI1PK, key.pk()), (key_attr::GSI1SK, key.sk())] {
                    let at = name(employee, sk, attr);
                    self.expected.insert(at.clone(), want.to_owned());
                    self.stored
                        .insert(at, text(item, attr).unwrap_or(ABSENT).to_owned());
                }
            }
        }
    }

    /// Expected and stored values of every copy, once every item is read.
    pub fn finish(mut self) -> (Values, Values) {
        for edge in self.edges {
            let at = name(&edge.employee, &edge.sk, CurrentJob::EMPLOYEE_NAME);
            let want = self
                .names
                .get(&edge.employee)
                .map_or(ABSENT, String::as_str);
            self.expected.insert(at.clone(), want.to_owned());
            self.stored.insert(at, edge.copied_name);
        }
        (self.expected, self.stored)
    }
}

/// Whether `name` is a value this check names.
pub fn owns(name: &str) -> bool {
    name.split(' ').next() == Some(EMPLOYEE)
}

/// Writes one correction: `want` where `have` was read; `false` when the edge changed since
/// (nothing written).
pub async fn correct(
    table: &Table,
    name: &str,
    want: &str,
    have: &str,
) -> Result<bool, StoreError> {
    let bad = |what: &str| StoreError::Corrupt(format!("{name}: {what}"));
    let [EMPLOYEE, employee, sk, attr] = name.split(' ').collect::<Vec<_>>()[..] else {
        return Err(bad("not a copy's name"));
    };
    let employee = Id::parse("employeeId", employee).map_err(|_| bad("no employee id"))?;
    let key: PrimaryKey = match k::warehouse_of_edge(sk) {
        Some(warehouse) => k::employee_warehouse(&employee, &warehouse),
        None if sk == k::current_job(&employee).sk() => k::current_job(&employee),
        None => return Err(bad("not an edge")),
    };
    let attr = [
        CurrentJob::EMPLOYEE_NAME,
        key_attr::GSI1PK,
        key_attr::GSI1SK,
        UNKEPT[0],
        UNKEPT[1],
    ]
    .into_iter()
    .find(|a| *a == attr)
    .ok_or_else(|| bad("not a copy this check keeps"))?;
    if want == ABSENT && attr == CurrentJob::EMPLOYEE_NAME {
        return Err(bad(
            "its employee does not exist: remove or rewrite the edge by hand",
        ));
    }
    let update = if want == ABSENT {
        Update::new().remove(attr)
    } else {
        Update::new().set(attr, s(want))
    };
    let as_read = if have == ABSENT {
        Condition::AttributeAbsent(attr)
    } else {
        Condition::Equals(attr, s(have))
    };
    match table
        .update(&key, &update, Some(Condition::Exists.and(as_read)))
        .await
    {
        Ok(_) => Ok(true),
        Err(StoreError::ConditionFailed) => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::compare;

    async fn check(table: &Table) -> Vec<(String, String, String)> {
        let mut copies = Copies::default();
        for item in devkit::all_items(table).await {
            copies.read(&item);
        }
        let (expected, stored) = copies.finish();
        compare(&expected, &stored).drift
    }

    fn edge(pk: &str, sk: &str) -> PrimaryKey {
        let employee = Id::parse("id", pk.trim_start_matches("EMPLOYEE#")).unwrap();
        match sk.strip_prefix("#WAREHOUSE#") {
            Some(w) => k::employee_warehouse(&employee, &Id::parse("id", w).unwrap()),
            None => k::current_job(&employee),
        }
    }

    #[tokio::test]
    async fn the_seeds_and_the_org_write_every_copy_true() {
        let table = devkit::table().await;
        crate::seed::load(&table).await.unwrap();
        crate::org::load_with(&table, 0).await.unwrap();
        let mut copies = Copies::default();
        let items = devkit::all_items(&table).await;
        for item in &items {
            copies.read(item);
        }
        let (expected, stored) = copies.finish();
        let edges = items
            .iter()
            .filter(|i| model::type_of(i) == Some(CurrentJob::TYPE))
            .count();
        assert!(edges >= 30, "every employee has a current job: {edges}");
        assert!(
            expected.len() >= 4 * edges,
            "{} values checked",
            expected.len()
        );
        assert_eq!(compare(&expected, &stored).drift, []);
    }

    #[tokio::test]
    async fn every_drifted_copy_is_named_and_corrected_and_a_true_table_has_none() {
        let table = devkit::table().await;
        hr::fixtures::org(&table).await;
        hr::fixtures::employee(&table, "E1", "Ada Lovelace").await;
        hr::fixtures::employee(&table, "E2", "Alan Turing").await;
        hr::fixtures::add_job(&table, "E1", "REP", "2025-01-01").await;
        hr::fixtures::add_job(&table, "E2", "REP", "2025-01-01").await;
        assert_eq!(
            check(&table).await,
            [],
            "the employees' own writes keep the copies"
        );

        // Drift as a faulty writer, or older code, leaves it: E1's warehouse edge names her as she
        // was; E2's current-job edge still copies a title and stands under it in GSI1.
        let w = edge("EMPLOYEE#E1", "#WAREHOUSE#W1");
        let stale = Update::new().set(EmployeeWarehouse::EMPLOYEE_NAME, s("Ada Byron"));
        table.update(&w, &stale, None).await.unwrap();
        let j = edge("EMPLOYEE#E2", "#JOB");
        let old = Update::new()
            .set("Title", s("Sales Rep"))
            .set(key_attr::GSI1PK, s("JOBTITLE#salesrep"));
        table.update(&j, &old, None).await.unwrap();
        let mut drift = check(&table).await;
        drift.sort();
        // `make reconcile` reports them among the drift.
        let reported = crate::reconcile::run(&table).await.unwrap().drift;
        for d in &drift {
            assert!(reported.contains(d), "{d:?} not in {reported:?}");
        }
        let row =
            |n: &str, want: &str, have: &str| (n.to_owned(), want.to_owned(), have.to_owned());
        assert_eq!(
            drift,
            [
                row(
                    "employee E1 #WAREHOUSE#W1 EmployeeName",
                    "Ada Lovelace",
                    "Ada Byron"
                ),
                row("employee E2 #JOB GSI1PK", "JOB#REP", "JOBTITLE#salesrep"),
                row("employee E2 #JOB Title", ABSENT, "Sales Rep"),
            ]
        );

        // A correction is conditioned on the value it read: a stale one writes nothing.
        let (n, want, _) = &drift[0];
        assert!(!correct(&table, n, want, "Ada King").await.unwrap());
        for (n, want, have) in &drift {
            assert!(owns(n));
            assert!(correct(&table, n, want, have).await.unwrap(), "{n}");
        }
        assert_eq!(check(&table).await, []);
        // H11's partition finds E2 again under the job.
        let held = table
            .query(k::job_holders(&Id::parse("id", "REP").unwrap()))
            .send()
            .await;
        assert_eq!(held.unwrap().items.len(), 2);
    }
}
