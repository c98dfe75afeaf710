//! The write-ups' own example rows, so the local stack answers at once:
//! - Good's data-modeling post: customer 123 and its orders of 2020-11-25, 2020-12-01 and
//!   2020-12-06 (order ids are the first ULIDs of those dates, so they are the same on every
//!   machine), plus a tracking event;
//! - Naylor's post: Pete's cart (coffee, veggies and chocolates);
//! - Pernin's introduction: two books, two users and three reviews, on its review dates (a user
//!   reviews a book once, so three reviews need two books);
//! - Walch's talk: the course occurrence "Intro to DynamoDB" of 2022-03-15 in Building 1 and David
//!   Spurdy's completion certificate (instructor Tyler Walch), in the talk's v01 keys.
//!
//! - AWS's relational example (HR): region EU, country DE, location BER, department SALES,
//!   warehouses W1 and W2, and employee E100 (Ada Lovelace, warehouse W1), a sales clerk promoted
//!   to sales representative;
//! - AWS's relational example (order entry): E100 is customer 123's account rep (so its orders are
//!   E100's), and the products of its order lines are stocked in W1 and W2.
//!
//! `make seed` then loads a realistic org on top ([`crate::org`]).
//!
//! Loading twice changes nothing: every write is an upsert or refuses to overwrite.

use ::commerce::data::{self as commerce, NewOrder, PlaceOutcome};
use ::learning::data::{self as learning, Issued};
use ::reviews::data::{self as reviews, NewReview, PutReviewOutcome};
use keys::indexes::IndexDesign;
use keys::learning::{CertType, CertVersion, Course, Location, Name};
use keys::{
    Date, Id, SortableId, Timestamp,
    commerce::{EventId, OrderStatus, Sku},
    reviews::Isbn,
};
use model::{
    commerce::{CartLine, TrackingEvent},
    learning::{Certificate, CourseOccurrence},
};
use store::{StoreError, Table};

use crate::layout::Tables;

pub const CUSTOMER: &str = "123";
/// Customer 123's account rep (an employee of the HR seed).
pub const REP: &str = "E100";
/// The SKUs of the seed orders' lines: (sku, name, stock in W1, stock in W2).
pub const PRODUCTS: [(u64, &str, u32, u32); 4] = [
    (42, "Ground coffee, 500 g", 120, 30),
    (1001, "Espresso cups, set of 4", 12, 0),
    (1002, "Milk frother", 5, 9),
    (1003, "Coffee grinder", 3, 2),
];
/// The seed orders' prices, in US cents: what their lines were placed at.
pub const PRICES: [(u64, i64); 4] = [(42, 499), (1001, 1250), (1002, 1250), (1003, 1250)];
pub const ORDER_DATES: [&str; 3] = ["2020-11-25", "2020-12-01", "2020-12-06"];
pub const CART: &str = "petes-cart";
pub const CART_LINES: [(&str, u32); 3] = [("coffee", 2), ("veggies", 1), ("chocolates", 5)];
/// The books of Pernin's introduction: ISBN, title, author, publication year.
pub const BOOKS: [(&str, &str, &str, i32); 2] = [
    (
        "9780261102354",
        "The Fellowship of the Ring",
        "J.R.R. Tolkien",
        1954,
    ),
    ("9780261102361", "The Two Towers", "J.R.R. Tolkien", 1954),
];
/// The users of Pernin's introduction and their membership dates.
pub const USERS: [(&str, &str); 2] = [("frodo", "2000-09-29"), ("sam", "2001-01-15")];
/// The reviews of Pernin's introduction: ISBN, username, grade, text, date (ms;
/// 2001-08-05T02:46:00Z and 2002-08-05T02:46:00Z are the introduction's own).
pub const REVIEWS: [(&str, &str, u8, &str, u64); 3] = [
    ("9780261102354", "frodo", 10, "Must read.", 996_979_560_000),
    ("9780261102361", "frodo", 5, "Fantastic", 1_028_515_560_000),
    (
        "9780261102354",
        "sam",
        8,
        "A long walk, well told.",
        1_047_666_600_000,
    ),
];

fn id(s: &str) -> Id {
    Id::parse("seed id", s).expect("seed ids are valid")
}

fn at(ms: u64) -> Timestamp {
    Timestamp::from_ms(ms).expect("seed instants are before 9999")
}

fn sku(n: u64) -> Sku {
    Sku::new(n).expect("seed SKUs are valid")
}

/// The order id of a seed order date.
pub fn order_id(date: &str) -> SortableId {
    let ms = Date::parse_iso(date)
        .expect("seed dates are valid")
        .start_ms();
    SortableId::floor(ms as u64)
}

pub(crate) fn already_there(e: &StoreError) -> bool {
    matches!(e, StoreError::TransactionCanceled(r) if r.iter().any(|r| r == "ConditionalCheckFailed"))
}

/// Loads the seed rows into one table; returns how many items were new.
pub async fn load(table: &Table) -> Result<usize, StoreError> {
    load_into(&Tables::one(table)).await
}

/// Loads the seed rows, each into its context's table; returns how many items were new. Users
/// and reviews are written as the local stack's index design writes them (`INDEX_DESIGN`, as the
/// Makefile passes it).
pub async fn load_into(tables: &Tables) -> Result<usize, StoreError> {
    load_into_as(tables, store::index_design_from_env()?).await
}

/// [`load_into`] as `design` writes users and reviews.
pub async fn load_into_as(tables: &Tables, design: IndexDesign) -> Result<usize, StoreError> {
    // The org first: customer 123's account rep is one of its employees.
    let mut written = load_hr(&tables.hr).await?;
    let table = &tables.commerce;
    let customer = id(CUSTOMER);
    let put = commerce::put_customer(
        table,
        &tables.hr,
        &customer,
        "Customer 123",
        "customer123@example.com",
        commerce::RepChange::Assign(id(REP)),
        Timestamp::parse("2020-11-01T00:00:00.000Z").expect("valid"),
    )
    .await?;
    written += usize::from(matches!(put, commerce::CustomerPut::Stored(_, true)));

    for (i, date) in ORDER_DATES.iter().enumerate() {
        let order_id = order_id(date);
        let order = NewOrder {
            customer: customer.clone(),
            order_id,
            created_at: at(order_id.timestamp_ms()),
            lines: vec![
                (sku(1001 + i as u64), 1 + i as u32, 1250),
                (sku(42), 1, 499),
            ],
            // The local stack's design (ORDER_STATUS_KEYS, as the Makefile passes it).
            design: commerce::OrderDesign {
                status_keys: commerce::StatusKeys::from_env()?,
                index_design: design,
                ..Default::default()
            },
        };
        match ::commerce::fixtures::place_order_in(table, &order, "USD").await {
            Ok(PlaceOutcome::Placed) => written += 4,
            Ok(other) => {
                return Err(StoreError::Corrupt(format!(
                    "seeding order {date}: {other:?}"
                )));
            }
            Err(e) if already_there(&e) => {}
            Err(e) => return Err(e),
        }
    }

    let last = order_id(ORDER_DATES[2]);
    let event: EventId = SortableId::floor(last.timestamp_ms() + 3_600_000);
    let record = TrackingEvent {
        order_id: last,
        event_id: event,
        status: OrderStatus::Processing,
        note: Some("Payment received".into()),
        at: at(event.timestamp_ms()),
    };
    match ::commerce::fixtures::add_tracking_event(table, &record).await {
        Ok(_) => written += 1,
        Err(e) if already_there(&e) => {}
        Err(e) => return Err(e),
    }

    for (product, quantity) in CART_LINES {
        let line = CartLine {
            cart_id: id(CART),
            product_id: id(product),
            quantity,
            updated_at: Timestamp::parse("2022-12-15T00:00:00.000Z").expect("valid"),
            version: 0,
        };
        // Added only: a rerun keeps the line there (and its version) as it is.
        match commerce::set_cart_line(table, &line, Some(0)).await? {
            commerce::CartLineSet::Stored(_) | commerce::CartLineSet::VersionMismatch(_) => {}
            full => {
                return Err(StoreError::Corrupt(format!(
                    "seeding cart line {product}: {full:?}"
                )));
            }
        }
    }

    written += load_products(table, &tables.hr, design).await?;
    written += load_reviews(&tables.reviews, design).await?;
    written += load_learning(&tables.learning).await?;
    Ok(written)
}

/// The products of the seed orders' lines, each stocked in W1 and W2 (`hr`: where the
/// warehouses are).
async fn load_products(
    table: &Table,
    hr: &Table,
    design: IndexDesign,
) -> Result<usize, StoreError> {
    use ::commerce::data::products::{self as products, InventoryPut};
    let mut written = 0;
    for (n, name, w1, w2) in PRODUCTS {
        let price = PRICES
            .iter()
            .find(|(p, _)| *p == n)
            .map(|(_, cents)| products::Price {
                cents: *cents,
                currency: "USD".into(),
            });
        let (_, created) = products::put_product(
            table,
            sku(n),
            name,
            None,
            price.as_ref(),
            Timestamp::parse("2020-11-01T00:00:00.000Z").expect("valid"),
        )
        .await?;
        written += usize::from(created);
        for (warehouse, quantity) in [("W1", w1), ("W2", w2)] {
            let stock = model::commerce::Inventory {
                sku: sku(n),
                warehouse_id: id(warehouse),
                quantity,
                updated_at: Timestamp::parse("2020-11-01T00:00:00.000Z").expect("valid"),
                version: 0,
            };
            // Created only: a rerun keeps the stock there (and its version) as it is.
            match products::set_inventory(table, hr, design, &stock, Some(0))
                .await?
                .0
            {
                InventoryPut::Stored(created) => written += usize::from(created),
                InventoryPut::VersionMismatch(_) => {}
                other => {
                    return Err(StoreError::Corrupt(format!(
                        "seeding inventory {n} in {warehouse}: {other:?}"
                    )));
                }
            }
        }
    }
    Ok(written)
}

/// A small org (the HR half of AWS's relational example): a region, a country, a location, a
/// department, two warehouses, three jobs, and employee `E100` (Ada Lovelace, of warehouse W1)
/// who was a sales clerk and is now a sales representative.
async fn load_hr(table: &Table) -> Result<usize, StoreError> {
    use ::hr::data::{self as hr, EmployeeInput, JobAdded, Put};
    use model::hr::{Country, Department, Location as Office, Region, Warehouse};
    let mut written = 0;
    let mut count = |p: Put<()>| written += usize::from(matches!(p, Put::Created(_)));
    count(
        hr::put_reference(
            table,
            &Region {
                region_id: id("EU"),
                name: "Europe".into(),
            },
        )
        .await?,
    );
    count(
        hr::put_reference(
            table,
            &Country {
                country_id: id("DE"),
                name: "Germany".into(),
                region_id: id("EU"),
            },
        )
        .await?,
    );
    count(
        hr::put_reference(
            table,
            &Office {
                location_id: id("BER"),
                name: "Berlin".into(),
                country_id: id("DE"),
            },
        )
        .await?,
    );
    count(
        hr::put_reference(
            table,
            &Department {
                department_id: id("SALES"),
                name: "Sales".into(),
                location_id: id("BER"),
            },
        )
        .await?,
    );
    for (w, name) in [("W1", "Spandau"), ("W2", "Tegel")] {
        count(
            hr::put_reference(
                table,
                &Warehouse {
                    warehouse_id: id(w),
                    name: name.into(),
                    region_id: id("EU"),
                },
            )
            .await?,
        );
    }
    let employee = EmployeeInput {
        employee_id: id("E100"),
        name: Name::parse("name", "Ada Lovelace").expect("valid"),
        hire_date: Date::parse_iso("2024-01-15").expect("valid"),
        warehouse_id: Some(id("W1")),
    };
    if hr::employee(table, &employee.employee_id, true)
        .await?
        .is_none()
    {
        hr::put_employee(table, &employee).await?;
        written += 1;
    }
    // A job no one holds yet (the one the add-employee-job example gives E100).
    let manager = model::hr::Job {
        job_id: id("SA_MAN"),
        title: Name::parse("title", "Sales Manager").expect("valid"),
    };
    let put = hr::put_reference(table, &manager).await?;
    written += usize::from(matches!(put, Put::Created(_)));
    for (job, title, start) in [
        ("SA_CLERK", "Sales Clerk", "2024-01-15"),
        ("SA_REP", "Sales Representative", "2025-03-01"),
    ] {
        let record = model::hr::Job {
            job_id: id(job),
            title: Name::parse("title", title).expect("valid"),
        };
        let put = hr::put_reference(table, &record).await?;
        written += usize::from(matches!(put, Put::Created(_)));
        let job = model::hr::JobHistory {
            employee_id: employee.employee_id.clone(),
            job_id: id(job),
            department_id: id("SALES"),
            start_date: Date::parse_iso(start).expect("valid"),
        };
        if let JobAdded::Added { .. } = hr::add_job(table, &job).await? {
            written += 1;
        }
    }
    Ok(written)
}

/// The course occurrence and certificate of Walch's talk, the certificate as the talk writes it:
/// entity v01 (`make migrate` moves it to v02; a later load does not bring the v01 back).
async fn load_learning(table: &Table) -> Result<usize, StoreError> {
    let occurrence = CourseOccurrence {
        course_name: Course::parse("Intro to DynamoDB").expect("valid"),
        start_date: Date::parse_iso("2022-03-15").expect("valid"),
        location: Location::parse("Building 1").expect("valid"),
        course_type: "DevChat".into(),
    };
    let mut written = usize::from(learning::create_occurrence(table, &occurrence).await?);
    let certificate = Certificate {
        cert_name: occurrence.course_name.clone(),
        issued_date: occurrence.start_date,
        location: occurrence.location.clone(),
        student: Name::parse("student", "David Spurdy").expect("valid"),
        cert_type: CertType::Completion,
        instructor: Name::parse("instructor", "Tyler Walch").expect("valid"),
        entity_version: CertVersion::V1,
    };
    match learning::issue_certificate(table, &certificate).await? {
        Issued::Issued => written += 1,
        Issued::AlreadyHeld => {}
        Issued::CourseNotFound => {
            return Err(StoreError::Corrupt("seed 001's course vanished".into()));
        }
    }
    Ok(written)
}

/// The books, users and reviews of Pernin's introduction. Books and users are upserts; a review is
/// written only if its user has none of its book yet (an existing one is left as it is, not
/// re-dated).
async fn load_reviews(table: &Table, design: IndexDesign) -> Result<usize, StoreError> {
    let mut written = 0;
    for (isbn, title, author, year) in BOOKS {
        let isbn = Isbn::parse(isbn).expect("seed ISBNs are valid");
        let (_, created) = reviews::put_book(table, &isbn, title, author, year).await?;
        written += usize::from(created);
    }
    for (user, since) in USERS {
        let since = Date::parse_iso(since).expect("seed dates are valid");
        let (_, created) = reviews::put_user(table, design, &id(user), Some(since), since).await?;
        written += usize::from(created);
    }
    for (isbn, user, grade, text, at_ms) in REVIEWS {
        let isbn = Isbn::parse(isbn).expect("seed ISBNs are valid");
        if reviews::current_review(table, &id(user), &isbn)
            .await?
            .is_some()
        {
            continue;
        }
        let review = NewReview {
            isbn,
            user: id(user),
            grade,
            text: text.into(),
            at: at(at_ms),
        };
        match reviews::put_review(table, design, &review).await? {
            PutReviewOutcome::Created(_) => written += 2,
            PutReviewOutcome::Updated(_) => {}
            other => {
                return Err(StoreError::Corrupt(format!(
                    "seeding the review of {} by {user}: {other:?}",
                    review.isbn
                )));
            }
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items by key, without their revision (an upsert counts its writes).
    fn without_versions(mut items: Vec<model::Item>) -> Vec<model::Item> {
        for i in &mut items {
            i.remove(model::attr::REVISION);
        }
        items
    }

    #[tokio::test]
    async fn loading_twice_changes_nothing_and_seed_002_is_there() {
        let table = devkit::table().await;
        load(&table).await.unwrap();
        let first = devkit::all_items(&table).await;
        assert_eq!(
            load(&table).await.unwrap(),
            0,
            "nothing new the second time"
        );
        assert_eq!(
            without_versions(devkit::all_items(&table).await),
            without_versions(first.clone())
        );
        let count = |ty: &str| {
            first
                .iter()
                .filter(|i| i["Type"].as_s().unwrap() == ty)
                .count()
        };
        assert_eq!(
            (
                count("Book"),
                count("User"),
                count("Review"),
                count("ReviewMarker")
            ),
            (BOOKS.len(), USERS.len(), REVIEWS.len(), REVIEWS.len())
        );
        assert!(first.iter().any(|i| {
            i["PK"].as_s().unwrap() == "BOOK#9780261102354"
                && i["SK"].as_s().unwrap() == "2001-08-05T02:46:00.000Z#USER#frodo"
        }));
    }
}
