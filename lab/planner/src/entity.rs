//! The populations a workload counts and a call draws what it touches from, and the id of the
//! rank-k one of each, as the keys spell it (the hand models and the profiled routes draw the same
//! partitions, so that heat adds up on them).

use keys::{
    Id,
    commerce::{OrderId, Sku},
    learning::Name,
    reviews::Isbn,
};

/// Which population a draw comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entity {
    Customers,
    Products,
    Orders,
    Reps,
    Books,
    Users,
    Students,
    Courses,
    Employees,
    Warehouses,
    Carts,
    References,
}

impl Entity {
    pub const ALL: [Entity; 12] = [
        Entity::Customers,
        Entity::Products,
        Entity::Orders,
        Entity::Reps,
        Entity::Books,
        Entity::Users,
        Entity::Students,
        Entity::Courses,
        Entity::Employees,
        Entity::Warehouses,
        Entity::Carts,
        Entity::References,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Entity::Customers => "customers",
            Entity::Products => "products",
            Entity::Orders => "orders",
            Entity::Reps => "reps",
            Entity::Books => "books",
            Entity::Users => "users",
            Entity::Students => "students",
            Entity::Courses => "courses",
            Entity::Employees => "employees",
            Entity::Warehouses => "warehouses",
            Entity::Carts => "carts",
            Entity::References => "references",
        }
    }
}

pub const SAMPLE_MS: u64 = 1_795_860_000_000;

pub fn customer_id(k: u64) -> Id {
    Id::parse("customer", &format!("C{k:010}")).expect("a valid id")
}
pub fn rep_id(k: u64) -> Id {
    Id::parse("rep", &format!("R{k:06}")).expect("a valid id")
}
pub fn user_id(k: u64) -> Id {
    Id::parse("user", &format!("u{k:010}")).expect("a valid id")
}
/// The order of rank `k`: a ULID of the sample day whose random part is a hash of `k`.
pub fn order_id(k: u64) -> OrderId {
    let random = u128::from(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) << 16 | u128::from(k);
    OrderId::parse(&ulid::Ulid::from_parts(SAMPLE_MS + k % 86_400_000, random).to_string())
        .expect("a ULID")
}
pub fn sku(k: u64) -> Sku {
    Sku::new(k).expect("a SKU from 1")
}
/// The ISBN-13 `978<k, 9 digits><check>`.
pub fn isbn(k: u64) -> Isbn {
    let body = format!("978{:09}", k % 1_000_000_000);
    let sum: u32 = body
        .bytes()
        .enumerate()
        .map(|(i, b)| u32::from(b - b'0') * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    Isbn::parse(&format!("{body}{}", (10 - sum % 10) % 10)).expect("a valid ISBN")
}
/// The rank-k student: a surname of letters drawn from a hash of `k`, as real names vary (the
/// certificate's GSI1 shard is a sum of its key's code points; sequential numbers in names
/// would bunch on a few shards, as real names do not).
pub fn student(k: u64) -> Name {
    let mut z = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    let letters: String = (0..8)
        .map(|i| char::from(b'a' + ((z >> (i * 5)) % 26) as u8))
        .collect();
    Name::parse("student", &format!("Student {letters}")).expect("a valid name")
}
