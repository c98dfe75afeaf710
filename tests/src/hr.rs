//! `store::hr` against DynamoDB Local: reference data with parents checked in the same
//! transaction, and an employee's adjacency list kept in step by every write (promotions,
//! renames, warehouse moves, concurrent writers).

use ::hr::data::{self as hr, EmployeeInput, JobAdded, Put};
use keys::{Date, Id, Name, hr::Reference};
use model::hr::{CurrentJob, Employee, Job, JobHistory, Location, Region};
use store::Table;

fn id(s: &str) -> Id {
    Id::parse("id", s).unwrap()
}

fn date(s: &str) -> Date {
    Date::parse_iso(s).unwrap()
}

fn job(employee: &str, job: &str, start: &str) -> JobHistory {
    JobHistory {
        employee_id: id(employee),
        job_id: id(job),
        department_id: id("D1"),
        start_date: date(start),
    }
}

/// The jobs (written), each with its title.
async fn jobs(table: &Table, jobs: &[(&str, &str)]) {
    for (job, title) in jobs {
        let record = Job {
            job_id: id(job),
            title: Name::parse("title", title).unwrap(),
        };
        hr::put_reference(table, &record).await.unwrap();
    }
}

fn added(current: bool) -> impl Fn(&JobAdded) -> bool {
    move |a| matches!(a, JobAdded::Added { current: c, .. } if *c == current)
}

fn employee(name: &str, warehouse: Option<&str>) -> EmployeeInput {
    EmployeeInput {
        employee_id: id("E1"),
        name: Name::parse("name", name).unwrap(),
        hire_date: date("2024-01-15"),
        warehouse_id: warehouse.map(id),
    }
}

/// Employee ids in a GSI1 partition.
async fn listed(table: &Table, condition: keys::KeyCondition<keys::Gsi1>) -> Vec<String> {
    table
        .query(condition)
        .send()
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|i| i["EmployeeId"].as_s().unwrap().clone())
        .collect()
}

#[tokio::test]
async fn a_reference_record_needs_its_parent_and_is_created_then_replaced() {
    let table = testkit::table().await;
    let orphan = Location {
        location_id: id("L9"),
        name: "Nowhere".into(),
        country_id: id("XX"),
    };
    assert_eq!(
        hr::put_reference(&table, &orphan).await.unwrap(),
        Put::Missing(Reference::Country)
    );
    assert!(
        testkit::all_items(&table).await.is_empty(),
        "nothing written"
    );
    ::hr::fixtures::org(&table).await;
    let renamed = Region {
        region_id: id("EU"),
        name: "Europa".into(),
    };
    assert_eq!(
        hr::put_reference(&table, &renamed).await.unwrap(),
        Put::Replaced(())
    );
    let read: Region = table
        .get(&model::Entity::key(&renamed), store::Read::Strong)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.name, "Europa");
}

#[tokio::test]
async fn an_employees_partition_follows_promotions_renames_and_moves() {
    let table = testkit::table().await;
    ::hr::fixtures::org(&table).await;
    jobs(
        &table,
        &[
            ("CLERK", "Sales Clerk"),
            ("REP", "Sales Rep"),
            ("INTERN", "Intern"),
            ("CFO", "CFO"),
        ],
    )
    .await;
    assert_eq!(
        hr::put_employee(&table, &employee("Ada Lovelace", Some("W9")))
            .await
            .unwrap(),
        Put::Missing(Reference::Warehouse)
    );
    assert!(matches!(
        hr::put_employee(&table, &employee("Ada Lovelace", Some("W1")))
            .await
            .unwrap(),
        Put::Created(_)
    ));
    let a = hr::add_job(&table, &job("E1", "CLERK", "2024-01-15"))
        .await
        .unwrap();
    assert!(added(true)(&a), "{a:?}");
    let a = hr::add_job(&table, &job("E1", "REP", "2025-03-01"))
        .await
        .unwrap();
    assert!(added(true)(&a), "{a:?}");
    // History filled in later: older than the current job, so it stays current.
    let a = hr::add_job(&table, &job("E1", "INTERN", "2023-06-01"))
        .await
        .unwrap();
    assert!(added(false)(&a), "{a:?}");
    assert_eq!(
        hr::add_job(&table, &job("E1", "REP", "2025-03-01"))
            .await
            .unwrap(),
        JobAdded::Exists
    );
    assert_eq!(
        hr::add_job(&table, &job("E1", "NOPE", "2026-01-01"))
            .await
            .unwrap(),
        JobAdded::JobNotFound,
        "a job no PUT /jobs made"
    );
    let mut other_department = job("E1", "CFO", "2026-01-01");
    other_department.department_id = id("D9");
    assert_eq!(
        hr::add_job(&table, &other_department).await.unwrap(),
        JobAdded::DepartmentNotFound
    );
    assert_eq!(
        hr::add_job(&table, &job("E2", "REP", "2025-03-01"))
            .await
            .unwrap(),
        JobAdded::EmployeeNotFound
    );

    // H1: one query, the employee and its two edges, never the history.
    table.meter().reset();
    let view = hr::employee(&table, &id("E1"), false)
        .await
        .unwrap()
        .unwrap();
    let requests = table.meter().requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].items, 3, "employee, current job, warehouse");
    assert_eq!(view.current_job.as_ref().unwrap().job_id, id("REP"));
    assert_eq!(view.warehouse.as_ref().unwrap().warehouse_id, id("W1"));
    // H3: the newest history entry, one item read, then its job.
    table.meter().reset();
    let (current, record) = hr::current_job(&table, &id("E1")).await.unwrap().unwrap();
    assert_eq!(current.job_id, id("REP"));
    assert_eq!(record.unwrap().title.as_str(), "Sales Rep");
    assert_eq!(table.meter().requests()[0].items, 1);
    // H11: the promotion moved the employee from one job to the other.
    let held = |j: &str| keys::hr::job_holders(&id(j));
    assert_eq!(listed(&table, held("REP")).await, ["E1"]);
    assert!(listed(&table, held("CLERK")).await.is_empty());
    assert!(listed(&table, held("INTERN")).await.is_empty());

    // A rename is copied onto both edges; a move takes the warehouse edge along.
    assert!(matches!(
        hr::put_employee(&table, &employee("Ada King", Some("W2")))
            .await
            .unwrap(),
        Put::Replaced(Employee { revision: 5, .. })
    ));
    let view = hr::employee(&table, &id("E1"), false)
        .await
        .unwrap()
        .unwrap();
    let renamed = Name::parse("n", "Ada King").unwrap();
    assert_eq!(view.current_job.unwrap().employee_name, renamed);
    let edge = view.warehouse.unwrap();
    assert_eq!((edge.employee_name, edge.warehouse_id), (renamed, id("W2")));
    let h7 = |w: &str| keys::hr::warehouse_employees(&id(w));
    assert!(listed(&table, h7("W1")).await.is_empty(), "moved out of W1");
    assert_eq!(listed(&table, h7("W2")).await, ["E1"]);
    let named = |n: &str| keys::hr::employees_named(&Name::parse("n", n).unwrap().key());
    assert_eq!(listed(&table, named("ada king")).await, ["E1"]);
    assert!(listed(&table, named("Ada Lovelace")).await.is_empty());

    // Leaving the warehouses removes the edge.
    hr::put_employee(&table, &employee("Ada King", None))
        .await
        .unwrap();
    let view = hr::employee(&table, &id("E1"), false)
        .await
        .unwrap()
        .unwrap();
    assert!(view.warehouse.is_none());
    assert!(listed(&table, h7("W2")).await.is_empty());
}

/// Writers racing on one employee: every job lands, the current-job edge is the newest of them
/// all, and the revision counts every write. Ten at once, as many as the store's retries cover
/// whatever the timing (a writer loses only to one that landed in the meantime).
#[tokio::test]
async fn concurrent_jobs_all_land_and_the_newest_is_current() {
    const WRITERS: u32 = 10;
    let table = testkit::table().await;
    ::hr::fixtures::org(&table).await;
    hr::put_employee(&table, &employee("Ada Lovelace", None))
        .await
        .unwrap();
    for m in 1..=WRITERS {
        jobs(&table, &[(&format!("J{m}"), &format!("Title {m}"))]).await;
    }
    let jobs: Vec<JobHistory> = (1..=WRITERS)
        .map(|m| job("E1", &format!("J{m}"), &format!("2025-{m:02}-01")))
        .collect();
    table.meter().reset();
    let results = futures::future::join_all(jobs.iter().map(|j| hr::add_job(&table, j))).await;
    for r in results {
        assert!(matches!(r, Ok(JobAdded::Added { .. })), "{r:?}");
    }
    let view = hr::employee(&table, &id("E1"), true)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(view.employee.revision, 1 + u64::from(WRITERS));
    let current: CurrentJob = view.current_job.unwrap();
    assert_eq!(current.job_id, id(&format!("J{WRITERS}")));
    let titles: usize = futures::future::join_all((1..=WRITERS).map(|m| {
        let j = id(&format!("J{m}"));
        let table = table.clone();
        async move { listed(&table, keys::hr::job_holders(&j)).await.len() }
    }))
    .await
    .into_iter()
    .sum();
    assert_eq!(titles, 1, "one current job");
    let sent = table
        .meter()
        .requests()
        .iter()
        .filter(|r| r.operation == "TransactWriteItems")
        .count();
    eprintln!("{WRITERS} writers: {sent} transactions sent");
}

/// A revision read back at the end of `u64` (written by hand) cannot grow: both writes that bump
/// it answer a corrupt item (a 500, nothing written), neither panicking nor wrapping it to 0.
#[tokio::test]
async fn a_revision_at_the_end_of_u64_is_corrupt_never_wrapped() {
    let table = testkit::table().await;
    ::hr::fixtures::org(&table).await;
    hr::put_employee(&table, &employee("Ada Lovelace", None))
        .await
        .unwrap();
    jobs(&table, &[("J1", "Title 1")]).await;
    let key = keys::hr::employee(&id("E1"));
    let mut item = table
        .get_item(&key, store::Read::Strong, None)
        .await
        .unwrap()
        .unwrap();
    let end = store::aws_sdk_dynamodb::types::AttributeValue::N(u64::MAX.to_string());
    item.insert(Employee::REVISION.into(), end);
    table.put_item(item, None).await.unwrap();
    let before = testkit::all_items(&table).await;
    let put = hr::put_employee(&table, &employee("Ada King", None)).await;
    assert!(matches!(put, Err(store::StoreError::Corrupt(_))), "{put:?}");
    let add = hr::add_job(&table, &job("E1", "J1", "2025-01-01")).await;
    assert!(matches!(add, Err(store::StoreError::Corrupt(_))), "{add:?}");
    assert_eq!(testkit::all_items(&table).await, before, "nothing written");
}
