//! `make seed SIZE=large`: a realistic volume for every context, on top of the seeds and the org:
//! thousands of customers with their orders, lines and tracking events, carts, products with
//! their inventories, books with thousands of reviews, course occurrences with certificates over
//! every shard, and hundreds of employees with their job histories and edges.
//!
//! Every item is a record of the model (`model::to_item`); nothing here spells a key. Items that
//! carry derived values (a customer's order count, a book's rating, an order's status, a
//! product's total inventory) are put only if absent, one conditional PutItem each, so a second
//! run never resets what the stream pipeline derived; everything else goes in BatchWriteItem
//! requests of 25 (`store::Table::batch_put`: unprocessed items are sent again, with backoff),
//! several in flight. The draw is deterministic, so a second run writes the same items.
//!
//! The derived values themselves are the stream pipeline's: load while `make run` is up and its
//! stream handlers derive them, as on AWS.

use commerce::data::NewOrder;
use futures::{StreamExt, TryStreamExt, stream};
use keys::indexes::IndexDesign;
use keys::{
    Date, Id, Name, SortableId, Timestamp,
    commerce::{OrderStatus, Sku},
    learning::{CertType, CertVersion, Course, Location},
    reviews::Isbn,
};
use model::{
    Entity, Item,
    commerce::{CartLine, Customer, Inventory, OrderSummary, Product, TrackingEvent},
    hr::{CurrentJob, Employee, EmployeeWarehouse, Job, JobHistory},
    learning::{Certificate, CourseOccurrence},
    reviews::{Book, Review, ReviewMarker, User},
};
use store::{Condition, StoreError, Table};

use crate::{Draw, layout::Tables, org};

/// How much of everything to load.
#[derive(Debug, Clone, Copy)]
pub struct Volume {
    pub customers: u64,
    pub orders: u64,
    pub products: u64,
    pub carts: u64,
    pub books: u64,
    pub users: u64,
    pub reviews: u64,
    pub courses: u64,
    pub occurrences_per_course: u64,
    pub certificates: u64,
    pub employees: u64,
}

/// `SIZE=large`.
pub const LARGE: Volume = Volume {
    customers: 2_000,
    orders: 5_000,
    products: 100,
    carts: 300,
    books: 200,
    users: 1_000,
    reviews: 5_000,
    courses: 20,
    occurrences_per_course: 10,
    certificates: 4_000,
    employees: 500,
};

/// A fifth of [`LARGE`], in the same proportions (order lines per product, reviews per user...):
/// `make compare SIZE=medium`, whose load DynamoDB Local's stream handlers derive in minutes
/// where [`LARGE`]'s takes hours (a batch of 100 records took 30 s on its tables).
pub const MEDIUM: Volume = Volume {
    customers: LARGE.customers / 5,
    orders: LARGE.orders / 5,
    products: LARGE.products / 5,
    carts: LARGE.carts / 5,
    books: LARGE.books / 5,
    users: LARGE.users / 5,
    reviews: LARGE.reviews / 5,
    courses: LARGE.courses / 5,
    occurrences_per_course: LARGE.occurrences_per_course,
    certificates: LARGE.certificates / 5,
    employees: LARGE.employees / 5,
};

/// BatchWriteItem requests (or conditional puts) in flight at once.
const IN_FLIGHT: usize = 8;

const FIRST: [&str; 16] = [
    "Ada",
    "Alan",
    "Grace",
    "Edsger",
    "Barbara",
    "Donald",
    "Frances",
    "John",
    "Margaret",
    "Ken",
    "Radia",
    "Tim",
    "Katherine",
    "Dennis",
    "Hedy",
    "Linus",
];
const LAST: [&str; 16] = [
    "Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Hamilton",
    "Thompson", "Perlman", "Lee", "Johnson", "Ritchie", "Lamarr", "Torvalds",
];
const TITLES: [&str; 6] = [
    "Sales Representative",
    "Sales Manager",
    "Shipping Clerk",
    "Programmer",
    "Accountant",
    "Stock Manager",
];
const COURSES: [&str; 5] = [
    "Intro to DynamoDB",
    "Advanced Data Modeling",
    "Serverless Rust",
    "Single Table Design",
    "Streams and Aggregates",
];
const BUILDINGS: [&str; 4] = ["Building 1", "Building 2", "Annex", "Main Hall"];

/// 2025-01-01T00:00:00Z: the large set's orders, reviews and courses start there.
const START_MS: u64 = 1_735_689_600_000;
const DAY_MS: u64 = 86_400_000;

fn id(s: &str) -> Id {
    Id::parse("generated id", s).expect("generated ids are valid")
}

fn name(draw: &mut Draw) -> String {
    format!("{} {}", draw.pick(&FIRST), draw.pick(&LAST))
}

fn at(ms: u64) -> Timestamp {
    Timestamp::from_ms(ms).expect("a valid instant")
}

fn date_of(ms: u64) -> Date {
    let iso = at(ms).to_string();
    Date::parse_iso(&iso[..10]).expect("a valid date")
}

fn sku(n: u64) -> Sku {
    Sku::new(500_000 + n).expect("a valid SKU")
}

/// A valid ISBN-13 (978 prefix, check digit computed).
fn isbn(n: u64) -> Isbn {
    let body = format!("978{:09}", 100_000_000 + n);
    let sum: u32 = body
        .bytes()
        .enumerate()
        .map(|(i, b)| u32::from(b - b'0') * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    Isbn::parse(&format!("{body}{}", (10 - sum % 10) % 10)).expect("a valid ISBN")
}

/// The items with one per key, the last drawn (a cart drew the same product twice): as
/// sequential puts would leave them, and as BatchWriteItem requires (no key twice in a request).
fn last_of_each_key(items: Vec<Item>) -> Vec<Item> {
    let key = |i: &Item| {
        let s = |a: &str| i.get(a).and_then(|v| v.as_s().ok()).cloned();
        (s(keys::attr::PK), s(keys::attr::SK))
    };
    let mut last = std::collections::HashMap::new();
    for (n, item) in items.iter().enumerate() {
        last.insert(key(item), n);
    }
    items
        .into_iter()
        .enumerate()
        .filter(|(n, item)| last[&key(item)] == *n)
        .map(|(_, item)| item)
        .collect()
}

fn item<E: Entity>(entity: &E) -> Item {
    model::to_item(entity).expect("generated records encode")
}

/// What a run writes: items put only if absent, and items written in batches.
#[derive(Default)]
struct Plan {
    if_absent: Vec<Item>,
    batched: Vec<Item>,
}

fn plan(v: &Volume) -> Plan {
    let mut draw = Draw(20_251_123);
    let mut p = Plan::default();
    let reps: Vec<Id> = org::REPS.iter().map(|r| id(r)).collect();
    let warehouses: Vec<&str> = org::WAREHOUSES.iter().map(|w| w.0).collect();

    // Commerce: products and their stock, customers, carts, orders with lines and events.
    for n in 1..=v.products {
        p.if_absent.push(item(&Product {
            sku: sku(n),
            name: format!("Product {n}"),
            description: Some(format!("A generated product, number {n}")),
            created_at: at(START_MS),
            updated_at: at(START_MS),
            price: Some(100 * (1 + n as i64 % 500)),
            currency: Some("USD".into()),
            total_inventory: Default::default(),
        }));
        for w in &warehouses {
            p.batched.push(item(&Inventory {
                sku: sku(n),
                warehouse_id: id(w),
                quantity: draw.below(500) as u32,
                updated_at: at(START_MS),
                version: 1,
            }));
        }
    }
    let customer = |n: u64| id(&format!("cust{n:05}"));
    for n in 1..=v.customers {
        let name = name(&mut draw);
        p.if_absent.push(item(&Customer {
            customer_id: customer(n),
            email: format!("{}.{n}@example.com", name.to_lowercase().replace(' ', ".")),
            name,
            created_at: at(START_MS),
            updated_at: at(START_MS),
            order_count: Default::default(),
            lifetime_value: Default::default(),
            account_rep_id: Some(reps[(n % reps.len() as u64) as usize].clone()),
        }));
    }
    for n in 1..=v.carts {
        for _ in 0..1 + draw.below(4) {
            p.batched.push(item(&CartLine {
                cart_id: customer(n),
                product_id: id(&sku(1 + draw.below(v.products)).to_string()),
                quantity: 1 + draw.below(5) as u32,
                updated_at: at(START_MS),
                version: 1,
            }));
        }
    }
    let order_step = (700 * DAY_MS) / v.orders.max(1);
    for n in 0..v.orders {
        let c = 1 + draw.below(v.customers);
        let ms = START_MS + n * order_step + draw.below(order_step.max(2) / 2);
        let lines = (0..1 + draw.below(3))
            .map(|i| {
                (
                    sku(1 + (c + i * 7) % v.products),
                    1 + draw.below(3) as u32,
                    250 + 50 * draw.below(40) as i64,
                )
            })
            .collect::<Vec<_>>();
        // One line per SKU, as an order keeps it.
        let mut lines = lines;
        lines.sort_by_key(|l| l.0);
        lines.dedup_by_key(|l| l.0);
        let order = NewOrder {
            customer: customer(c),
            order_id: SortableId::floor(ms),
            created_at: at(ms),
            lines,
            design: Default::default(),
        };
        let rep = Some(reps[(c % reps.len() as u64) as usize].clone());
        p.if_absent
            .push(item(&OrderSummary(order.order(rep.clone()))));
        p.if_absent.push(item(&order.header(rep)));
        p.batched.extend(order.lines().iter().map(item));
        // Older orders moved on: up to three tracking events, a few minutes apart each.
        let progressed = draw.below(4);
        for (i, status) in [
            OrderStatus::Processing,
            OrderStatus::Shipped,
            OrderStatus::Delivered,
        ]
        .into_iter()
        .take(progressed as usize)
        .enumerate()
        {
            p.batched.push(item(&TrackingEvent {
                order_id: order.order_id,
                event_id: SortableId::floor(ms + (i as u64 + 1) * 600_000),
                status,
                note: None,
                at: at(ms + (i as u64 + 1) * 600_000),
            }));
        }
    }

    // Reviews: books, users, and one review per (user, book) with its marker.
    for n in 1..=v.books {
        p.if_absent.push(item(&Book {
            isbn: isbn(n),
            title: format!("Generated Book {n}"),
            author: name(&mut draw),
            publication_year: 1950 + draw.below(75) as i32,
            rating_count: Default::default(),
            rating_sum: Default::default(),
        }));
    }
    let username = |n: u64| id(&format!("reader{n:05}"));
    for n in 1..=v.users {
        p.if_absent.push(item(&User {
            username: username(n),
            membership_date: date_of(START_MS - draw.below(3_000) * DAY_MS),
            review_count: Default::default(),
        }));
    }
    for n in 0..v.reviews {
        // Review n is user (n mod users) on book (n div users): never twice the same pair.
        let (u, b) = (1 + n % v.users, 1 + (n / v.users) % v.books);
        let review = Review {
            isbn: isbn(b),
            username: username(u),
            grade: 1 + draw.below(10) as u8,
            review_text: format!("Review {n}: generated text."),
            review_date: at(START_MS + draw.below(600 * DAY_MS)),
        };
        p.batched.push(item(&ReviewMarker {
            username: review.username.clone(),
            isbn: review.isbn.clone(),
            review_sk: review.key().sk().to_owned(),
        }));
        p.batched.push(item(&review));
    }

    // Learning: occurrences of each course, certificates of their students.
    let mut occurrences = Vec::new();
    for c in 0..v.courses {
        let course = format!("{} {}", COURSES[(c % 5) as usize], 1 + c / 5);
        for o in 0..v.occurrences_per_course {
            let occurrence = CourseOccurrence {
                course_name: Course::parse(&course).expect("a valid course"),
                start_date: date_of(START_MS + (c * 7 + o * 30) * DAY_MS),
                location: Location::parse(draw.pick(&BUILDINGS)).expect("a valid location"),
                course_type: "Instructor-led".into(),
            };
            p.batched.push(item(&occurrence));
            occurrences.push(occurrence);
        }
    }
    let instructors: Vec<String> = (0..30).map(|_| name(&mut draw)).collect();
    for n in 0..v.certificates {
        let o = &occurrences[(n % occurrences.len() as u64) as usize];
        p.batched.push(item(&Certificate {
            cert_name: o.course_name.clone(),
            issued_date: o.start_date,
            location: o.location.clone(),
            student: Name::parse("student", &format!("{} {n}", name(&mut draw)))
                .expect("a valid name"),
            cert_type: draw.pick(&CertType::ALL),
            instructor: Name::parse(
                "instructor",
                &instructors[draw.below(instructors.len() as u64) as usize],
            )
            .expect("a valid name"),
            entity_version: CertVersion::V2,
        }));
    }

    // HR: the jobs (`J<n>`, one per title), then employees with a job history, the current job
    // edge and a warehouse edge.
    for (n, title) in TITLES.iter().enumerate() {
        p.if_absent.push(item(&Job {
            job_id: id(&format!("J{n}")),
            title: Name::parse("title", title).expect("a valid title"),
        }));
    }
    let departments: Vec<&str> = org::DEPARTMENTS.iter().map(|d| d.0).collect();
    for n in 0..v.employees {
        let employee_id = id(&format!("E{:05}", 10_000 + n));
        let employee_name = Name::parse("name", &name(&mut draw)).expect("a valid name");
        let hired_ms = START_MS - draw.below(3_000) * DAY_MS;
        let warehouse = draw.pick(&warehouses);
        p.batched.push(item(&Employee {
            employee_id: employee_id.clone(),
            name: employee_name.clone(),
            hire_date: date_of(hired_ms),
            warehouse_id: Some(id(warehouse)),
            revision: 1,
        }));
        p.batched.push(item(&EmployeeWarehouse {
            employee_id: employee_id.clone(),
            employee_name: employee_name.clone(),
            warehouse_id: id(warehouse),
        }));
        let mut newest = None;
        for j in 0..1 + draw.below(3) {
            let job = JobHistory {
                employee_id: employee_id.clone(),
                job_id: id(&format!("J{}", draw.below(TITLES.len() as u64))),
                department_id: id(draw.pick(&departments)),
                start_date: date_of(hired_ms + j * 400 * DAY_MS),
            };
            p.batched.push(item(&job));
            newest = Some(job);
        }
        if let Some(job) = newest {
            p.batched.push(item(&CurrentJob::of(&job, &employee_name)));
        }
    }
    p
}

/// Loads `v` into `table`; `progress(done, total)` is told as items are written. Returns how
/// many items it wrote: the new ones of those put only if absent, and every batched one.
pub async fn load(
    table: &Table,
    v: &Volume,
    progress: impl Fn(usize, usize),
) -> Result<usize, StoreError> {
    load_into(&Tables::one(table), v, progress).await
}

/// [`load`], each item into its context's table; users and reviews as the local stack's index
/// design writes them (`INDEX_DESIGN`, as the Makefile passes it).
pub async fn load_into(
    tables: &Tables,
    v: &Volume,
    progress: impl Fn(usize, usize),
) -> Result<usize, StoreError> {
    load_into_as(tables, v, store::index_design_from_env()?, progress).await
}

/// [`load_into`] as `design` writes users, reviews, order lines and inventories: without GSI1's
/// keys where R2 and O8 read indexes of their own.
pub async fn load_into_as(
    tables: &Tables,
    v: &Volume,
    design: IndexDesign,
    progress: impl Fn(usize, usize),
) -> Result<usize, StoreError> {
    let Plan { if_absent, batched } = plan(v);
    let written = |items: Vec<Item>| -> Vec<Item> {
        let r2 = [
            keys::reviews::types::USER,
            keys::reviews::types::REVIEW,
            keys::commerce::types::ORDER_LINE,
            keys::commerce::types::INVENTORY,
        ];
        let mut items = last_of_each_key(items);
        for item in items.iter_mut().filter(|_| !design.writes_gsi1()) {
            if model::type_of(item).is_some_and(|t| r2.contains(&t)) {
                item.remove(keys::attr::GSI1PK);
                item.remove(keys::attr::GSI1SK);
            }
        }
        items
    };
    let (if_absent, batched) = (written(if_absent), written(batched));
    let total = if_absent.len() + batched.len();
    let batched_items = batched.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let tick = |n: usize| {
        let now = done.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n;
        progress(now, total);
    };
    // Entities first (the conditional puts), so a batch's children never precede their parent
    // in the stream.
    let new: usize = stream::iter(if_absent)
        .map(|item| async {
            let table = tables.of_item(&item);
            let created = match table.put_item(item, Some(Condition::Absent)).await {
                Ok(()) => Ok(true),
                Err(StoreError::ConditionFailed) => Ok(false),
                Err(e) => Err(e),
            };
            tick(1);
            created
        })
        .buffer_unordered(IN_FLIGHT)
        .try_fold(0, |n, created| async move { Ok(n + usize::from(created)) })
        .await?;
    // Each table's items in batches of its own (a BatchWriteItem may span tables, but
    // `batch_put` writes one).
    let mut by_table: Vec<(&Table, Vec<Item>)> = Vec::new();
    for item in batched {
        let table = tables.of_item(&item);
        match by_table.iter_mut().find(|(t, _)| t.name() == table.name()) {
            Some((_, items)) => items.push(item),
            None => by_table.push((table, vec![item])),
        }
    }
    let chunks: Vec<(&Table, Vec<Item>)> = by_table
        .iter()
        .flat_map(|(table, items)| items.chunks(25).map(|c| (*table, c.to_vec())))
        .collect();
    stream::iter(chunks)
        .map(|(table, chunk)| async move {
            let n = chunk.len();
            table.batch_put(chunk).await?;
            tick(n);
            Ok::<_, StoreError>(())
        })
        .buffer_unordered(IN_FLIGHT)
        .try_collect::<()>()
        .await?;
    Ok(new + batched_items)
}
