//! The entities every function's tests start from, written through the store as the functions
//! write them (so a fixture can never hold an item the code would not).

use keys::{Date, Id, SortableId, Timestamp, commerce::Sku, reviews::Isbn};
use model::{commerce::Order, reviews::Review};
use store::{
    Table,
    commerce::{self, NewOrder, PlaceOutcome},
    reviews::{self, NewReview, PutReviewOutcome},
};

/// The first review date of Pernin's introduction: 2001-08-05T02:46:00Z.
pub const REVIEW_2001_MS: u64 = 996_979_560_000;
/// The three order dates of Good's data-modeling post: 2020-11-25, 2020-12-01, 2020-12-06
/// (midnight UTC).
pub const ORDER_DATES_MS: [u64; 3] = [1_606_262_400_000, 1_606_780_800_000, 1_607_212_800_000];
/// The Fellowship of the Ring (HarperCollins, 1954).
pub const FELLOWSHIP: &str = "9780261102354";

pub fn id(s: &str) -> Id {
    Id::parse("id", s).expect("a valid test id")
}

pub fn isbn(s: &str) -> Isbn {
    Isbn::parse(s).expect("a valid test ISBN")
}

pub fn sku(n: u64) -> Sku {
    Sku::new(n).expect("a valid test SKU")
}

pub fn at(ms: u64) -> Timestamp {
    Timestamp::from_ms(ms).expect("a test instant before 9999")
}

/// A customer named after its id (`<id>@example.com`).
pub async fn customer(table: &Table, customer: &str) -> Id {
    let c = id(customer);
    commerce::put_customer(
        table,
        &c,
        &format!("Customer {customer}"),
        &format!("{customer}@example.com"),
        commerce::RepChange::Keep,
        at(1_604_188_800_000),
    )
    .await
    .expect("put customer");
    c
}

/// A customer (as [`customer`]) looked after by the account rep `rep`, an existing employee.
pub async fn customer_of_rep(table: &Table, customer: &str, rep: &str) -> Id {
    let c = id(customer);
    let put = commerce::put_customer(
        table,
        &c,
        &format!("Customer {customer}"),
        &format!("{customer}@example.com"),
        commerce::RepChange::Assign(id(rep)),
        at(1_604_188_800_000),
    )
    .await
    .expect("put customer");
    assert!(
        matches!(put, commerce::CustomerPut::Stored(..)),
        "the rep {rep} exists"
    );
    c
}

/// An order of `customer` placed at `ms`, with (sku, quantity, unit price) lines.
pub async fn order(table: &Table, customer: &str, ms: u64, lines: &[(u64, u32, i64)]) -> Order {
    let new = NewOrder {
        customer: id(customer),
        order_id: SortableId::at_ms(ms),
        created_at: at(ms),
        lines: lines.iter().map(|(s, q, p)| (sku(*s), *q, *p)).collect(),
        status_shards: keys::commerce::DEFAULT_ORDER_STATUS_SHARDS,
    };
    let outcome = commerce::place_order(table, &new, None)
        .await
        .expect("place order");
    assert_eq!(outcome, PlaceOutcome::Placed, "the customer exists");
    // Read back: the order records its customer's rep at the time.
    table
        .get::<model::commerce::OrderHeader>(
            &keys::commerce::order_header(new.order_id),
            store::Read::Strong,
        )
        .await
        .expect("read the order")
        .expect("the order exists")
        .0
}

/// Good's data-modeling post: customer `customer` and an order on each of the post's three dates
/// (one line each).
/// `statuses` added to `order` as its tracking events (written), the first a second after the
/// order was placed and each a second after the one before.
pub async fn tracking_events(
    table: &Table,
    order: &Order,
    statuses: &[keys::commerce::OrderStatus],
) {
    let placed = order.order_id.timestamp_ms();
    for (second, status) in (1..).zip(statuses) {
        let event_id = SortableId::at_ms(placed + 1000 * second);
        let event = model::commerce::TrackingEvent {
            order_id: order.order_id,
            event_id,
            status: *status,
            note: None,
            at: at(event_id.timestamp_ms()),
        };
        let added = commerce::add_tracking_event(table, &event).await;
        assert!(added.expect("a tracking event"), "the order exists");
    }
}

pub async fn customer_with_seed_orders(table: &Table, customer: &str) -> Vec<Order> {
    self::customer(table, customer).await;
    let mut orders = Vec::new();
    for (i, ms) in ORDER_DATES_MS.into_iter().enumerate() {
        orders.push(order(table, customer, ms, &[(i as u64 + 1, 1, 100)]).await);
    }
    orders
}

/// A book (title "T", author "A", 1954).
pub async fn book(table: &Table, book: &str) -> Isbn {
    let b = isbn(book);
    reviews::put_book(table, &b, "T", "A", 1954)
        .await
        .expect("put book");
    b
}

/// A book as a reader knows it: "The Fellowship of the Ring", J.R.R. Tolkien, 1954, under `book`.
pub async fn titled_book(table: &Table, book: &str) -> Isbn {
    let b = isbn(book);
    reviews::put_book(
        table,
        &b,
        "The Fellowship of the Ring",
        "J.R.R. Tolkien",
        1954,
    )
    .await
    .expect("put book");
    b
}

/// A user, member since 2000-09-29.
pub async fn user(table: &Table, user: &str) -> Id {
    let u = id(user);
    let since = Date::parse_iso("2000-09-29").expect("valid");
    reviews::put_user(table, &u, Some(since), since)
        .await
        .expect("put user");
    u
}

/// `user`'s review of `book` (both must exist), written at `ms`.
pub async fn review(
    table: &Table,
    book: &str,
    user: &str,
    ms: u64,
    grade: u8,
    text: &str,
) -> Review {
    let outcome = reviews::put_review(
        table,
        &NewReview {
            isbn: isbn(book),
            user: id(user),
            grade,
            text: text.into(),
            at: at(ms),
        },
    )
    .await
    .expect("put review");
    match outcome {
        PutReviewOutcome::Created(r) | PutReviewOutcome::Updated(r) => r,
        other => panic!("the book and the user must exist: {other:?}"),
    }
}

/// The course of Walch's talk: "Intro to DynamoDB".
pub const INTRO: &str = "Intro to DynamoDB";

/// A course occurrence (not written), of type "DevChat".
pub fn occurrence(course: &str, date: &str, location: &str) -> model::learning::CourseOccurrence {
    use keys::learning::{Course, Location};
    model::learning::CourseOccurrence {
        course_name: Course::parse(course).expect("a valid test course"),
        start_date: Date::parse_iso(date).expect("a valid test date"),
        location: Location::parse(location).expect("a valid test location"),
        course_type: "DevChat".into(),
    }
}

/// A completion certificate (not written) of the course of Walch's talk in Building 1, in
/// `version`.
pub fn certificate(
    date: &str,
    student: &str,
    instructor: &str,
    version: keys::learning::CertVersion,
) -> model::learning::Certificate {
    use keys::learning::{CertType, Name};
    let course = occurrence(INTRO, date, "Building 1");
    model::learning::Certificate {
        cert_name: course.course_name,
        issued_date: course.start_date,
        location: course.location,
        student: Name::parse("student", student).expect("a valid test name"),
        cert_type: CertType::Completion,
        instructor: Name::parse("instructor", instructor).expect("a valid test name"),
        entity_version: version,
    }
}

/// A small org (written): region EU, country DE, location BER, department D1, warehouses W1, W2.
pub async fn org(table: &Table) {
    use model::hr::{Country, Department, Location, Region, Warehouse};
    store::hr::put_reference(
        table,
        &Region {
            region_id: id("EU"),
            name: "Europe".into(),
        },
    )
    .await
    .expect("a region");
    store::hr::put_reference(
        table,
        &Country {
            country_id: id("DE"),
            name: "Germany".into(),
            region_id: id("EU"),
        },
    )
    .await
    .expect("a country");
    store::hr::put_reference(
        table,
        &Location {
            location_id: id("BER"),
            name: "Berlin".into(),
            country_id: id("DE"),
        },
    )
    .await
    .expect("a location");
    store::hr::put_reference(
        table,
        &Department {
            department_id: id("D1"),
            name: "Sales".into(),
            location_id: id("BER"),
        },
    )
    .await
    .expect("a department");
    for w in ["W1", "W2"] {
        store::hr::put_reference(
            table,
            &Warehouse {
                warehouse_id: id(w),
                name: format!("Warehouse {w}"),
                region_id: id("EU"),
            },
        )
        .await
        .expect("a warehouse");
    }
}

/// An employee (written) of warehouse W1, hired 2024-01-15 (needs [`org`]).
pub async fn employee(table: &Table, employee: &str, name: &str) {
    let input = store::hr::EmployeeInput {
        employee_id: id(employee),
        name: keys::Name::parse("name", name).expect("a valid test name"),
        hire_date: Date::parse_iso("2024-01-15").expect("a date"),
        warehouse_id: Some(id("W1")),
    };
    store::hr::put_employee(table, &input)
        .await
        .expect("an employee");
}

/// A job held (not written) in department D1.
pub fn job(employee: &str, job: &str, start: &str) -> model::hr::JobHistory {
    model::hr::JobHistory {
        employee_id: id(employee),
        job_id: id(job),
        department_id: id("D1"),
        start_date: Date::parse_iso(start).expect("a valid test date"),
    }
}

/// The job `job` (written, or replaced), titled as its id.
pub async fn job_record(table: &Table, job: &str) {
    let record = model::hr::Job {
        job_id: id(job),
        title: keys::Name::parse("title", job).expect("a valid title"),
    };
    store::hr::put_reference(table, &record)
        .await
        .expect("a job");
}

/// `employee` holds `job` (written, with the job itself: [`job_record`]) from `start`, in
/// department D1 (needs [`org`] and the employee).
pub async fn add_job(table: &Table, employee: &str, job: &str, start: &str) {
    job_record(table, job).await;
    let added = store::hr::add_job(table, &self::job(employee, job, start))
        .await
        .expect("a job added");
    assert!(
        matches!(added, store::hr::JobAdded::Added { .. }),
        "{added:?}"
    );
}

/// A product named after its SKU, without a price (written).
pub async fn product(table: &Table, n: u64) -> Sku {
    put_product(table, n, None).await
}

/// A product named after its SKU, priced at `cents` USD (written).
pub async fn priced_product(table: &Table, n: u64, cents: i64) -> Sku {
    let price = store::products::Price {
        cents,
        currency: "USD".into(),
    };
    put_product(table, n, Some(&price)).await
}

async fn put_product(table: &Table, n: u64, price: Option<&store::products::Price>) -> Sku {
    store::products::put_product(
        table,
        sku(n),
        &format!("Product {n}"),
        None,
        price,
        at(1_790_000_000_000),
    )
    .await
    .expect("a product");
    sku(n)
}

/// `quantity` of product `n` in `warehouse` (written; needs [`org`] and [`product`]).
pub async fn inventory(table: &Table, n: u64, warehouse: &str, quantity: u32) {
    let stored = store::products::put_inventory(
        table,
        &model::commerce::Inventory {
            sku: sku(n),
            warehouse_id: id(warehouse),
            quantity,
            updated_at: at(1_790_000_000_000),
            version: 0,
        },
    )
    .await
    .expect("an inventory");
    assert!(
        matches!(stored, store::products::InventoryPut::Stored(_)),
        "product {n} and warehouse {warehouse} exist"
    );
}
