//! Load through the local stack, then the drift check: 500 reviews of 20 books by 50 users, 200
//! orders over 10 products by customers of 5 account reps, 100 inventory changes, promotions and
//! status changes (cancellations among them), sent concurrently over HTTP to the real binaries;
//! once the local stream poller
//! has drained, every derived value must match a recomputation from the source items (`make
//! reconcile`'s check): counters, total inventories, reps' quarterly totals and ranking keys,
//! statuses and the status keys of GSI1 and GSI2.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::stack::{Stack, http, start_stack};

/// A valid ISBN-13 (978 prefix) numbered `n`.
pub(crate) fn isbn13(n: u32) -> String {
    let body = format!("978{n:09}");
    let sum: u32 = body
        .bytes()
        .enumerate()
        .map(|(i, b)| u32::from(b - b'0') * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    format!("{body}{}", (10 - sum % 10) % 10)
}

/// Sends every request with at most `parallel` in flight, as its path's owner (or staff);
/// returns the statuses.
async fn send_all(
    stack: &Stack,
    parallel: usize,
    requests: Vec<(String, String, String)>,
) -> Vec<u16> {
    let requests = requests
        .into_iter()
        .map(|(method, path, body)| {
            let auth = stack.bearer_for(&path);
            (method, path, body, auth)
        })
        .collect();
    send_with(stack, parallel, requests)
        .await
        .into_iter()
        .map(|(status, _)| status)
        .collect()
}

/// A new item's `PUT` answered: 201, or 200 when the client sent it again after a 503 and the
/// first attempt had created it (docs/errors.md: a `PUT` sent again sets the same state).
fn created(status: u16) -> bool {
    status == 201 || status == 200
}

/// Sends every request as staff; returns the statuses and bodies.
async fn send_as_staff(
    stack: &Stack,
    parallel: usize,
    requests: Vec<(String, String, String)>,
) -> Vec<(u16, Value)> {
    let staff = stack.bearer("staff-1", &["staff"]);
    let requests = requests
        .into_iter()
        .map(|(method, path, body)| (method, path, body, staff.clone()))
        .collect();
    send_with(stack, parallel, requests).await
}

async fn send_with(
    stack: &Stack,
    parallel: usize,
    requests: Vec<(String, String, String, String)>,
) -> Vec<(u16, Value)> {
    let limit = Arc::new(Semaphore::new(parallel));
    let port = stack.port;
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|(method, path, body, auth)| {
            let limit = limit.clone();
            tokio::spawn(async move {
                let _permit = limit.acquire_owned().await.expect("open semaphore");
                let (status, _, body) = crate::stack::http_as_client(
                    port,
                    &method,
                    &path,
                    Some(&body),
                    &[("authorization", &auth)],
                )
                .await;
                (status, body)
            })
        })
        .collect();
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.expect("request task"));
    }
    answers
}

fn request(
    method: &str,
    path: impl Into<String>,
    body: impl Into<String>,
) -> (String, String, String) {
    (method.into(), path.into(), body.into())
}

/// Waits until the local stream consumers have applied every change (three reads in a row).
pub async fn drained(stack: &Stack, within: Duration) -> Value {
    let start = Instant::now();
    let mut consecutive = 0;
    loop {
        let (status, _, body) = http(stack.port, "GET", "/_local/streams", None, &[]).await;
        assert_eq!(status, 200, "{body}");
        consecutive = if body["drained"] == true {
            consecutive + 1
        } else {
            0
        };
        if consecutive >= 3 {
            return body;
        }
        assert!(
            start.elapsed() < within,
            "streams did not drain in {within:?}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_load_then_zero_drift() {
    let stack = start_stack().await;
    let started = Instant::now();
    // The org first, in dependency order: reference data, 5 reps, 10 products in 2 warehouses.
    let org = [
        vec![request("PUT", "/regions/EU", r#"{"name":"Europe"}"#)],
        vec![request(
            "PUT",
            "/countries/DE",
            r#"{"name":"Germany","regionId":"EU"}"#,
        )],
        vec![request(
            "PUT",
            "/locations/BER",
            r#"{"name":"Berlin","countryId":"DE"}"#,
        )],
        vec![
            request(
                "PUT",
                "/departments/SALES",
                r#"{"name":"Sales","locationId":"BER"}"#,
            ),
            request(
                "PUT",
                "/warehouses/W1",
                r#"{"name":"Spandau","regionId":"EU"}"#,
            ),
            request(
                "PUT",
                "/warehouses/W2",
                r#"{"name":"Tegel","regionId":"EU"}"#,
            ),
            request("PUT", "/jobs/SA_REP", r#"{"title":"Sales Representative"}"#),
        ],
        (0..5)
            .map(|r| {
                request(
                    "PUT",
                    format!("/employees/R{r}"),
                    format!(
                        r#"{{"name":"Rep {r}","hireDate":"2024-01-0{}","warehouseId":"W1"}}"#,
                        r + 1
                    ),
                )
            })
            .chain((1..=10).map(|p| {
                request(
                    "PUT",
                    format!("/products/{p}"),
                    format!(
                        r#"{{"name":"Product {p}","price":{},"currency":"USD"}}"#,
                        100 * p
                    ),
                )
            }))
            .collect(),
    ];
    for step in org {
        let answers = send_as_staff(&stack, 16, step).await;
        assert!(answers.iter().all(|(s, _)| created(*s)), "{answers:?}");
    }
    let mut setup = Vec::new();
    for b in 0..20 {
        setup.push((
            "PUT".into(),
            format!("/books/{}", isbn13(b)),
            format!(
                r#"{{"title":"Book {b}","author":"Author {b}","publicationYear":{}}}"#,
                1950 + b
            ),
        ));
    }
    for u in 0..50 {
        setup.push((
            "PUT".into(),
            format!("/users/user{u}"),
            r#"{"membershipDate":"2020-01-01"}"#.into(),
        ));
    }
    let statuses = send_all(&stack, 16, setup).await;
    assert!(statuses.iter().all(|s| created(*s)), "{statuses:?}");
    // Customers with their reps (staff assign reps).
    let customers = (0..20)
        .map(|c| {
            request(
                "PUT",
                format!("/customers/load{c}"),
                format!(
                    r#"{{"name":"Load {c}","email":"load{c}@example.com","accountRepId":"R{}"}}"#,
                    c % 5
                ),
            )
        })
        .collect();
    let answers = send_as_staff(&stack, 16, customers).await;
    assert!(answers.iter().all(|(s, _)| created(*s)), "{answers:?}");

    // 500 reviews: each user reviews 10 different books; and 200 orders over 10 products, sent
    // interleaved and concurrently.
    let mut load = Vec::new();
    for i in 0..500u32 {
        let (user, book) = (i % 50, (i / 50 + i % 50) % 20);
        load.push((
            "PUT".into(),
            format!("/books/{}/reviews/user{user}", isbn13(book)),
            format!(r#"{{"grade":{},"text":"Review {i}"}}"#, 1 + i % 10),
        ));
        if i < 200 {
            let lines: Vec<String> = (0..1 + i % 3)
                .map(|l| format!(r#"{{"sku":{},"quantity":{}}}"#, 1 + (i + l) % 10, 1 + l))
                .collect();
            load.push((
                "POST".into(),
                format!("/customers/load{}/orders", i % 20),
                format!(r#"{{"items":[{}]}}"#, lines.join(",")),
            ));
        }
    }
    // Inventory changes meanwhile: 100 PUTs over 10 products × 2 warehouses, the same item
    // rewritten several times concurrently (its total must follow every change exactly once).
    let stock: Vec<_> = (0..100u32)
        .map(|i| {
            request(
                "PUT",
                format!("/products/{}/inventory/W{}", 1 + i % 10, 1 + i % 2),
                format!(r#"{{"quantity":{}}}"#, (i * 37) % 250),
            )
        })
        .collect();
    // 12 in flight: enough for every race above (a book's reviews, a product's inventories, a
    // rep's orders overlap), and few enough that the queue in front of one DynamoDB Local, shared
    // with the other tests on 2 cores, stays well inside a function's 10 s timeout (with 40 in
    // flight the median request waited 2.4-3 s, the slowest 6.4 s, and one exceeded 10 s on a
    // slower run).
    let (statuses, stock) =
        tokio::join!(send_all(&stack, 8, load), send_as_staff(&stack, 4, stock));
    let created = statuses.iter().filter(|s| **s == 201).count();
    assert_eq!(
        created, 700,
        "every review and order was created: {statuses:?}"
    );
    assert!(
        stock.iter().all(|(s, _)| *s == 200 || *s == 201),
        "{stock:?}"
    );

    // Then status changes and promotions, at once.
    let listed = send_as_staff(
        &stack,
        4,
        (0..5)
            .map(|r| {
                request(
                    "GET",
                    format!("/reps/R{r}/orders?from=2000-01-01&to=2100-01-01&limit=100"),
                    "",
                )
            })
            .collect(),
    )
    .await;
    let mut orders: Vec<String> = Vec::new();
    for (status, body) in &listed {
        assert_eq!(*status, 200, "{body}");
        for o in body["orders"].as_array().expect("orders") {
            orders.push(o["orderId"].as_str().expect("an id").to_owned());
        }
    }
    assert!(
        orders.len() > 100,
        "the reps' lists hold the orders: {}",
        orders.len()
    );
    // A third of the orders move on, some twice; another third are cancelled, which takes them
    // out of the customer's, the day's and the rep's sums, and half of those are taken back by a
    // concurrent event (whichever is newer wins, and the sums follow).
    let mut changes = Vec::new();
    for (i, order) in orders.iter().enumerate() {
        let statuses: &[&str] = match (i % 3, i % 2) {
            (0, 0) => &["PROCESSING", "SHIPPED"],
            (0, _) => &["PROCESSING"],
            (1, 0) => &["CANCELLED", "PROCESSING"],
            (1, _) => &["CANCELLED"],
            _ => &[],
        };
        for status in statuses {
            changes.push(request(
                "POST",
                format!("/orders/{order}/events"),
                format!(r#"{{"status":"{status}"}}"#),
            ));
        }
    }
    for r in 0..5 {
        changes.push(request(
            "POST",
            format!("/employees/R{r}/jobs"),
            r#"{"jobId":"SA_REP","departmentId":"SALES","startDate":"2025-01-01"}"#,
        ));
    }
    let answers = send_as_staff(&stack, 16, changes).await;
    assert!(answers.iter().all(|(s, _)| *s == 201), "{answers:?}");
    let sent_in = started.elapsed();

    let streams = drained(&stack, Duration::from_secs(300)).await;
    let drained_in = started.elapsed();
    let table = store::Table::new(devkit::client(), stack.table.clone());
    let report = tools::reconcile::run(&table).await.expect("reconcile");
    eprintln!(
        "load: about 1,100 requests sent in {sent_in:?}, streams drained at {drained_in:?}; {report}streams: {streams}"
    );
    assert!(report.checked > 0);
    assert!(report.drift.is_empty(), "{report}");

    // The cancellations took effect: the customers' counts are the orders that are still sales.
    use model::{
        Entity,
        commerce::{Customer, Order, OrderSummary},
    };
    let text = |i: &model::Item, a: &str| i.get(a).and_then(|v| v.as_s().ok()).cloned();
    let items = testkit::all_items(&table).await;
    let loaded = |t: &'static str, id: &'static str| {
        items.iter().filter(move |i| {
            model::type_of(i) == Some(t) && text(i, id).is_some_and(|c| c.starts_with("load"))
        })
    };
    let summaries = loaded(OrderSummary::TYPE, Order::CUSTOMER_ID).count();
    let sales = loaded(OrderSummary::TYPE, Order::CUSTOMER_ID)
        .filter(|i| text(i, Order::STATUS).as_deref() != Some("CANCELLED"))
        .count();
    let counted: usize = loaded(Customer::TYPE, Customer::CUSTOMER_ID)
        .filter_map(|i| {
            i.get(Customer::ORDER_COUNT)?
                .as_n()
                .ok()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert!(
        sales < summaries,
        "some orders are cancelled: {sales} sales of {summaries}"
    );
    assert_eq!(counted, sales, "the customers count the orders still sold");
}
