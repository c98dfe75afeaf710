//! The data both designs hold: the same records, made from a fixed seed so every run measures the
//! same items.

use keys::{
    Date, Id, Shard, SortableId, Timestamp,
    commerce::{DEFAULT_ORDER_STATUS_SHARDS, OrderStatus, order_status_shard},
    learning::{Course, Location},
};
use model::{
    commerce::{Order, OrderHeader, OrderSummary},
    learning::CourseOccurrence,
};

/// The course every occurrence read asks for (L2-L6), and a second one beside it.
pub const COURSE: &str = "Intro to DynamoDB";
const OTHER_COURSE: &str = "Modeling 101";
/// The busy day of L5 and L6: many occurrences, so that it takes several pages.
pub const BUSY_DAY: (i32, u8, u8) = (2023, 3, 15);
/// L3's year and L4's month.
pub const YEAR: u16 = 2023;
pub const MONTH: u8 = 3;
/// L6's location prefix: `Seattle` reaches `Seattle`, `Seattle Downtown`, `Seattle South`...
pub const LOCATION_PREFIX: &str = "Seattle";

/// The customer whose orders C4 reads, and the rep whose orders O10 reads.
pub const CUSTOMER: &str = "c-busy";
pub const REP: &str = "rep-1";
/// The status C4, O10 and O5 ask for, and the dates they ask between.
pub const STATUS: OrderStatus = OrderStatus::Shipped;
pub const FROM: (i32, u8, u8) = (2024, 1, 1);
pub const TO: (i32, u8, u8) = (2024, 12, 31);

const LOCATIONS: [&str; 24] = [
    "Seattle",
    "Seattle Downtown",
    "Seattle South",
    "Seattle Waterfront",
    "Seattle 2",
    "Seattle 10",
    "Bellevue",
    "Building 1",
    "Building 2",
    "Building 10",
    "Building 12",
    "Denver",
    "Denver Tech Center",
    "Dublin",
    "Dublin Docklands",
    "Berlin",
    "Berlin Mitte",
    "Tokyo",
    "Sydney",
    "Sao Paulo",
    "Cape Town",
    "Mumbai",
    "Toronto",
    "Austin",
];

/// A small deterministic generator (xorshift64*): the same data on every run, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The ULID of `ms` and these random bits (their low 80), so that every run writes the same ids
/// and the orders fall on the same shards.
fn sortable_id(ms: u64, random: u128) -> SortableId {
    const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let value = (u128::from(ms) << 80) | (random & ((1 << 80) - 1));
    let text: String = (0..26)
        .rev()
        .map(|i| char::from(CROCKFORD[((value >> (5 * i)) & 31) as usize]))
        .collect();
    SortableId::parse(&text).expect("a canonical ULID")
}

pub fn date(ymd: (i32, u8, u8)) -> Date {
    Date::from_ymd(ymd.0, ymd.1, ymd.2).expect("a valid date")
}

fn occurrence(course: &str, date: Date, location: &str) -> CourseOccurrence {
    CourseOccurrence {
        course_name: Course::parse(course).expect("a valid course"),
        start_date: date,
        location: Location::parse(location).expect("a valid location"),
        course_type: "DevChat".into(),
    }
}

/// `count` occurrences of [`COURSE`] over 2021-2025 at the locations above, every location on
/// [`BUSY_DAY`], and a quarter as many of another course. One per course, day and location (their
/// key), so fewer than asked may come back.
pub fn occurrences(count: usize) -> Vec<CourseOccurrence> {
    let mut rng = Rng::new(20_220_315);
    let mut out = std::collections::BTreeMap::new();
    let mut add = |o: CourseOccurrence| {
        out.insert(model::Entity::key(&o), o);
    };
    for location in LOCATIONS {
        add(occurrence(COURSE, date(BUSY_DAY), location));
    }
    for n in 0..count + count / 4 {
        let course = if n < count { COURSE } else { OTHER_COURSE };
        let day = date((
            2021 + rng.below(5) as i32,
            1 + rng.below(12) as u8,
            1 + rng.below(28) as u8,
        ));
        let location = LOCATIONS[rng.below(LOCATIONS.len() as u64) as usize];
        add(occurrence(course, day, location));
    }
    out.into_values().collect()
}

/// `count` orders over 2023-2025, each written as its header and its summary: a third of them
/// [`CUSTOMER`]'s, the rest spread over 200 customers; half of them placed under one of five reps
/// ([`REP`] among them); every status, a fifth of them OPEN (seed 003's share).
pub fn orders(count: usize) -> (Vec<OrderHeader>, Vec<OrderSummary>) {
    let mut rng = Rng::new(20_201_125);
    let start = date((2023, 1, 1)).start_ms() as u64;
    let span = date((2025, 12, 31)).end_ms() as u64 - start;
    let mut headers = Vec::with_capacity(count);
    let mut summaries = Vec::with_capacity(count);
    for n in 0..count {
        let ms = start + rng.below(span);
        let order_id = sortable_id(ms, u128::from(rng.next()) << 16 | u128::from(rng.next()));
        let customer = if n % 3 == 0 {
            CUSTOMER.to_owned()
        } else {
            format!("c-{:03}", rng.below(200))
        };
        let rep = (rng.below(2) == 0).then(|| format!("rep-{}", 1 + rng.below(5)));
        let status = if rng.below(5) == 0 {
            OrderStatus::Open
        } else {
            OrderStatus::ALL[rng.below(OrderStatus::ALL.len() as u64) as usize]
        };
        let shard: Shard = order_status_shard(order_id, DEFAULT_ORDER_STATUS_SHARDS);
        let order = Order {
            order_id,
            customer_id: Id::parse("customerId", &customer).expect("a valid id"),
            status,
            created_at: Timestamp::from_ms(ms).expect("a valid instant"),
            total: 1_000 + rng.below(50_000) as i64,
            item_count: 1 + rng.below(5),
            event_count: None,
            last_event_id: None,
            account_rep_id: rep.map(|r| Id::parse("repId", &r).expect("a valid id")),
            status_shard: Some(shard),
            currency: Some("USD".into()),
        };
        headers.push(OrderHeader(order.clone()));
        // The shard is the header's alone (O5 lists headers).
        summaries.push(OrderSummary(Order {
            status_shard: None,
            ..order
        }));
    }
    (headers, summaries)
}
