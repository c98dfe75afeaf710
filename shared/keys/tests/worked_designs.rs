//! Worked designs on paper: key designs that docs/seeds.md describes but this table does not
//! implement, built with the keys crate's public builders, with the key strings and sort orders
//! each of their queries relies on asserted. No DynamoDB: `SortCondition::matches` selects a sort
//! key as DynamoDB's key condition does, and a partition's items come back in the byte order of
//! their sort keys (ascending forwards, descending with `ScanIndexForward = false`).
//!
//! Seed 003's second sharding variant: the GSI2 shard hashed from an attribute the reader knows
//! (the customer id), beside this project's shard hashed from the order id. (Seed 000's
//! appointments, once a design here, are the registry's now: `tests/src/appointments.rs`.)

use keys::{
    Composite, Id, SortCondition, SortableId, code_point_shard,
    commerce::{OrderStatus, order_status_index, order_status_shard},
};

fn id(s: &str) -> Id {
    Id::parse("id", s).expect("a valid id")
}

// ---------------------------------------------------------------------------------------------
// Seed 003's two ways to choose a GSI2 shard, on seed 000's three orders of customer 123.
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
