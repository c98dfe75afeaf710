//! Seed 000's one-to-many-to-many, built: "Customer to many appointments to many employees",
//! remodelled as the seed suggests, an appointment with one customer and many employees. Its keys
//! are the registry's (`keys::commerce::appointment` and the rest, in the registry's proof that no
//! two kinds of key can meet), its schedules in GSI1 partitions of their own (`CUSTOMERAPPTS#`,
//! `EMPLOYEEAPPTS#`: `CUSTOMER#` and `EMPLOYEE#` there are O9's and H2's). Booked and rescheduled
//! here with the transactions docs/seeds.md describes, on DynamoDB Local: a booking checks that
//! the customer and every employee exist and puts the appointment and its employee edges; a
//! reschedule moves the appointment and every edge in one transaction, on condition that it
//! still starts when the caller read it. No route serves them: the seed asks how to model them,
//! not for an API.

use aws_sdk_dynamodb::types::AttributeValue;
use keys::{Gsi1Key, Id, PrimaryKey, SortableId, Timestamp, attr, commerce as k, hr};
use model::Item;
use store::{Condition, StoreError, Table, Update};

const START: &str = "Start";

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn id(v: &str) -> Id {
    Id::parse("id", v).unwrap()
}

fn at(v: &str) -> Timestamp {
    Timestamp::parse(v).unwrap()
}

/// An item of `key`, of type `ty`, in GSI1 under `gsi1` if given, with `rest`.
fn item(key: PrimaryKey, ty: &str, gsi1: Option<Gsi1Key>, rest: &[(&str, AttributeValue)]) -> Item {
    let (pk, sk) = key.into_parts();
    let mut item: Item = [
        (attr::PK.to_owned(), s(&pk)),
        (attr::SK.to_owned(), s(&sk)),
        (model::attr::TYPE.to_owned(), s(ty)),
    ]
    .into();
    if let Some(g) = gsi1 {
        let (pk, sk) = g.into_parts();
        item.insert(attr::GSI1PK.to_owned(), s(&pk));
        item.insert(attr::GSI1SK.to_owned(), s(&sk));
    }
    for (name, value) in rest {
        item.insert((*name).to_owned(), value.clone());
    }
    item
}

/// Books `appointment` of `customer` with `employees` at `start`: one transaction, nothing
/// written unless the customer and every employee exist and the appointment does not.
async fn book(
    table: &Table,
    appointment: SortableId,
    customer: &Id,
    employees: &[Id],
    start: Timestamp,
) -> Result<(), StoreError> {
    let mut t = table.transaction();
    t.check(&k::customer(customer), Condition::Exists)?;
    for e in employees {
        t.check(&hr::employee(e), Condition::Exists)?;
    }
    let when = [(START, s(&start.to_string()))];
    t.put_item(
        item(
            k::appointment(appointment),
            k::types::APPOINTMENT,
            Some(k::customer_appointment_index(customer, start, appointment)),
            &[&when[..], &[("CustomerId", s(customer.as_str()))]].concat(),
        ),
        Some(Condition::Absent),
    )?;
    for e in employees {
        t.put_item(
            item(
                k::appointment_employee(appointment, e),
                k::types::APPOINTMENT_EMPLOYEE,
                Some(k::employee_appointment_index(e, start, appointment)),
                &when,
            ),
            Some(Condition::Absent),
        )?;
    }
    t.send().await
}

/// Moves `appointment` from `from` to `to`: the record and every employee edge, whose schedule
/// keys hold the start, in one transaction, if it still starts at `from`.
async fn reschedule(
    table: &Table,
    appointment: SortableId,
    customer: &Id,
    employees: &[Id],
    from: Timestamp,
    to: Timestamp,
) -> Result<(), StoreError> {
    let moved = |gsi1: Gsi1Key| {
        Update::default()
            .set(START, s(&to.to_string()))
            .set(attr::GSI1SK, s(gsi1.sk()))
    };
    let mut t = table.transaction();
    t.update(
        &k::appointment(appointment),
        &moved(k::customer_appointment_index(customer, to, appointment)),
        Some(Condition::Equals(START, s(&from.to_string()))),
    )?;
    for e in employees {
        t.update(
            &k::appointment_employee(appointment, e),
            &moved(k::employee_appointment_index(e, to, appointment)),
            Some(Condition::Equals(START, s(&from.to_string()))),
        )?;
    }
    t.send().await
}

/// The actions of a cancelled transaction whose condition failed.
fn refused(e: &StoreError) -> Vec<usize> {
    match e {
        StoreError::TransactionCanceled(reasons) => reasons
            .iter()
            .enumerate()
            .filter(|(_, r)| r.as_str() == "ConditionalCheckFailed")
            .map(|(i, _)| i)
            .collect(),
        other => panic!("not a cancelled transaction: {other:?}"),
    }
}

/// Every item `condition` selects, in DynamoDB's order.
async fn read<C: store::Selection>(table: &Table, condition: C) -> Vec<Item> {
    table.query(condition).send_all().await.unwrap().items
}

fn column(items: &[Item], name: &str) -> Vec<String> {
    items
        .iter()
        .map(|i| {
            i.get(name)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

#[tokio::test]
async fn an_appointment_is_booked_read_from_both_sides_and_rescheduled() {
    let table = devkit::scratch::table().await;
    let (ann, e7, e8, e9) = (id("123"), id("E7"), id("E8"), id("E9"));
    table
        .put_item(item(k::customer(&ann), "Customer", None, &[]), None)
        .await
        .unwrap();
    for e in [&e7, &e8] {
        table
            .put_item(item(hr::employee(e), "Employee", None, &[]), None)
            .await
            .unwrap();
    }
    let (nine, ten) = (
        at("2024-05-02T09:30:00.000Z"),
        at("2024-05-02T10:00:00.000Z"),
    );
    let day = |d: &str| {
        (
            at(&format!("{d}T00:00:00.000Z")),
            at(&format!("{d}T23:59:59.999Z")),
        )
    };
    let (a, b) = (
        SortableId::parse("01HVYJ3Z000000000000000000").unwrap(),
        SortableId::parse("01HVYJ3Z000000000000000001").unwrap(),
    );

    // An employee that does not exist: the booking is cancelled, nothing written.
    let e = book(&table, b, &ann, &[e7.clone(), e9.clone()], nine)
        .await
        .unwrap_err();
    assert_eq!(refused(&e), [2], "the third action, E9's check: {e:?}");
    let nothing = read(&table, k::appointment_and_employees(b)).await;
    assert!(nothing.is_empty());

    // Booked: the record and its two edges, one transaction.
    book(&table, a, &ann, &[e7.clone(), e8.clone()], nine)
        .await
        .unwrap();
    let whole = read(&table, k::appointment_and_employees(a)).await;
    assert_eq!(
        column(&whole, model::attr::TYPE),
        ["Appointment", "AppointmentEmployee", "AppointmentEmployee"],
        "the record first, then its employees"
    );
    // Booked twice: refused.
    let e = book(&table, a, &ann, std::slice::from_ref(&e7), nine)
        .await
        .unwrap_err();
    assert_eq!(
        refused(&e),
        [2, 3],
        "the appointment's put and its edge's: {e:?}"
    );

    // From the customer's side and each employee's, by the day.
    let (from, to) = day("2024-05-02");
    let mine = read(&table, k::customer_appointments(&ann, from, to)).await;
    assert_eq!(column(&mine, START), [nine.to_string()]);
    for e in [&e7, &e8] {
        let theirs = read(&table, k::employee_appointments(e, from, to)).await;
        assert_eq!(column(&theirs, START), [nine.to_string()], "{e:?}");
    }
    // The range ends where it says: the day before finds nothing.
    let (from_before, to_before) = day("2024-05-01");
    let before = read(
        &table,
        k::customer_appointments(&ann, from_before, to_before),
    )
    .await;
    assert!(before.is_empty());

    // Rescheduled to 10:00: every item moves in one transaction; from a stale start, refused.
    let e = reschedule(&table, a, &ann, &[e7.clone(), e8.clone()], ten, nine)
        .await
        .unwrap_err();
    assert_eq!(refused(&e), [0, 1, 2], "every item starts at 09:30: {e:?}");
    reschedule(&table, a, &ann, &[e7.clone(), e8.clone()], nine, ten)
        .await
        .unwrap();
    let at_nine = read(&table, k::customer_appointments(&ann, nine, nine)).await;
    assert!(at_nine.is_empty(), "nothing left at 09:30");
    for (side, query) in [
        ("the customer", k::customer_appointments(&ann, ten, ten)),
        ("E7", k::employee_appointments(&e7, ten, ten)),
        ("E8", k::employee_appointments(&e8, ten, ten)),
    ] {
        let found = read(&table, query).await;
        assert_eq!(column(&found, START), [ten.to_string()], "{side}");
    }
    // The appointment's own key never changed.
    let whole = read(&table, k::appointment_and_employees(a)).await;
    assert_eq!(column(&whole, START), vec![ten.to_string(); 3]);
}
