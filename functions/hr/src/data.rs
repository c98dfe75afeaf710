//! HR's reads and writes of the table (the HR half of AWS's relational example), shared by its
//! functions, the seed loader and the tests. The list reads (H2, H6, H7, H11, H12, the reference
//! lists) are declared in the function that serves them.
//!
//! A warehouse's name and a job's title live on their own records only: edges and job history
//! name them by id, and [`sources`] reads the records a page names in one BatchGetItem.
//!
//! An employee's partition is an adjacency list: the employee, its current-job and warehouse
//! edges, its job history. Every write to it goes through the employee item's `Revision` (the
//! write is conditioned on the revision it read, and bumps it), so two concurrent writers never
//! leave the edges out of step with the employee: the loser re-reads and tries again.
//!
//! `data`, not `store`: `store` is the mechanism crate this module is written with (`Table`,
//! transactions, paging); `data` is what this context keeps in the one table. Every context names
//! it so.

use std::collections::HashMap;

use keys::{
    Id, PrimaryKey,
    hr::{self as k, Reference},
};
use model::{
    Entity, from_item,
    hr::{CurrentJob, Employee, EmployeeWarehouse, Job, JobHistory, ReferenceRecord, Warehouse},
    n,
};

use store::{Condition, Read, StoreError, Table, Update, retry};

/// How many times a write that lost a race for the employee's revision is tried in all. A write
/// loses only when another one landed between its read and its own write, so of N writers at
/// once none needs more than N attempts, whatever the timing: ten writers of one employee all
/// land. Between attempts the losers back off, jittered ([`retry`]), so that they seldom need
/// that many. Past the budget the write is [`StoreError::Throttled`] (a 503 with `Retry-After`).
const ATTEMPTS: u32 = 10;

/// What a PUT did.
#[derive(Debug, Clone, PartialEq)]
pub enum Put<T> {
    Created(T),
    Replaced(T),
    /// A record it names (a parent, a warehouse, ...) does not exist; nothing written.
    Missing(Reference),
}

/// Writes a reference record (region, country, ...), its parent checked in the same
/// transaction. Created or replaced: the first attempt puts on `attribute_not_exists`; if the
/// record exists, a second replaces it.
pub async fn put_reference<R: ReferenceRecord>(
    table: &Table,
    record: &R,
) -> Result<Put<()>, StoreError> {
    for create in [true, false] {
        let mut tx = table.transaction();
        let parent = match (R::KIND.parent(), record.parent()) {
            (Some(kind), Some(id)) => {
                Some((kind, tx.check(&k::reference(kind, id), Condition::Exists)?))
            }
            _ => None,
        };
        let put = tx.put(record, create.then_some(Condition::Absent))?;
        match tx.send().await {
            Ok(()) if create => return Ok(Put::Created(())),
            Ok(()) => return Ok(Put::Replaced(())),
            Err(e) => {
                if let Some((kind, part)) = parent
                    && part.failed(&e)
                {
                    return Ok(Put::Missing(kind));
                }
                if !(create && put.failed(&e)) {
                    return Err(e);
                }
            }
        }
    }
    unreachable!("the second attempt replaces without a condition")
}

/// One reference record by id: one GetItem (eventually consistent).
pub async fn reference<R: ReferenceRecord>(
    table: &Table,
    id: &Id,
) -> Result<Option<R>, StoreError> {
    table.get(&k::reference(R::KIND, id), Read::Eventual).await
}

/// The jobs and warehouses that edges and job history name, by id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sources {
    pub jobs: HashMap<Id, Job>,
    pub warehouses: HashMap<Id, Warehouse>,
}

impl Sources {
    /// These jobs, and no warehouse.
    pub fn of_jobs(jobs: impl IntoIterator<Item = Job>) -> Sources {
        Sources {
            jobs: jobs.into_iter().map(|j| (j.job_id.clone(), j)).collect(),
            warehouses: HashMap::new(),
        }
    }

    /// A job's title, if the job exists.
    pub fn title(&self, job: &Id) -> Option<&str> {
        self.jobs.get(job).map(|j| j.title.as_str())
    }

    /// A warehouse's name, if it exists.
    pub fn warehouse_name(&self, warehouse: &Id) -> Option<&str> {
        self.warehouses.get(warehouse).map(|w| w.name.as_str())
    }
}

/// The jobs and warehouses named, in ONE BatchGetItem (none when nothing is named; at most 100
/// ids in all, as a page of 100 names at most 100 jobs).
pub async fn sources<'a>(
    table: &Table,
    jobs: impl IntoIterator<Item = &'a Id>,
    warehouses: impl IntoIterator<Item = &'a Id>,
) -> Result<Sources, StoreError> {
    let mut keys: Vec<PrimaryKey> = jobs
        .into_iter()
        .map(|j| k::reference(Reference::Job, j))
        .chain(
            warehouses
                .into_iter()
                .map(|w| k::reference(Reference::Warehouse, w)),
        )
        .collect();
    keys.sort_by(|a, b| (a.pk(), a.sk()).cmp(&(b.pk(), b.sk())));
    keys.dedup();
    let mut out = Sources::default();
    if keys.is_empty() {
        return Ok(out);
    }
    let attributes: Vec<&str> = [model::attr::TYPE]
        .into_iter()
        .chain(Job::ATTRIBUTES.iter().copied())
        .chain(Warehouse::ATTRIBUTES.iter().copied())
        .collect();
    for item in table.batch_get(&keys, &attributes, Read::Eventual).await? {
        match model::type_of(&item) {
            Some(Job::TYPE) => {
                let job: Job = from_item(item)?;
                out.jobs.insert(job.job_id.clone(), job);
            }
            Some(Warehouse::TYPE) => {
                let w: Warehouse = from_item(item)?;
                out.warehouses.insert(w.warehouse_id.clone(), w);
            }
            other => {
                return Err(StoreError::Corrupt(format!(
                    "a {other:?} where a job or warehouse was asked for"
                )));
            }
        }
    }
    Ok(out)
}

/// H1: an employee with its current job and warehouse.
#[derive(Debug, Clone, PartialEq)]
pub struct EmployeeView {
    pub employee: Employee,
    pub current_job: Option<CurrentJob>,
    pub warehouse: Option<EmployeeWarehouse>,
}

/// H1: ONE query of the employee's partition, `SK <= A`: the edges and the employee, never the
/// job history. `consistent` for a read a write then relies on.
pub async fn employee(
    table: &Table,
    id: &Id,
    consistent: bool,
) -> Result<Option<EmployeeView>, StoreError> {
    let query = table.query(k::employee_with_edges(id));
    let query = if consistent {
        query.consistent()
    } else {
        query
    };
    let (mut employee, mut current_job, mut warehouse) = (None, None, None);
    for item in query.send_all().await?.items {
        match model::type_of(&item) {
            Some(Employee::TYPE) => employee = Some(from_item(item)?),
            Some(CurrentJob::TYPE) => current_job = Some(from_item(item)?),
            Some(EmployeeWarehouse::TYPE) => warehouse = Some(from_item(item)?),
            other => {
                return Err(StoreError::Corrupt(format!(
                    "an item of type {other:?} in an employee's partition"
                )));
            }
        }
    }
    Ok(employee.map(|employee| EmployeeView {
        employee,
        current_job,
        warehouse,
    }))
}

/// H1 as shown: the employee's partition (one query, [`employee`]), then the records its edges
/// name, for their names (one BatchGetItem).
pub async fn employee_shown(
    table: &Table,
    id: &Id,
) -> Result<Option<(EmployeeView, Sources)>, StoreError> {
    let Some(view) = employee(table, id, false).await? else {
        return Ok(None);
    };
    let sources = sources(
        table,
        view.current_job.as_ref().map(|c| &c.job_id),
        view.warehouse.as_ref().map(|w| &w.warehouse_id),
    )
    .await?;
    Ok(Some((view, sources)))
}

/// H3: the employee's current job details: the newest job history entry, ONE query backwards
/// with `Limit = 1` (AWS's relational example: "SK starts with JH"), and its job (one GetItem),
/// for its title.
pub async fn current_job(
    table: &Table,
    id: &Id,
) -> Result<Option<(JobHistory, Option<Job>)>, StoreError> {
    let page = table
        .query(k::jobs_of(id))
        .backwards()
        .limit(1)
        .send()
        .await?;
    let Some(item) = page.items.into_iter().next() else {
        return Ok(None);
    };
    let history: JobHistory = from_item(item)?;
    let job = reference::<Job>(table, &history.job_id).await?;
    Ok(Some((history, job)))
}

/// The largest employee record or edge there can be (the employee, its current job, its
/// warehouse edge: the longest ids, the widest name, their keys): what pages of employees are read
/// within the read budget at. A test builds each and measures it.
pub const LARGEST_EMPLOYEE_BYTES: u32 = 2 * 1024;

/// The employee's own fields, as a PUT gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct EmployeeInput {
    pub employee_id: Id,
    pub name: keys::Name,
    pub hire_date: keys::Date,
    pub warehouse_id: Option<Id>,
}

/// Creates or replaces an employee, and keeps its edges in step in the same transaction: the
/// warehouse edge moves with `warehouseId` (the warehouse checked to exist), and a new name is
/// copied onto the current-job and warehouse edges.
pub async fn put_employee(
    table: &Table,
    input: &EmployeeInput,
) -> Result<Put<Employee>, StoreError> {
    let warehouse = match &input.warehouse_id {
        None => None,
        Some(w) => match table
            .get::<Warehouse>(&k::reference(Reference::Warehouse, w), store::Read::Strong)
            .await?
        {
            Some(w) => Some(w),
            None => return Ok(Put::Missing(Reference::Warehouse)),
        },
    };
    for attempt in 1..=ATTEMPTS {
        let view = employee(table, &input.employee_id, true).await?;
        let revision = view.as_ref().map_or(0, |v| v.employee.revision);
        let new = Employee {
            employee_id: input.employee_id.clone(),
            name: input.name.clone(),
            hire_date: input.hire_date,
            warehouse_id: input.warehouse_id.clone(),
            revision: next_revision(revision)?,
        };
        let mut tx = table.transaction();
        let own = tx.put(
            &new,
            Some(match &view {
                None => Condition::Absent,
                Some(_) => Condition::Equals(Employee::REVISION, n(revision)),
            }),
        )?;
        if let Some(old) = view.as_ref().and_then(|v| v.warehouse.as_ref())
            && Some(&old.warehouse_id) != input.warehouse_id.as_ref()
        {
            tx.delete(&old.key(), None)?;
        }
        let mut warehouse_check = None;
        if let Some(w) = &warehouse {
            warehouse_check = Some(tx.check(&w.key(), Condition::Exists)?);
            let edge = EmployeeWarehouse {
                employee_id: new.employee_id.clone(),
                employee_name: new.name.clone(),
                warehouse_id: w.warehouse_id.clone(),
            };
            tx.put(&edge, None)?;
        }
        if let Some(job) = view.as_ref().and_then(|v| v.current_job.as_ref())
            && job.employee_name != new.name
        {
            tx.put(&CurrentJob::of(&job.job(), &new.name), None)?;
        }
        match tx.send().await {
            Ok(()) if view.is_none() => return Ok(Put::Created(new)),
            Ok(()) => return Ok(Put::Replaced(new)),
            Err(e) if own.failed(&e) => lost_race(attempt).await,
            Err(e) if warehouse_check.is_some_and(|p| p.failed(&e)) => {
                return Ok(Put::Missing(Reference::Warehouse));
            }
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Throttled(
        "the employee was written by others on every attempt".into(),
    ))
}

/// What adding a job did.
#[derive(Debug, Clone, PartialEq)]
pub enum JobAdded {
    /// Added; `current` when it is now the employee's current job (the newest start date).
    Added {
        current: bool,
        /// The job as it was read (its title).
        job: Job,
    },
    EmployeeNotFound,
    /// No job of this id (`PUT /jobs/{jobId}` creates one).
    JobNotFound,
    DepartmentNotFound,
    /// The employee has this job from this date already.
    Exists,
}

/// Adds a job to an employee's history, in ONE transaction with: the employee's revision bumped
/// (on condition that it is what was read), the job and the department checked to exist, and the
/// current-job edge moved when the new job is the newest (H11 then finds the employee under the
/// new job only). The job is read once (one GetItem) for its title, which the history does not
/// copy.
pub async fn add_job(table: &Table, job: &JobHistory) -> Result<JobAdded, StoreError> {
    let mut record: Option<Job> = None;
    for attempt in 1..=ATTEMPTS {
        let Some(view) = employee(table, &job.employee_id, true).await? else {
            return Ok(JobAdded::EmployeeNotFound);
        };
        if record.is_none() {
            record = table
                .get::<Job>(&k::reference(Reference::Job, &job.job_id), Read::Strong)
                .await?;
        }
        let Some(record) = record.clone() else {
            return Ok(JobAdded::JobNotFound);
        };
        let revision = view.employee.revision;
        let mut tx = table.transaction();
        let own = tx.update(
            &view.employee.key(),
            &Update::new().set(Employee::REVISION, n(next_revision(revision)?)),
            Some(Condition::Equals(Employee::REVISION, n(revision))),
        )?;
        let job_check = tx.check(&record.key(), Condition::Exists)?;
        let department = tx.check(
            &k::reference(Reference::Department, &job.department_id),
            Condition::Exists,
        )?;
        let history = tx.put(job, Some(Condition::Absent))?;
        let current = view
            .current_job
            .as_ref()
            .is_none_or(|c| job.is_newer_than(&c.job()));
        if current {
            tx.put(&CurrentJob::of(job, &view.employee.name), None)?;
        }
        match tx.send().await {
            Ok(()) => {
                return Ok(JobAdded::Added {
                    current,
                    job: record,
                });
            }
            Err(e) if own.failed(&e) => lost_race(attempt).await,
            Err(e) if job_check.failed(&e) => return Ok(JobAdded::JobNotFound),
            Err(e) if department.failed(&e) => return Ok(JobAdded::DepartmentNotFound),
            Err(e) if history.failed(&e) => return Ok(JobAdded::Exists),
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Throttled(
        "the employee was written by others on every attempt".into(),
    ))
}

/// The revision after `revision`, read from the table: one at the end of `u64` is corrupt (a
/// 500, nothing written), neither wrapped to 0 nor a panic.
fn next_revision(revision: u64) -> Result<u64, StoreError> {
    revision
        .checked_add(1)
        .ok_or_else(|| StoreError::Corrupt(format!("employee revision {revision} cannot grow")))
}

/// After attempt `attempt` lost the race for the employee's revision: the backoff before the
/// next one, if the budget leaves one.
async fn lost_race(attempt: u32) {
    if attempt < ATTEMPTS {
        retry::sleep(attempt).await;
    }
}

#[cfg(test)]
mod tests {
    //! Lost races replayed with the SDK's mocking (aws-smithy-mocks): the employee's partition and
    //! the job are read from rules, and the transaction is cancelled on the revision's condition as
    //! many times as a test says, as if that many other writers had landed first.
    use aws_sdk_dynamodb::{
        Client,
        operation::{
            get_item::GetItemOutput, query::QueryOutput,
            transact_write_items::TransactWriteItemsOutput,
        },
    };
    use aws_smithy_mocks::{Rule, RuleMode, mock, mock_client};
    use keys::{Date, Name};

    use super::*;
    use testkit::cancelled;

    fn id(s: &str) -> Id {
        Id::parse("id", s).unwrap()
    }

    /// The employee, a job of its history, its current job and its warehouse edge, each with
    /// 64-character ids and a name of `MAX_TEXT_LEN` characters of 4 bytes, are at most
    /// `LARGEST_EMPLOYEE_BYTES`, the largest within 1 KB of it.
    #[test]
    fn the_largest_employee_items_are_within_their_bound() {
        let long = |c: &str| id(&c.repeat(keys::MAX_ID_LEN));
        let name = Name::parse("name", &api::function::widest_text(keys::MAX_TEXT_LEN)).unwrap();
        let date = Date::parse_iso("2024-01-15").unwrap();
        let employee = Employee {
            employee_id: long("e"),
            name: name.clone(),
            hire_date: date,
            warehouse_id: Some(long("w")),
            revision: u64::MAX,
        };
        let job = JobHistory {
            employee_id: long("e"),
            job_id: long("j"),
            department_id: long("d"),
            start_date: date,
        };
        let edge = EmployeeWarehouse {
            employee_id: long("e"),
            employee_name: name.clone(),
            warehouse_id: long("w"),
        };
        let sizes = [
            testkit::item_size(&model::to_item(&employee).unwrap()),
            testkit::item_size(&model::to_item(&job).unwrap()),
            testkit::item_size(&model::to_item(&CurrentJob::of(&job, &name)).unwrap()),
            testkit::item_size(&model::to_item(&edge).unwrap()),
        ];
        let largest = LARGEST_EMPLOYEE_BYTES as usize;
        let most = sizes.iter().max().copied().unwrap();
        assert!(most <= largest && most + 1024 > largest, "{sizes:?}");
    }

    fn employee_read() -> Rule {
        mock!(Client::query).then_output(|| {
            let employee = Employee {
                employee_id: id("E1"),
                name: Name::parse("name", "Ada Lovelace").unwrap(),
                hire_date: Date::parse_iso("2024-01-15").unwrap(),
                warehouse_id: None,
                revision: 1,
            };
            QueryOutput::builder()
                .items(model::to_item(&employee).unwrap())
                .count(1)
                .build()
        })
    }

    fn job_read() -> Rule {
        mock!(Client::get_item).then_output(|| {
            let job = Job {
                job_id: id("J1"),
                title: Name::parse("title", "Engineer").unwrap(),
            };
            GetItemOutput::builder()
                .set_item(Some(model::to_item(&job).unwrap()))
                .build()
        })
    }

    /// The transaction fails on the employee's revision (its first part) `lost` times, then
    /// goes through.
    fn transaction_losing(lost: usize) -> Rule {
        mock!(Client::transact_write_items)
            .sequence()
            .error(|| cancelled(&["ConditionalCheckFailed", "None", "None", "None", "None"]))
            .times(lost)
            .output(|| TransactWriteItemsOutput::builder().build())
            .build()
    }

    async fn add_job_losing(lost: usize) -> (Result<JobAdded, StoreError>, usize) {
        let (employee, job, transaction) = (employee_read(), job_read(), transaction_losing(lost));
        let table = Table::new(
            mock_client!(
                aws_sdk_dynamodb,
                RuleMode::MatchAny,
                [&employee, &job, &transaction]
            ),
            "t",
        );
        let history = JobHistory {
            employee_id: id("E1"),
            job_id: id("J1"),
            department_id: id("D1"),
            start_date: Date::parse_iso("2025-01-01").unwrap(),
        };
        let result = add_job(&table, &history).await;
        (result, transaction.num_calls())
    }

    /// How many writers of one employee at once must all land, whatever the timing.
    const WRITERS: usize = 10;

    /// A writer loses only when another one landed between its read and its write, so among
    /// [`WRITERS`] writers of one employee, one loses at most `WRITERS - 1` times: it still lands.
    #[tokio::test]
    async fn a_write_that_lost_to_every_other_concurrent_writer_still_lands() {
        let (result, sent) = add_job_losing(WRITERS - 1).await;
        assert!(matches!(result, Ok(JobAdded::Added { .. })), "{result:?}");
        assert_eq!(sent, WRITERS);
    }

    /// More writers than that: the budget ends, and the caller (a 503 with Retry-After) retries.
    #[tokio::test]
    async fn a_write_that_keeps_losing_ends_throttled_after_its_attempts() {
        let (result, sent) = add_job_losing(ATTEMPTS as usize).await;
        assert!(
            matches!(result, Err(StoreError::Throttled(_))),
            "{result:?}"
        );
        assert_eq!(sent, ATTEMPTS as usize);
    }
}
