//! Worked designs on paper: key designs that docs/seeds.md describes but this table does not
//! implement, built with the keys crate's public builders, with the key strings and sort orders
//! each of their queries relies on asserted. No DynamoDB: `SortCondition::matches` selects a sort
//! key as DynamoDB's key condition does, and a partition's items come back in the byte order of
//! their sort keys (ascending forwards, descending with `ScanIndexForward = false`).
//!
//! 1. Seed 000's open question, "Customer to many appointments to many employees", remodelled as
//!    the seed suggests: an appointment has one customer and many employees.
//! 2. Seed 003's second sharding variant: the GSI2 shard hashed from an attribute the reader
//!    knows (the customer id), beside this project's shard hashed from the order id.

use keys::{
    Composite, Id, SortCondition, SortableId, Timestamp, code_point_shard,
    commerce::{OrderStatus, order_status_index, order_status_shard},
};

fn id(s: &str) -> Id {
    Id::parse("id", s).expect("a valid id")
}

fn at(s: &str) -> Timestamp {
    Timestamp::parse(s).expect("a fixed-width UTC timestamp")
}

/// The items of one partition in the order a Query returns them forwards.
fn forwards(mut sks: Vec<String>) -> Vec<String> {
    sks.sort();
    sks
}

/// The items of one partition in the order a Query returns them with `ScanIndexForward = false`.
fn backwards(sks: Vec<String>) -> Vec<String> {
    let mut sks = forwards(sks);
    sks.reverse();
    sks
}

// ---------------------------------------------------------------------------------------------
// 1. Customers, appointments, employees.
//
// | item        | PK                | SK                      | GSI1PK                  | GSI1SK                        |
// |-------------|-------------------|-------------------------|-------------------------|-------------------------------|
// | customer    | CUSTOMER#<c>      | A                       | CUSTOMER#<c>            | A                             |
// | employee    | EMPLOYEE#<e>      | A                       | EMPLOYEE#<e>            | A                             |
// | appointment | APPT#<a>          | A                       | CUSTOMER#<c>            | #APPT#<start>#<a>             |
// | assignment  | APPT#<a>          | EMPLOYEE#<e>            | EMPLOYEE#<e>            | #APPT#<start>#<a>             |
// ---------------------------------------------------------------------------------------------

mod appointments {
    use super::*;

    pub const A_RECORD: &str = "A";

    pub fn customer_pk(c: &Id) -> String {
        Composite::new().lit("CUSTOMER").seg(c).build()
    }

    pub fn employee_pk(e: &Id) -> String {
        Composite::new().lit("EMPLOYEE").seg(e).build()
    }

    pub fn appointment_pk(a: &SortableId) -> String {
        Composite::new().lit("APPT").seg(a).build()
    }

    /// The assignment edge's sort key in its appointment's partition.
    pub fn assignment_sk(e: &Id) -> String {
        employee_pk(e)
    }

    /// An appointment's GSI1 sort key, under its customer and under each of its employees: the
    /// leading `#` sorts it before the `A` record (seed 000's `#ORDER#`), the fixed-width start
    /// time orders it in time, the id makes two appointments at one instant two keys.
    pub fn schedule_sk(start: Timestamp, a: &SortableId) -> String {
        Composite::new()
            .lit("")
            .lit("APPT")
            .seg(&start)
            .seg(a)
            .build()
    }

    /// Every appointment of a GSI1 partition and its owner's `A` record, nothing else.
    pub fn owner_and_appointments() -> SortCondition {
        SortCondition::Between(
            Composite::new().lit("").lit("APPT").build_delimited(),
            A_RECORD.into(),
        )
    }

    /// The appointments starting from `from` to `to`, both included: from the first instant of
    /// `from` to the last of `to`, then `$`, the character after the delimiter, so that every id
    /// after that last instant's `#` is inside and the next millisecond is not.
    pub fn starting_between(from: Timestamp, to: Timestamp) -> SortCondition {
        let prefix = || Composite::new().lit("").lit("APPT");
        SortCondition::Between(
            prefix().seg(&from).build_delimited(),
            format!("{}$", prefix().seg(&to).build()),
        )
    }

    /// An appointment's employees (the assignment edges), not the appointment's own record.
    pub fn assignments() -> SortCondition {
        SortCondition::BeginsWith(Composite::new().lit("EMPLOYEE").build_delimited())
    }
}

use appointments::*;

/// Booked 2024-04-20; the ids are ULIDs of the booking instant, the start times are the
/// appointments' own.
fn booked(ms: u64) -> SortableId {
    SortableId::floor(ms)
}

#[test]
fn appointment_keys_are_these_strings() {
    let customer = id("123");
    let employee = id("E7");
    let appt = SortableId::parse("01HVYJ3Z000000000000000000").unwrap();
    let start = at("2024-05-02T09:30:00.000Z");

    assert_eq!(customer_pk(&customer), "CUSTOMER#123");
    assert_eq!(employee_pk(&employee), "EMPLOYEE#E7");
    assert_eq!(appointment_pk(&appt), "APPT#01HVYJ3Z000000000000000000");
    assert_eq!(assignment_sk(&employee), "EMPLOYEE#E7");
    assert_eq!(
        schedule_sk(start, &appt),
        "#APPT#2024-05-02T09:30:00.000Z#01HVYJ3Z000000000000000000"
    );
}

#[test]
fn a_customer_and_their_newest_appointments_are_one_backwards_query() {
    // GSI1 partition CUSTOMER#123: the customer's own record and three appointments, booked in
    // another order than they take place.
    let april = 1_713_571_200_000; // 2024-04-20T00:00:00.000Z
    let (a1, a2, a3) = (booked(april + 3), booked(april + 1), booked(april + 2));
    let june = schedule_sk(at("2024-06-01T08:00:00.000Z"), &a1);
    let may_morning = schedule_sk(at("2024-05-02T09:30:00.000Z"), &a2);
    let may_noon = schedule_sk(at("2024-05-02T12:00:00.000Z"), &a3);
    let partition = vec![
        may_noon.clone(),
        A_RECORD.to_owned(),
        june.clone(),
        may_morning.clone(),
    ];

    // Backwards, Limit = N + 1: the customer first, then the N latest appointments.
    let read: Vec<_> = backwards(partition.clone())
        .into_iter()
        .take(2 + 1)
        .collect();
    assert_eq!(read, [A_RECORD.to_owned(), june.clone(), may_noon.clone()]);

    // The condition selects exactly these items (and would leave out any kind of item whose
    // GSI1SK sorts after `A` or before `#APPT#`).
    let q = owner_and_appointments();
    assert!(partition.iter().all(|sk| q.matches(sk)));
    assert!(!q.matches("B"));
    assert!(!q.matches("#ANOTHER#x"));

    // Forwards, the appointments are in the order they take place: string order is time order.
    assert_eq!(
        forwards(partition),
        [may_morning, may_noon, june, A_RECORD.to_owned()]
    );
}

#[test]
fn a_date_range_is_one_key_range_with_both_ends_included() {
    let a = booked(1_713_571_200_000);
    let may_2_to_3 = starting_between(
        at("2024-05-02T00:00:00.000Z"),
        at("2024-05-03T23:59:59.999Z"),
    );
    for inside in [
        "2024-05-02T00:00:00.000Z",
        "2024-05-02T09:30:00.000Z",
        "2024-05-03T23:59:59.999Z",
    ] {
        assert!(may_2_to_3.matches(&schedule_sk(at(inside), &a)), "{inside}");
    }
    // The largest id of the last instant is still inside.
    let largest = SortableId::ceiling(1_713_571_200_000);
    assert!(may_2_to_3.matches(&schedule_sk(at("2024-05-03T23:59:59.999Z"), &largest)));
    for outside in ["2024-05-01T23:59:59.999Z", "2024-05-04T00:00:00.000Z"] {
        assert!(
            !may_2_to_3.matches(&schedule_sk(at(outside), &a)),
            "{outside}"
        );
    }
    // Nor the owner's own record.
    assert!(!may_2_to_3.matches(A_RECORD));
}

#[test]
fn fixed_width_timestamps_sort_as_time() {
    // Hours 9 and 10, a month 9 and 10, a year boundary: unpadded, each pair would sort wrong.
    let instants = [
        "2023-12-31T23:59:59.999Z",
        "2024-01-01T09:00:00.000Z",
        "2024-01-01T10:00:00.000Z",
        "2024-09-30T00:00:00.000Z",
        "2024-10-01T00:00:00.000Z",
    ];
    let a = booked(0);
    let keys: Vec<_> = instants.iter().map(|s| schedule_sk(at(s), &a)).collect();
    assert_eq!(forwards(keys.clone()), keys);
    let ms: Vec<_> = instants.iter().map(|s| at(s).ms()).collect();
    assert!(ms.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn an_appointment_and_its_employees_are_one_query_of_its_partition() {
    // Partition APPT#<a>: the appointment's own record (customer id and start time as
    // attributes) and one edge per employee.
    let partition = vec![
        assignment_sk(&id("E9")),
        A_RECORD.to_owned(),
        assignment_sk(&id("E7")),
    ];
    // Forwards: the appointment first, then its employees by id.
    assert_eq!(
        forwards(partition.clone()),
        ["A", "EMPLOYEE#E7", "EMPLOYEE#E9"]
    );
    // Only the employees: begins_with on a prefix that ends on the delimiter.
    let q = assignments();
    let edges: Vec<_> = partition.iter().filter(|sk| q.matches(sk)).collect();
    assert_eq!(edges.len(), 2);
    assert!(!q.matches(A_RECORD));
}

#[test]
fn an_employees_schedule_is_one_query_of_their_gsi1_partition() {
    // GSI1 partition EMPLOYEE#E7: the employee's own record and the edges of their appointments,
    // which carry the appointment's start time (copied: a reschedule rewrites each edge in the
    // appointment's transaction).
    let (a1, a2) = (booked(1), booked(2));
    let partition = vec![
        A_RECORD.to_owned(),
        schedule_sk(at("2024-05-03T14:00:00.000Z"), &a1),
        schedule_sk(at("2024-05-02T09:30:00.000Z"), &a2),
    ];
    let day = starting_between(
        at("2024-05-02T00:00:00.000Z"),
        at("2024-05-02T23:59:59.999Z"),
    );
    let on_may_2: Vec<_> = forwards(partition.clone())
        .into_iter()
        .filter(|sk| day.matches(sk))
        .collect();
    assert_eq!(on_may_2, [schedule_sk(at("2024-05-02T09:30:00.000Z"), &a2)]);
    // The employee and their latest appointments: the customer's query, on this partition.
    assert_eq!(backwards(partition)[0], A_RECORD);
}

#[test]
fn the_partitions_of_the_design_never_meet() {
    // Each entity's partition starts with its own tag and ids cannot carry the delimiter: a
    // customer, an employee and an appointment with the same id are three partitions.
    let same = "E7";
    let pks = [
        customer_pk(&id(same)),
        employee_pk(&id(same)),
        appointment_pk(&SortableId::parse("01HVYJ3Z000000000000000000").unwrap()),
    ];
    assert_eq!(pks[0], "CUSTOMER#E7");
    assert_eq!(pks[1], "EMPLOYEE#E7");
    assert!(Id::parse("id", "E7#A").is_err());
}

// ---------------------------------------------------------------------------------------------
// 2. Seed 003's two ways to choose a GSI2 shard, on seed 000's three orders of customer 123.
// ---------------------------------------------------------------------------------------------

const SHARDS: u32 = 15;

/// The first ULIDs of seed 000's order dates (2020-11-25, 2020-12-01, 2020-12-06), as
/// `make seed` writes them.
fn seed_000_orders() -> [SortableId; 3] {
    [
        "01EQYB69000000000000000000",
        "01ERDSJK000000000000000000",
        "01ERTNJ6000000000000000000",
    ]
    .map(|s| SortableId::parse(s).unwrap())
}

#[test]
fn this_projects_shard_is_a_hash_of_the_order_id() {
    // Spread: one customer's orders land on several shards, so O5 reads every shard.
    let shards: Vec<_> = seed_000_orders()
        .iter()
        .map(|o| order_status_shard(*o, SHARDS).number())
        .collect();
    assert_eq!(shards, [12, 2, 7]);
    // The same order always lands on the same shard (a replayed write, a status change).
    let [_, december_1, _] = seed_000_orders();
    let key = order_status_index(
        order_status_shard(december_1, SHARDS),
        december_1,
        OrderStatus::Open,
    );
    assert_eq!(
        (key.pk(), key.sk()),
        ("ORDERS#02", "OPEN#01ERDSJK000000000000000000")
    );
    assert_eq!(order_status_shard(december_1, SHARDS).number(), 2);
}

/// The seed's other variant: the shard hashed from the customer id, known to a reader who asks
/// for one customer's orders in a status, and the customer in the sort key so that the reader's
/// items are one range of that one shard.
fn by_customer(customer: &Id, order: SortableId, status: OrderStatus) -> (String, String) {
    let shard = code_point_shard(customer.as_str(), SHARDS);
    (
        Composite::new().lit("ORDERS").seg(&shard).build(),
        Composite::new()
            .seg(&status)
            .seg(customer)
            .seg(&order)
            .build(),
    )
}

#[test]
fn a_shard_hashed_from_what_the_reader_knows_is_read_in_one_query() {
    let c123 = id("123");
    let keys: Vec<_> = seed_000_orders()
        .iter()
        .map(|o| by_customer(&c123, *o, OrderStatus::Open))
        .collect();
    // Every order of customer 123 is on one shard ("1" + "2" + "3" = 150, 150 % 15 = 0).
    assert!(keys.iter().all(|(pk, _)| pk == "ORDERS#00"));
    assert_eq!(keys[1].1, "OPEN#123#01ERDSJK000000000000000000");
    // Customer 123's OPEN orders of December: one query of ORDERS#00.
    let december = SortCondition::Between(
        Composite::new()
            .seg(&OrderStatus::Open)
            .seg(&c123)
            .seg(&SortableId::floor(1_606_780_800_000)) // 2020-12-01T00:00:00.000Z
            .build(),
        Composite::new()
            .seg(&OrderStatus::Open)
            .seg(&c123)
            .seg(&SortableId::ceiling(1_609_459_199_999)) // 2020-12-31T23:59:59.999Z
            .build(),
    );
    let selected: Vec<_> = keys.iter().filter(|(_, sk)| december.matches(sk)).collect();
    assert_eq!(selected.len(), 2);
}

#[test]
fn but_then_a_date_range_across_customers_is_no_longer_a_key_range() {
    // Customer 132 has the same code points as 123, so the same shard. Its older order sorts
    // after 123's newer one: within a shard, OPEN orders sort by customer first, so O5's "every
    // OPEN order from date1 to date2" is no range of the sort key any more.
    let c132 = id("132");
    let [_, _, december_6] = seed_000_orders();
    let november_20 = SortableId::floor(1_605_830_400_000); // 2020-11-20T00:00:00.000Z
    let newer = by_customer(&id("123"), december_6, OrderStatus::Open);
    let older = by_customer(&c132, november_20, OrderStatus::Open);
    assert_eq!(newer.0, older.0, "one shard");
    assert!(
        older.1 > newer.1,
        "the older order sorts after the newer one"
    );
    // With this project's sort key (status, then order id), the same two orders sort by date.
    let ours = |o| order_status_index(order_status_shard(o, SHARDS), o, OrderStatus::Open);
    assert!(ours(november_20).sk() < ours(december_6).sk());
}
