//! `make seed`'s realistic org (after AWS's relational example), on top of the write-ups' own rows
//! ([`crate::seed`]): three regions with their countries, locations, departments and warehouses; 30
//! employees with job histories (promotions included), five of them account reps with four
//! customers each; products stocked in several warehouses; a few hundred orders over two quarters,
//! some of them moved on by tracking events. Everything is drawn from a fixed-seed generator, so
//! every machine gets the same org, and loading twice changes nothing.

use crate::{Draw, layout::Tables};
use ::commerce::data::products::{self as products, InventoryPut};
use ::commerce::data::{self as commerce, CustomerPut, NewOrder, PlaceOutcome, RepChange};
use ::hr::data::{self as hr, EmployeeInput, JobAdded, Put};
use keys::indexes::IndexDesign;
use keys::{
    Date, Id, SortableId, Timestamp,
    commerce::{OrderStatus, Sku},
    learning::Name,
};
use model::{
    commerce::{Inventory, TrackingEvent},
    hr::{Country, Department, Job, JobHistory, Location, Region, Warehouse},
};
use store::{StoreError, Table};

pub const REGIONS: [(&str, &str); 3] =
    [("EU", "Europe"), ("AM", "Americas"), ("AP", "Asia Pacific")];
/// (country, name, region).
pub const COUNTRIES: [(&str, &str, &str); 6] = [
    ("DE", "Germany", "EU"),
    ("FR", "France", "EU"),
    ("US", "United States", "AM"),
    ("CA", "Canada", "AM"),
    ("JP", "Japan", "AP"),
    ("AU", "Australia", "AP"),
];
/// (location, name, country).
pub const LOCATIONS: [(&str, &str, &str); 6] = [
    ("BER", "Berlin", "DE"),
    ("PAR", "Paris", "FR"),
    ("SEA", "Seattle", "US"),
    ("TOR", "Toronto", "CA"),
    ("TYO", "Tokyo", "JP"),
    ("SYD", "Sydney", "AU"),
];
/// (department, name, location).
pub const DEPARTMENTS: [(&str, &str, &str); 4] = [
    ("SALES", "Sales", "BER"),
    ("SHIPPING", "Shipping", "SEA"),
    ("IT", "IT", "TYO"),
    ("FINANCE", "Finance", "PAR"),
];
/// (warehouse, name, region).
pub const WAREHOUSES: [(&str, &str, &str); 5] = [
    ("W1", "Spandau", "EU"),
    ("W2", "Tegel", "EU"),
    ("W3", "Kent", "AM"),
    ("W4", "Mississauga", "AM"),
    ("W5", "Chiba", "AP"),
];
/// Jobs: (first job, its title, promotion, its title, department).
const CAREERS: [(&str, &str, &str, &str, &str); 4] = [
    (
        "SA_CLERK",
        "Sales Clerk",
        "SA_REP",
        "Sales Representative",
        "SALES",
    ),
    (
        "SH_CLERK",
        "Shipping Clerk",
        "ST_MAN",
        "Stock Manager",
        "SHIPPING",
    ),
    ("IT_PROG", "Programmer", "IT_LEAD", "Lead Programmer", "IT"),
    (
        "FI_ACCOUNT",
        "Accountant",
        "FI_MGR",
        "Finance Manager",
        "FINANCE",
    ),
];
const FIRST: [&str; 10] = [
    "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Ken", "Frances", "John", "Radia",
];
const LAST: [&str; 10] = [
    "Hopper", "Kay", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Thompson", "Allen", "Backus",
    "Perlman",
];
/// Employees E100..E129; E100 is the seeds' own (Ada Lovelace).
pub const EMPLOYEES: u32 = 30;
/// The account reps: the first five employees, all sales representatives.
pub const REPS: [&str; 5] = ["E100", "E101", "E102", "E103", "E104"];
pub const CUSTOMERS_PER_REP: usize = 4;
/// Products 2001..=2012 (the seeds' own are 42 and 1001..=1003).
pub const PRODUCTS: u64 = 12;
pub const ORDERS: u64 = 300;
/// Orders are placed over 2026-Q3 and 2026-Q4 up to 2026-11-20.
const ORDERS_FROM: &str = "2026-07-01";
const ORDERS_DAYS: u64 = 143;

/// What was loaded (new items only on a second run: none).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Loaded {
    pub references: usize,
    pub employees: usize,
    pub jobs: usize,
    pub customers: usize,
    pub products: usize,
    pub inventories: usize,
    pub orders: usize,
    pub events: usize,
}

fn id(s: &str) -> Id {
    Id::parse("org id", s).expect("org ids are valid")
}

fn date(iso: &str) -> Date {
    Date::parse_iso(iso).expect("org dates are valid")
}

fn employee_id(n: u32) -> Id {
    id(&format!("E{}", 100 + n))
}

pub fn customer_id(rep: usize, n: usize) -> Id {
    id(&format!("C{}{:02}", rep + 1, n + 1))
}

fn created(p: Put<()>) -> usize {
    usize::from(matches!(p, Put::Created(_)))
}

/// Loads the org; call after [`crate::seed::load`] (E100 and W1/W2 are the seeds').
pub async fn load(table: &Table) -> Result<Loaded, StoreError> {
    load_with(table, ORDERS).await
}

/// [`load`] with the first `orders` of its orders only (the same ones).
pub async fn load_with(table: &Table, orders: u64) -> Result<Loaded, StoreError> {
    load_into(&Tables::one(table), orders).await
}

/// [`load_with`], each item into its context's table (HR's or commerce's); order lines and
/// inventories as the local stack's index design writes them (`INDEX_DESIGN`, as the Makefile
/// passes it).
pub async fn load_into(tables: &Tables, orders: u64) -> Result<Loaded, StoreError> {
    load_into_as(tables, orders, store::index_design_from_env()?).await
}

/// [`load_into`] as `design` writes order lines and inventories.
pub async fn load_into_as(
    tables: &Tables,
    orders: u64,
    design: IndexDesign,
) -> Result<Loaded, StoreError> {
    let mut loaded = Loaded::default();
    let mut draw = Draw(2026);
    for (r, name) in REGIONS {
        let record = Region {
            region_id: id(r),
            name: name.into(),
        };
        loaded.references += created(hr::put_reference(&tables.hr, &record).await?);
    }
    for (c, name, region) in COUNTRIES {
        let record = Country {
            country_id: id(c),
            name: name.into(),
            region_id: id(region),
        };
        loaded.references += created(hr::put_reference(&tables.hr, &record).await?);
    }
    for (l, name, country) in LOCATIONS {
        let record = Location {
            location_id: id(l),
            name: name.into(),
            country_id: id(country),
        };
        loaded.references += created(hr::put_reference(&tables.hr, &record).await?);
    }
    for (d, name, location) in DEPARTMENTS {
        let record = Department {
            department_id: id(d),
            name: name.into(),
            location_id: id(location),
        };
        loaded.references += created(hr::put_reference(&tables.hr, &record).await?);
    }
    for (w, name, region) in WAREHOUSES {
        let record = Warehouse {
            warehouse_id: id(w),
            name: name.into(),
            region_id: id(region),
        };
        loaded.references += created(hr::put_reference(&tables.hr, &record).await?);
    }
    for (first, first_title, next, next_title, _) in CAREERS {
        for (job, title) in [(first, first_title), (next, next_title)] {
            let record = Job {
                job_id: id(job),
                title: Name::parse("title", title).expect("valid"),
            };
            loaded.references += created(hr::put_reference(&tables.hr, &record).await?);
        }
    }
    let table = &tables.commerce;
    load_employees(&tables.hr, &mut draw, &mut loaded).await?;
    load_customers(tables, &mut loaded).await?;
    load_products(tables, design, &mut draw, &mut loaded).await?;
    load_orders(table, design, &mut draw, orders, &mut loaded).await?;
    Ok(loaded)
}

/// E101..E129 (E100 is the seeds'), hired 2019 to 2026, each with a first job and, for about
/// half, a promotion; the reps are all sales representatives by now.
async fn load_employees(
    table: &Table,
    draw: &mut Draw,
    loaded: &mut Loaded,
) -> Result<(), StoreError> {
    for n in 1..EMPLOYEES {
        let employee = employee_id(n);
        let is_rep = REPS.contains(&employee.as_str());
        let hired = date(&format!(
            "{}-{:02}-{:02}",
            2019 + draw.below(7),
            1 + draw.below(12),
            1 + draw.below(28)
        ));
        let name = format!(
            "{} {}",
            FIRST[draw.below(10) as usize],
            LAST[draw.below(10) as usize]
        );
        let input = EmployeeInput {
            employee_id: employee.clone(),
            name: Name::parse("name", &name).expect("valid"),
            hire_date: hired,
            warehouse_id: Some(id(
                WAREHOUSES[draw.below(WAREHOUSES.len() as u64) as usize].0
            )),
        };
        if hr::employee(table, &employee, true).await?.is_none() {
            hr::put_employee(table, &input).await?;
            loaded.employees += 1;
        }
        let career = if is_rep {
            CAREERS[0]
        } else {
            CAREERS[draw.below(CAREERS.len() as u64) as usize]
        };
        let promoted = is_rep || draw.below(2) == 0;
        let (first, _, next, _, department) = career;
        let mut jobs = vec![(first, hired)];
        if promoted {
            let days = 200 + draw.below(500);
            let later =
                Timestamp::from_ms(hired.start_ms() as u64 + days * 86_400_000).expect("valid");
            jobs.push((next, later.date()));
        }
        for (job, start) in jobs {
            let record = JobHistory {
                employee_id: employee.clone(),
                job_id: id(job),
                department_id: id(department),
                start_date: start,
            };
            if let JobAdded::Added { .. } = hr::add_job(table, &record).await? {
                loaded.jobs += 1;
            }
        }
    }
    Ok(())
}

/// Four customers per rep, `C<rep><nn>`.
async fn load_customers(tables: &Tables, loaded: &mut Loaded) -> Result<(), StoreError> {
    let since = Timestamp::parse("2026-01-05T00:00:00.000Z").expect("valid");
    for (r, rep) in REPS.iter().enumerate() {
        for n in 0..CUSTOMERS_PER_REP {
            let customer = customer_id(r, n);
            let name = format!("Customer {customer}");
            let email = format!("{}@example.com", customer.as_str().to_lowercase());
            match commerce::put_customer(
                &tables.commerce,
                &tables.hr,
                &customer,
                &name,
                &email,
                RepChange::Assign(id(rep)),
                since,
            )
            .await?
            {
                CustomerPut::Stored(_, created) => loaded.customers += usize::from(created),
                CustomerPut::NoSuchRep => {
                    return Err(StoreError::Corrupt(format!(
                        "seeding customers: no employee {rep}"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Products 2001..=2012, each stocked in two to four warehouses.
async fn load_products(
    tables: &Tables,
    design: IndexDesign,
    draw: &mut Draw,
    loaded: &mut Loaded,
) -> Result<(), StoreError> {
    let table = &tables.commerce;
    let since = Timestamp::parse("2026-01-05T00:00:00.000Z").expect("valid");
    for n in 0..PRODUCTS {
        let sku = Sku::new(2001 + n).expect("valid");
        let name = format!("Product {}", sku.get());
        // Priced as the org's orders price their lines (500 to 20,400 cents): any is for sale.
        let price = products::Price {
            cents: 500 + 100 * (sku.get() as i64 % 200),
            currency: "USD".into(),
        };
        let (_, created) =
            products::put_product(table, sku, &name, None, Some(&price), since).await?;
        loaded.products += usize::from(created);
        let stocked = 2 + draw.below(3) as usize;
        let first = draw.below(WAREHOUSES.len() as u64) as usize;
        for k in 0..stocked {
            let warehouse = WAREHOUSES[(first + k) % WAREHOUSES.len()].0;
            let stock = Inventory {
                sku,
                warehouse_id: id(warehouse),
                quantity: draw.below(500) as u32,
                updated_at: since,
                version: 0,
            };
            // Created only: a rerun keeps the stock there (and its version) as it is.
            match products::set_inventory(table, &tables.hr, design, &stock, Some(0))
                .await?
                .0
            {
                InventoryPut::Stored(created) => loaded.inventories += usize::from(created),
                InventoryPut::VersionMismatch(_) => {}
                other => return Err(StoreError::Corrupt(format!("seeding inventory: {other:?}"))),
            }
        }
    }
    Ok(())
}

/// How many orders are written at once (the draws are made first, in order, so the org is the
/// same whatever order the writes finish in).
const IN_FLIGHT: usize = 8;

/// `orders` orders of the reps' customers over two quarters, one to three lines each; about a
/// third move on (processing, shipped, delivered, a few cancelled). Order and event ids are the
/// first ULIDs of their instants, so a second load finds them and writes nothing.
async fn load_orders(
    table: &Table,
    design: IndexDesign,
    draw: &mut Draw,
    orders: u64,
    loaded: &mut Loaded,
) -> Result<(), StoreError> {
    use futures::{StreamExt, TryStreamExt};
    let start = date(ORDERS_FROM).start_ms() as u64;
    let mut planned = Vec::new();
    for n in 0..orders {
        let ms = start + draw.below(ORDERS_DAYS * 86_400_000) / 1000 * 1000 + n;
        let customer = customer_id(
            draw.below(REPS.len() as u64) as usize,
            draw.below(CUSTOMERS_PER_REP as u64) as usize,
        );
        let mut lines: Vec<(Sku, u32, i64)> = Vec::new();
        for _ in 0..1 + draw.below(3) {
            let sku = Sku::new(2001 + draw.below(PRODUCTS)).expect("valid");
            if lines.iter().all(|(s, _, _)| *s != sku) {
                lines.push((
                    sku,
                    1 + draw.below(5) as u32,
                    500 + 100 * draw.below(200) as i64,
                ));
            }
        }
        let order_id = SortableId::floor(ms);
        let order = NewOrder {
            customer,
            order_id,
            created_at: Timestamp::from_ms(ms).expect("valid"),
            lines,
            // The local stack's design (ORDER_STATUS_KEYS, as the Makefile passes it).
            design: commerce::OrderDesign {
                status_keys: commerce::StatusKeys::from_env()?,
                index_design: design,
                ..Default::default()
            },
        };
        let path: &[OrderStatus] = match draw.below(9) {
            0 => &[OrderStatus::Processing],
            1 => &[OrderStatus::Processing, OrderStatus::Shipped],
            2 => &[
                OrderStatus::Processing,
                OrderStatus::Shipped,
                OrderStatus::Delivered,
            ],
            3 => &[OrderStatus::Cancelled],
            _ => &[],
        };
        let events: Vec<TrackingEvent> = path
            .iter()
            .enumerate()
            .map(|(k, status)| {
                let at_ms = ms + (k as u64 + 1) * 3_600_000;
                TrackingEvent {
                    order_id,
                    event_id: SortableId::floor(at_ms),
                    status: *status,
                    note: None,
                    at: Timestamp::from_ms(at_ms).expect("valid"),
                }
            })
            .collect();
        planned.push((order, events));
    }
    let counts: Vec<(usize, usize)> = futures::stream::iter(planned)
        .map(|(order, events)| async move {
            let mut placed = 0;
            match ::commerce::fixtures::place_order_in(table, &order, "USD").await {
                Ok(PlaceOutcome::Placed) => placed = 1,
                Ok(other) => {
                    return Err(StoreError::Corrupt(format!("seeding an order: {other:?}")));
                }
                Err(e) if already_there(&e) => {}
                Err(e) => return Err(e),
            }
            let mut added = 0;
            for event in &events {
                match ::commerce::fixtures::add_tracking_event(table, event).await {
                    Ok(_) => added += 1,
                    Err(e) if already_there(&e) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok((placed, added))
        })
        .buffer_unordered(IN_FLIGHT)
        .try_collect()
        .await?;
    loaded.orders += counts.iter().map(|c| c.0).sum::<usize>();
    loaded.events += counts.iter().map(|c| c.1).sum::<usize>();
    Ok(())
}

fn already_there(e: &StoreError) -> bool {
    crate::seed::already_there(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_org_loads_once_and_its_derived_values_can_be_made_exact() {
        let table = devkit::table().await;
        crate::seed::load(&table).await.unwrap();
        // A tenth of the orders: the repair below writes one correction at a time.
        let first = load_with(&table, ORDERS / 10).await.unwrap();
        // The seeds' own org has EU, DE, BER, SALES, W1 and W2, and the jobs SA_CLERK and SA_REP.
        assert_eq!(first.references, 3 + 6 + 6 + 4 + 5 + 8 - 6 - 2);
        assert_eq!(
            (
                first.employees,
                first.customers,
                first.products,
                first.orders
            ),
            (
                EMPLOYEES as usize - 1,
                REPS.len() * CUSTOMERS_PER_REP,
                PRODUCTS as usize,
                ORDERS as usize / 10
            )
        );
        assert!(first.jobs >= 2 * REPS.len() - 2 && first.events > 0 && first.inventories >= 24);
        assert_eq!(
            load_with(&table, ORDERS / 10).await.unwrap(),
            Loaded::default(),
            "a second load writes nothing"
        );

        // Loaded without the stream, nothing derived yet: two repairs derive it all, and the
        // ranking then lists each rep of a quarter once, highest total first. The first projects
        // the statuses behind their events and lets the sums wait (a status behind through its
        // wait says the consumers may lag); the second derives the sums, by the statuses now
        // stored (a cancelled order leaves them), as the stream would have.
        let mut statuses = Vec::new();
        for run in 0..2 {
            let scan = crate::reconcile::Scan::default();
            let (report, repaired) = crate::reconcile::repair(
                &table,
                &scan,
                &crate::reconcile::lag::Watch::local(),
                std::time::Duration::ZERO,
            )
            .await
            .unwrap();
            assert!(repaired.failed.is_empty(), "{repaired}");
            let waiting = repaired.deferred.iter().all(|d| d.ends_with("sums wait"));
            assert!(
                waiting && (run == 0 || repaired.deferred.is_empty()),
                "{repaired}"
            );
            assert_eq!(
                repaired.written + repaired.deferred.len(),
                report.drift.len()
            );
            statuses.push(repaired.statuses);
        }
        assert!(statuses[0] > 0 && statuses[1] == 0, "{statuses:?}");
        assert_eq!(crate::reconcile::run(&table).await.unwrap().drift, []);
        for quarter in ["2026-Q3", "2026-Q4"] {
            let period = keys::Quarter::parse(quarter).unwrap();
            let page = table
                .query(keys::commerce::rep_ranking(period))
                .backwards()
                .send_all()
                .await
                .unwrap()
                .decode::<model::commerce::RepSales>()
                .unwrap();
            let reps: Vec<_> = page.items.iter().map(|r| r.rep_id.to_string()).collect();
            assert_eq!(reps.len(), REPS.len(), "{quarter}: {reps:?}");
            let totals: Vec<i64> = page
                .items
                .iter()
                .map(|r| r.total.value().unwrap())
                .collect();
            assert!(
                totals.windows(2).all(|w| w[0] >= w[1]),
                "{quarter}: {totals:?}"
            );
        }
    }
}
