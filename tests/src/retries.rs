//! Every write safe to send twice, under faults. Clients send keyed writes (orders, inventory
//! adjustments, tracking events), each under a key of its own, and send each again with the same
//! key after every answer that is not final: the function's 503 (`unavailable`, `throttled`), API
//! Gateway's 500 for a function killed mid-request, as a client does with them (docs/errors.md).
//! Meanwhile DynamoDB Local is frozen (a write sent to it lands when it thaws, after the client
//! was told it failed), then stopped and started, and the three functions' processes are killed
//! again and again. Once every write has a final answer, the table holds exactly what the clients
//! were told: each accepted order once and no other, the stock moved by exactly the accepted
//! adjustments, each accepted event once; no answer was the function's own 500.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{
        Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::Duration,
};

use serde_json::Value;

use crate::{
    outage::OwnDynamoDbLocal,
    stack::{Stack, exchange, start_stack_on},
};

const CLIENTS: usize = 4;
const PRODUCTS: u64 = 3;
const START_STOCK: i64 = 1_000_000;
/// The functions whose processes are killed.
const KILLED: [&str; 3] = ["place-order", "adjust-inventory", "add-order-event"];

/// What the clients were told was done.
#[derive(Default)]
struct Told {
    /// Order ids, per customer.
    orders: BTreeMap<String, BTreeSet<String>>,
    /// The sum of the accepted deltas, per SKU.
    deltas: BTreeMap<u64, i64>,
    /// Event ids, per order.
    events: BTreeMap<String, BTreeSet<String>>,
}

/// How the answers went.
#[derive(Default)]
struct Answers {
    final_: AtomicUsize,
    retried_503: AtomicUsize,
    gateway_500: AtomicUsize,
    replayed: AtomicUsize,
    own_500: Mutex<Vec<String>>,
}

/// One request as sent, raw (API Gateway's 500 is no answer `openapi.yaml` documents, so the
/// checked client of the other tests would refuse it): its status, head and JSON body.
async fn send(stack: &Stack, path: &str, body: &str, key: &str) -> (u16, String, Value) {
    let auth = stack.bearer_for(path);
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nauthorization: {auth}\r\nidempotency-key: {key}\r\n\r\n{body}",
        body.len()
    );
    let (status, head, body) = exchange(stack.port, &request).await;
    (
        status,
        head,
        serde_json::from_str(&body).unwrap_or(Value::Null),
    )
}

/// Sends `body` to `path` under `key` until the answer is final, as a client does: again after
/// a 503 (after a pause) and after API Gateway's 500. The final status and body.
async fn until_final(
    stack: &Stack,
    path: &str,
    body: &str,
    key: &str,
    answers: &Answers,
) -> (u16, Value) {
    for _ in 0..600 {
        let (status, head, json) = send(stack, path, body, key).await;
        let code = json["code"].as_str().unwrap_or_default();
        match (status, code) {
            (503, _) => {
                answers.retried_503.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            (500, "") => {
                answers.gateway_500.fetch_add(1, Ordering::Relaxed);
            }
            (500, _) => {
                answers
                    .own_500
                    .lock()
                    .unwrap()
                    .push(format!("{path} {body}: {json}"));
                return (status, json);
            }
            _ => {
                if head
                    .to_ascii_lowercase()
                    .contains("idempotent-replayed: true")
                {
                    answers.replayed.fetch_add(1, Ordering::Relaxed);
                }
                answers.final_.fetch_add(1, Ordering::Relaxed);
                return (status, json);
            }
        }
    }
    panic!("{path} {body} under {key}: no final answer in 600 attempts");
}

async fn set_up(stack: &Stack) {
    let staff = stack.bearer("staff-1", &["staff"]);
    let mut steps: Vec<(String, String)> = vec![
        ("/regions/EU".into(), r#"{"name":"Europe"}"#.into()),
        (
            "/warehouses/W1".into(),
            r#"{"name":"Spandau","regionId":"EU"}"#.into(),
        ),
    ];
    for p in 1..=PRODUCTS {
        steps.push((
            format!("/products/{p}"),
            format!(
                r#"{{"name":"Product {p}","price":{},"currency":"USD"}}"#,
                100 * p
            ),
        ));
        steps.push((
            format!("/products/{p}/inventory/W1"),
            format!(r#"{{"quantity":{START_STOCK}}}"#),
        ));
    }
    for c in 0..CLIENTS {
        steps.push((
            format!("/customers/retry{c}"),
            format!(r#"{{"name":"Retry {c}","email":"retry{c}@example.com"}}"#),
        ));
    }
    for (path, body) in steps {
        let (status, _, json) = crate::stack::http(
            stack.port,
            "PUT",
            &path,
            Some(&body),
            &[("authorization", &staff)],
        )
        .await;
        assert_eq!(status, 201, "PUT {path}: {json}");
    }
}

/// One client's keyed writes until `stop`; each is sent until its answer is final, also after
/// `stop`.
async fn client(stack: &Stack, c: usize, stop: &AtomicBool, told: &Mutex<Told>, answers: &Answers) {
    let customer = format!("retry{c}");
    let mut orders: Vec<String> = Vec::new();
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let key = format!("k-{c}-{i}");
        match i % 3 {
            0 if !orders.is_empty() => {
                let order = orders[i % orders.len()].clone();
                let path = format!("/orders/{order}/events");
                let (status, json) =
                    until_final(stack, &path, r#"{"status":"PROCESSING"}"#, &key, answers).await;
                if status == 409 && json["code"] == "order_events_full" {
                    orders.retain(|o| *o != order);
                    continue;
                }
                assert_eq!(status, 201, "{path}: {json}");
                let event = json["eventId"].as_str().expect("an event id").to_owned();
                told.lock()
                    .unwrap()
                    .events
                    .entry(order)
                    .or_default()
                    .insert(event);
            }
            1 => {
                let sku = 1 + (i / 3) as u64 % PRODUCTS;
                let delta = if i % 2 == 0 { 3 } else { -2 };
                let path = format!("/products/{sku}/inventory/W1/adjustments");
                let (status, json) = until_final(
                    stack,
                    &path,
                    &format!(r#"{{"delta":{delta}}}"#),
                    &key,
                    answers,
                )
                .await;
                assert_eq!(status, 200, "{path}: {json}");
                *told.lock().unwrap().deltas.entry(sku).or_default() += delta;
            }
            _ => {
                let sku = 1 + (i / 3) as u64 % PRODUCTS;
                let path = format!("/customers/{customer}/orders");
                let body = format!(r#"{{"items":[{{"sku":{sku},"quantity":1}}]}}"#);
                let (status, json) = until_final(stack, &path, &body, &key, answers).await;
                assert_eq!(status, 201, "{path}: {json}");
                let order = json["orderId"].as_str().expect("an order id").to_owned();
                orders.push(order.clone());
                told.lock()
                    .unwrap()
                    .orders
                    .entry(customer.clone())
                    .or_default()
                    .insert(order);
            }
        }
    }
}

/// The ids (`id`) of the items of type `kind`, per parent (`parent`).
fn stored(
    items: &[model::Item],
    kind: &str,
    parent: &str,
    id: &str,
) -> BTreeMap<String, BTreeSet<String>> {
    let text = |i: &model::Item, a: &str| {
        i.get(a)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for item in items.iter().filter(|i| model::type_of(i) == Some(kind)) {
        found
            .entry(text(item, parent))
            .or_default()
            .insert(text(item, id));
    }
    found
}

/// What the table holds of `what` that the clients were not told of, and what they were told of
/// that it does not hold, per parent.
fn differences(
    what: &str,
    told: &BTreeMap<String, BTreeSet<String>>,
    stored: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let empty = BTreeSet::new();
    let parents: BTreeSet<&String> = told.keys().chain(stored.keys()).collect();
    let mut found = Vec::new();
    for parent in parents {
        let told = told.get(parent).unwrap_or(&empty);
        let stored = stored.get(parent).unwrap_or(&empty);
        for id in stored.difference(told) {
            found.push(format!("{what} of {parent}: {id} stored, never told"));
        }
        for id in told.difference(stored) {
            found.push(format!("{what} of {parent}: {id} told, not stored"));
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyed_writes_under_faults_take_effect_exactly_once() {
    let ddb = OwnDynamoDbLocal::start();
    let stack = start_stack_on(&ddb.endpoint()).await;
    set_up(&stack).await;
    let (stop, killed) = (AtomicBool::new(false), AtomicUsize::new(0));
    let (told, answers) = (Mutex::new(Told::default()), Answers::default());
    let kill = || {
        for function in KILLED {
            if stack.kill_instances(function) {
                killed.fetch_add(1, Ordering::Relaxed);
            }
        }
    };
    let traffic = async {
        let clients = (0..CLIENTS).map(|c| client(&stack, c, &stop, &told, &answers));
        futures::future::join_all(clients).await;
    };
    let faults = async {
        let pause = |s| tokio::time::sleep(Duration::from_secs(s));
        pause(4).await;
        kill();
        pause(3).await;
        // Frozen: writes sent now land when it thaws, after their clients heard otherwise.
        ddb.freeze();
        pause(3).await;
        kill();
        pause(6).await;
        ddb.thaw();
        pause(1).await;
        kill();
        pause(4).await;
        ddb.down();
        pause(6).await;
        ddb.up();
        pause(2).await;
        kill();
        pause(5).await;
        stop.store(true, Ordering::Relaxed);
    };
    tokio::join!(traffic, faults);

    let table = store::Table::new(devkit::client_at(&ddb.endpoint()), stack.table.clone());
    let items = devkit::all_items(&table).await;
    let told = told.into_inner().unwrap();
    let mut wrong = Vec::new();
    // Orders: exactly the ones the clients were told of, each once.
    let stored_orders = stored(&items, "OrderHeader", "CustomerId", "OrderId");
    wrong.extend(differences("orders", &told.orders, &stored_orders));
    // Stock: moved by exactly the accepted deltas.
    for sku in 1..=PRODUCTS {
        let stock = items
            .iter()
            .find(|i| {
                model::type_of(i) == Some("Inventory")
                    && i.get("Sku").and_then(|v| v.as_n().ok()).map(String::as_str)
                        == Some(&*sku.to_string())
            })
            .and_then(|i| i.get("Quantity")?.as_n().ok()?.parse::<i64>().ok());
        let expected = START_STOCK + told.deltas.get(&sku).copied().unwrap_or(0);
        if stock != Some(expected) {
            wrong.push(format!("product {sku}: stock {stock:?}, told {expected}"));
        }
    }
    // Events: each accepted one once, and no other.
    let stored_events = stored(&items, "TrackingEvent", "OrderId", "EventId");
    wrong.extend(differences("events", &told.events, &stored_events));
    let own_500 = answers.own_500.lock().unwrap().clone();
    let summary = format!(
        "{} writes answered finally ({} of them replays), {} answers of 503 and {} of API \
         Gateway's 500 sent again, function processes killed {} times; {} orders, {} events, \
         adjustments {:?}",
        answers.final_.load(Ordering::Relaxed),
        answers.replayed.load(Ordering::Relaxed),
        answers.retried_503.load(Ordering::Relaxed),
        answers.gateway_500.load(Ordering::Relaxed),
        killed.load(Ordering::Relaxed),
        told.orders.values().map(BTreeSet::len).sum::<usize>(),
        told.events.values().map(BTreeSet::len).sum::<usize>(),
        told.deltas,
    );
    eprintln!("keyed writes under faults: {summary}");
    assert!(
        own_500.is_empty(),
        "the function's own 500: {own_500:?}\n{summary}"
    );
    assert!(wrong.is_empty(), "{}\n{summary}", wrong.join("\n"));
    assert!(killed.load(Ordering::Relaxed) > 0, "{summary}");
    assert!(
        answers.retried_503.load(Ordering::Relaxed) > 0,
        "DynamoDB was away: {summary}"
    );
}
