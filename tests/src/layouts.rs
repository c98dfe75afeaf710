//! `TableLayout` table-per-context, end to end: what crosses contexts works across tables (an
//! account rep and a warehouse checked in HR's table inside commerce's transactions, a day's
//! counts summed from commerce's and reviews' tables), and after real traffic each table holds
//! its own context's items only (the site-wide counts in the tables of the
//! two consumers that write them). The patterns themselves run in both layouts in the `e2e`
//! suites.

use std::{collections::BTreeMap, time::Duration};

use keys::{Space, indexes::IndexDesign, registry};
use serde_json::Value;
use store::Table;

use crate::{
    load::{drained, isbn13},
    readme::Section,
    replay::{Deployment, Spent},
    stack::{ONE_TABLE, Stack, TABLE_PER_CONTEXT, http, start_stack_in},
};

async fn put(stack: &Stack, auth: &[(&str, &str)], path: &str, body: &str) -> (u16, Value) {
    let (status, _, answer) = http(stack.port, "PUT", path, Some(body), auth).await;
    (status, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crossings_work_across_tables_and_each_table_holds_its_own_context() {
    let stack = start_stack_in(TABLE_PER_CONTEXT).await;
    let staff = stack.bearer("staff-1", &["staff"]);
    let staff = [("authorization", staff.as_str())];

    // HR's reference data and an employee, in HR's table.
    for (path, body) in [
        ("/regions/EU", r#"{"name":"Europe"}"#),
        ("/countries/DE", r#"{"name":"Germany","regionId":"EU"}"#),
        ("/warehouses/W1", r#"{"name":"Spandau","regionId":"EU"}"#),
        (
            "/employees/R1",
            r#"{"name":"Rep One","hireDate":"2024-01-02","warehouseId":"W1"}"#,
        ),
    ] {
        let (status, answer) = put(&stack, &staff, path, body).await;
        assert_eq!(status, 201, "{path}: {answer}");
    }

    // Commerce's transactions check them in HR's table: found, and not found.
    let product = r#"{"name":"Product 7","price":700,"currency":"USD"}"#;
    assert_eq!(put(&stack, &staff, "/products/7", product).await.0, 201);
    let stock = r#"{"quantity":5}"#;
    let (status, answer) = put(&stack, &staff, "/products/7/inventory/W1", stock).await;
    assert_eq!(status, 201, "{answer}");
    let (status, answer) = put(&stack, &staff, "/products/7/inventory/W9", stock).await;
    assert_eq!(
        (status, &answer["code"]),
        (404, &"warehouse_not_found".into())
    );
    let customer = r#"{"name":"Ann","email":"ann@example.com","accountRepId":"R1"}"#;
    let (status, answer) = put(&stack, &staff, "/customers/x1", customer).await;
    assert_eq!(
        (status, &answer["accountRepId"]),
        (201, &"R1".into()),
        "{answer}"
    );
    let stranger = r#"{"name":"Bo","email":"bo@example.com","accountRepId":"R9"}"#;
    let (status, answer) = put(&stack, &staff, "/customers/x2", stranger).await;
    assert!(
        (400..500).contains(&status),
        "no such rep: {status} {answer}"
    );

    // An order (commerce's consumer counts it) and a review (reviews' consumer counts it).
    let ann = stack.bearer("x1", &[]);
    let ann = [("authorization", ann.as_str())];
    let order = r#"{"items":[{"sku":7,"quantity":2}]}"#;
    let (status, _, placed) = http(
        stack.port,
        "POST",
        "/customers/x1/orders",
        Some(order),
        &ann,
    )
    .await;
    assert_eq!(status, 201, "{placed}");
    let day = placed["createdAt"].as_str().expect("createdAt")[..10].to_owned();
    let isbn = isbn13(1);
    let book = r#"{"title":"Book 1","author":"Author 1","publicationYear":1954}"#;
    assert_eq!(
        put(&stack, &staff, &format!("/books/{isbn}"), book).await.0,
        201
    );
    let reader = stack.bearer("user1", &[]);
    let reader = [("authorization", reader.as_str())];
    let user = r#"{"membershipDate":"2020-01-01"}"#;
    assert_eq!(put(&stack, &reader, "/users/user1", user).await.0, 201);
    let review = r#"{"grade":8,"text":"Good."}"#;
    let path = format!("/books/{isbn}/reviews/user1");
    assert_eq!(put(&stack, &reader, &path, review).await.0, 201);
    drained(&stack, Duration::from_secs(120)).await;

    // The day's counts: orders from commerce's table, reviews from reviews' table.
    let (status, _, stats) = http(
        stack.port,
        "GET",
        &format!("/stats/daily/{day}"),
        None,
        &staff,
    )
    .await;
    assert_eq!(status, 200, "{stats}");
    assert_eq!(
        (&stats["orders"], &stats["reviews"]),
        (&1.into(), &1.into()),
        "{stats}"
    );
    assert_eq!(stats["revenue"], 1400);

    // Each table: its own context's items, and the derived ones only where a consumer writes.
    let template = sam_template::Template::workspace_with(&[(
        sam_template::layout::PARAMETER,
        TABLE_PER_CONTEXT,
    )])
    .unwrap();
    let client = devkit::client();
    for declared in &template.tables {
        let name = sam_template::local_table_name(&stack.table, &declared.logical_id);
        let items = devkit::all_items(&Table::new(client.clone(), &name)).await;
        let mut contexts = std::collections::BTreeSet::new();
        for item in &items {
            let text = |a: &str| item.get(a).and_then(|v| v.as_s().ok()).cloned();
            let (pk, sk) = (text("PK").unwrap(), text("SK").unwrap());
            let kinds = registry::classify(Space::Base, &pk, &sk);
            assert_eq!(kinds.len(), 1, "{name}: {pk} / {sk} is one kind: {kinds:?}");
            contexts.insert(kinds[0].context);
        }
        let expected: &[&str] = match declared.logical_id.as_str() {
            "Table" => &["commerce", "derived"],
            "ReviewsTable" => &["derived", "reviews"],
            "LearningTable" => &[],
            "HrTable" => &["hr"],
            other => panic!("a table {other} this test does not know"),
        };
        assert_eq!(
            contexts.into_iter().collect::<Vec<_>>(),
            expected,
            "{name}: the contexts of its items"
        );
    }

    // The explorer finds each partition in its context's table.
    let explore = |path: String| async move {
        let (status, _, body) = http(stack.port, "GET", &path, None, &[]).await;
        assert_eq!(status, 200, "{path}: {body}");
        body
    };
    let book = explore(format!(
        "/_local/explorer/partition?index=table&pk={}",
        testkit::percent_encode(&format!("BOOK#{isbn}"))
    ))
    .await;
    assert_eq!(book["items"].as_array().map(Vec::len), Some(2), "{book}");
    let gsi1 = explore("/_local/explorer/partitions?index=GSI1".to_owned()).await;
    let pks: Vec<&str> = gsi1["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["pk"].as_str())
        .collect();
    for wanted in ["USER#user1", "WAREHOUSE#W1", "PRODUCT#000000000007"] {
        assert!(pks.contains(&wanted), "{wanted} in {pks:?}");
    }
}

/// The generated table of docs/one-table-or-many.md: what the same requests cost in each layout.
const MEASURED: Section = Section {
    file: "docs/one-table-or-many.md",
    begin: "<!-- layouts measured: generated by tests/src/layouts.rs by the one meter -->",
    end: "<!-- end of layouts measured -->",
    update_var: "UPDATE_LAYOUTS",
    command: "UPDATE_LAYOUTS=1 cargo test -p tests layouts",
};

/// The generated table of docs/one-table-or-many.md: what the same requests cost with GSI1
/// overloaded and with R2 on an index of its own.
const DESIGNS: Section = Section {
    file: "docs/one-table-or-many.md",
    begin: "<!-- index designs measured: generated by tests/src/layouts.rs by the one meter -->",
    end: "<!-- end of index designs measured -->",
    update_var: "UPDATE_LAYOUTS",
    command: "UPDATE_LAYOUTS=1 cargo test -p tests layouts",
};

/// Every write of the workload, in order, one at a time (so each costs the same in each run):
/// HR's reference data and reps, products and stock, customers under reps, orders and their
/// events, a cart, books, users, reviews (two deleted again), course occurrences and
/// certificates. `{order N}` stands for the id of the workload's Nth order.
fn writes() -> Vec<(String, String, String)> {
    let mut w: Vec<(String, String, String)> = Vec::new();
    let mut put = |path: String, body: String| w.push(("PUT".into(), path, body));
    put("/regions/EU".into(), r#"{"name":"Europe"}"#.into());
    put(
        "/countries/DE".into(),
        r#"{"name":"Germany","regionId":"EU"}"#.into(),
    );
    put(
        "/locations/BER".into(),
        r#"{"name":"Berlin","countryId":"DE"}"#.into(),
    );
    put(
        "/departments/SALES".into(),
        r#"{"name":"Sales","locationId":"BER"}"#.into(),
    );
    for wh in 1..=2 {
        put(
            format!("/warehouses/W{wh}"),
            format!(r#"{{"name":"Warehouse {wh}","regionId":"EU"}}"#),
        );
    }
    put(
        "/jobs/SA_REP".into(),
        r#"{"title":"Sales Representative"}"#.into(),
    );
    for r in 0..4 {
        let body = format!(
            r#"{{"name":"Rep {r}","hireDate":"2024-01-0{}","warehouseId":"W1"}}"#,
            r + 1
        );
        put(format!("/employees/R{r}"), body);
    }
    for p in 1..=6 {
        let body = format!(
            r#"{{"name":"Product {p}","price":{},"currency":"USD"}}"#,
            100 * p
        );
        put(format!("/products/{p}"), body);
        for wh in 1..=2 {
            put(
                format!("/products/{p}/inventory/W{wh}"),
                format!(r#"{{"quantity":{}}}"#, 10 * p + wh),
            );
        }
    }
    for c in 0..8 {
        let body = format!(
            r#"{{"name":"Customer {c}","email":"c{c}@example.com","accountRepId":"R{}"}}"#,
            c % 4
        );
        put(format!("/customers/c{c}"), body);
    }
    for i in 0..24u32 {
        let lines: Vec<String> = (0..1 + i % 3)
            .map(|l| format!(r#"{{"sku":{},"quantity":{}}}"#, 1 + (i + l) % 6, 1 + l))
            .collect();
        let body = format!(r#"{{"items":[{}]}}"#, lines.join(","));
        w.push(("POST".into(), format!("/customers/c{}/orders", i % 8), body));
    }
    for (n, status) in [
        (0, "SHIPPED"),
        (1, "SHIPPED"),
        (2, "CANCELLED"),
        (3, "SHIPPED"),
        (0, "DELIVERED"),
    ] {
        let body = format!(r#"{{"status":"{status}","note":"step"}}"#);
        w.push(("POST".into(), format!("/orders/{{order {n}}}/events"), body));
    }
    w.push((
        "PUT".into(),
        "/carts/c0/items/1".into(),
        r#"{"quantity":2}"#.into(),
    ));
    for b in 0..4 {
        let body = format!(
            r#"{{"title":"Book {b}","author":"Author {b}","publicationYear":{}}}"#,
            1950 + b
        );
        w.push(("PUT".into(), format!("/books/{}", isbn13(b)), body));
    }
    for u in 0..8 {
        w.push((
            "PUT".into(),
            format!("/users/u{u}"),
            r#"{"membershipDate":"2020-01-01"}"#.into(),
        ));
    }
    for i in 0..16u32 {
        let (user, book) = (i % 8, (i / 8 + i % 8) % 4);
        // Most reviews a line, one in four a few paragraphs (1,500 characters): above the 1 KB
        // a write unit pays for, where a full copy in an index costs more than its keys.
        let words = if i % 4 == 0 { 250 } else { 20 };
        let body = format!(
            r#"{{"grade":{},"text":"Review {i}: {}"}}"#,
            1 + i % 10,
            "words ".repeat(words).trim_end()
        );
        w.push((
            "PUT".into(),
            format!("/books/{}/reviews/u{user}", isbn13(book)),
            body,
        ));
    }
    for (user, book) in [(0, 0), (1, 1)] {
        w.push((
            "DELETE".into(),
            format!("/books/{}/reviews/u{user}", isbn13(book)),
            String::new(),
        ));
    }
    for (day, location) in [("2022-03-15", "Building 1"), ("2022-03-16", "Building 2")] {
        let body = format!(
            r#"{{"courseName":"Intro to DynamoDB","startDate":"{day}","location":"{location}","courseType":"DevChat"}}"#
        );
        w.push(("POST".into(), "/courses".into(), body));
    }
    for s in 0..6 {
        let body = format!(
            r#"{{"courseName":"Intro to DynamoDB","date":"2022-03-15","location":"Building 1","student":"Student {s}","certType":"Completion","instructor":"Tyler Walch"}}"#
        );
        w.push(("POST".into(), "/certificates".into(), body));
    }
    w
}

/// One read of each read pattern over what [`writes`] made (`{day}`: the day the orders were
/// placed; `{quarter}`: its quarter).
fn reads() -> Vec<String> {
    [
        "/customers/c0".to_owned(),
        "/customers/c0/orders".into(),
        "/customers/c0/orders?status=OPEN".into(),
        "/orders/{order 5}".into(),
        "/orders?status=OPEN&from=2020-01-01&to=2099-12-31&limit=100".into(),
        "/carts/c0".into(),
        "/products/1".into(),
        "/products/1/inventory".into(),
        "/products/1/inventory/W1".into(),
        "/products/1/order-items".into(),
        "/products/1/sales".into(),
        "/reps/R0/customers".into(),
        "/reps/R0/orders".into(),
        "/reps/ranking?period={quarter}".into(),
        "/stats/daily/{day}".into(),
        format!("/books/{}", isbn13(2)),
        "/users/u2".into(),
        "/courses/introtodynamodb/occurrences".into(),
        "/courses/introtodynamodb/days/2022-03-15".into(),
        "/certificates?type=completion".into(),
        "/courses/introtodynamodb/certificates?date=2022-03-15".into(),
        "/employees/R0".into(),
        "/employees?name=Rep%200".into(),
        "/warehouses/W1/employees".into(),
        "/regions".into(),
    ]
    .into()
}

/// What one deployment answered and spent.
struct Run {
    /// Each request and its answer, ids and times masked.
    answers: Vec<String>,
    /// Per function (API and stream consumers): what its invocations sent and cost.
    functions: BTreeMap<String, Spent>,
    /// Per table: items, bytes, and per index its entries and their bytes.
    tables: Vec<TableFigures>,
}

/// A table's name, items and bytes, and per index its name, entries and bytes.
type TableFigures = (String, usize, usize, Vec<(String, usize, usize)>);

/// Replaces what differs from run to run (generated ids, times, cursors) by its kind.
fn masked(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() == 26 && s.chars().all(|c| c.is_ascii_alphanumeric()) => {
            "<id>".into()
        }
        Value::String(s)
            if s.len() >= 20 && s.as_bytes().get(4) == Some(&b'-') && s.contains('T') =>
        {
            "<time>".into()
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| match k.as_str() {
                    "nextCursor" if !v.is_null() => (k.clone(), "<cursor>".into()),
                    _ => (k.clone(), masked(v)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(masked).collect()),
        other => other.clone(),
    }
}

/// Who sends a request of the workload: the owner its path names (a customer, a cart's, a
/// user, a review's author), else a member of the staff (who also creates customers).
fn caller(method: &str, path: &str) -> (String, &'static [&'static str]) {
    let segments: Vec<&str> = path.split('?').next().unwrap_or(path).split('/').collect();
    let owner = match segments.as_slice() {
        ["", "customers", ..] if method == "PUT" => None,
        ["", "customers" | "carts" | "users", id, ..] => Some(*id),
        ["", "books", _, "reviews", user, ..] => Some(*user),
        _ => None,
    };
    match owner {
        Some(id) => (id.to_owned(), &[]),
        None => ("staff-1".to_owned(), &[api::auth::STAFF_GROUP]),
    }
}

/// The workload through the handlers of `layout` x `design`, in process ([`Deployment`]),
/// every request billed by the one meter.
async fn run(layout: &str, design: IndexDesign) -> Run {
    // One write shard per sharded counter and per status: which shard an order lands on
    // depends on its (random) id, and with one shard every figure is the same run after run.
    let mut deployment = Deployment::new(&[
        (sam_template::layout::PARAMETER, layout),
        (IndexDesign::PARAMETER, design.as_str()),
        ("AggregateShards", "1"),
        ("OrderStatusShards", "1"),
    ])
    .await;
    let layout = format!("{layout} {}", design.as_str());
    let mut orders: Vec<String> = Vec::new();
    let mut answers = Vec::new();
    let mut day = String::new();
    let fill = |path: &str, orders: &[String], day: &str| {
        let mut path = path.to_owned();
        for (n, id) in orders.iter().enumerate() {
            path = path.replace(&format!("{{order {n}}}"), id);
        }
        // Before the first order there is no day, and no path that names one.
        let quarter = keys::Date::parse_iso(day)
            .map(|d| keys::Quarter::of(d).to_string())
            .unwrap_or_default();
        path.replace("{day}", day).replace("{quarter}", &quarter)
    };
    let requests = writes().into_iter().chain(
        reads()
            .into_iter()
            .map(|p| ("GET".into(), p, String::new())),
    );
    for (method, path, body) in requests {
        let path = fill(&path, &orders, &day);
        let (sub, groups) = caller(&method, &path);
        let body = (!body.is_empty()).then_some(body.as_str());
        let (status, answer) = deployment.send(&method, &path, body, (&sub, groups)).await;
        assert!(
            (200..300).contains(&status),
            "{layout}: {method} {path}: {status} {answer}"
        );
        if method == "POST" && path.ends_with("/orders") {
            orders.push(answer["orderId"].as_str().unwrap().to_owned());
            day = answer["createdAt"].as_str().unwrap()[..10].to_owned();
        }
        answers.push(format!("{method} {path} {status} {}", masked(&answer)));
    }
    // The masked answers name the orders by position, not by id.
    let answers = answers
        .into_iter()
        .map(|a| {
            orders
                .iter()
                .enumerate()
                .fold(a, |a, (n, id)| a.replace(id, &format!("<order {n}>")))
        })
        .collect();

    let mut tables = Vec::new();
    for declared in &deployment.template.tables {
        let table = &deployment.tables[&declared.logical_id];
        let items: Vec<_> = devkit::all_items(table)
            .await
            .into_iter()
            // The stream's bookkeeping (marks, positions, marks kept aside) holds sequence
            // numbers, whose size varies by a byte from run to run: not the data measured.
            .filter(|item| {
                let bookkeeping = [
                    keys::derived::types::STREAM_POSITION,
                    keys::derived::types::LANE_MARK,
                ];
                !model::type_of(item).is_some_and(|t| bookkeeping.contains(&t))
            })
            .map(|mut item| {
                item.retain(|name, _| !store::aggregate::is_mark(name));
                item
            })
            .collect();
        let bytes = items.iter().map(devkit::item_size).sum();
        let indexes = declared
            .global_indexes
            .iter()
            .map(|index| {
                let indexed: Vec<_> = items
                    .iter()
                    .filter(|item| index.key.attributes().all(|a| item.contains_key(a)))
                    .collect();
                let bytes = indexed
                    .iter()
                    .map(|i| devkit::index_entry_size(i, declared, index))
                    .sum();
                (index.name.clone(), indexed.len(), bytes)
            })
            .collect();
        tables.push((declared.logical_id.clone(), items.len(), bytes, indexes));
    }
    Run {
        answers,
        functions: deployment.spent,
        tables,
    }
}

/// A function's requests, read and write units by the one meter.
fn figures(run: &Run, name: &str) -> [f64; 3] {
    let s = run.functions.get(name).copied().unwrap_or_default();
    [s.requests, s.read, s.write]
}

/// The same writes and reads through the handlers of three deployments (one table, a table per
/// context, R2 and O8 on indexes of their own): the same answers, and what each function and
/// stream consumer cost by the one meter (DynamoDB Local's beside it), and what each table and
/// index holds: docs/one-table-or-many.md's generated tables.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_layouts_answer_alike_and_what_each_costs() {
    let (one, per, dedicated, projected) = tokio::join!(
        run(ONE_TABLE, IndexDesign::Overloaded),
        run(TABLE_PER_CONTEXT, IndexDesign::Overloaded),
        run(ONE_TABLE, IndexDesign::Dedicated),
        run(ONE_TABLE, IndexDesign::Projected),
    );
    assert_eq!(one.answers, per.answers, "the same answers in both layouts");
    assert_eq!(
        one.answers, dedicated.answers,
        "the same answers, dedicated"
    );
    assert_eq!(
        one.answers, projected.answers,
        "the same answers, projected"
    );
    index_designs(&[&one, &dedicated, &projected]);
    let mut table = String::from(
        "\n| function | requests (one table) | read units | write units | requests (table per context) | read units | write units | DynamoDB Local's read / write units (one table) |\n|---|---|---|---|---|---|---|---|\n",
    );
    let names: std::collections::BTreeSet<&String> =
        one.functions.keys().chain(per.functions.keys()).collect();
    let mut differ = Vec::new();
    for name in names {
        let ([r1, rc1, wc1], [r2, rc2, wc2]) = (figures(&one, name), figures(&per, name));
        if [r1, rc1, wc1] != [r2, rc2, wc2] {
            differ.push(name.as_str());
        }
        let local = one.functions.get(name).copied().unwrap_or_default();
        table.push_str(&format!(
            "| `{name}` | {r1} | {rc1} | {wc1} | {r2} | {rc2} | {wc2} | {} / {} |\n",
            local.local_read, local.local_write
        ));
    }
    table.push_str(
        "\n| table (layout) | items | bytes | index: entries, bytes |\n|---|---|---|---|\n",
    );
    for (layout, run) in [("one table", &one), ("table per context", &per)] {
        for (name, items, bytes, indexes) in &run.tables {
            let indexes: Vec<String> = indexes
                .iter()
                .map(|(i, n, b)| format!("{i}: {n}, {b}"))
                .collect();
            table.push_str(&format!(
                "| `{name}` ({layout}) | {items} | {bytes} | {} |\n",
                indexes.join("; ")
            ));
        }
    }
    eprintln!("{table}");
    // The crossing that reads two tables, and nothing else: a transaction's check of another
    // context's item is billed as one in the same table.
    assert_eq!(differ, ["get-daily-stats"], "what differs between layouts");
    MEASURED.check(&table);
}

/// docs/one-table-or-many.md's second generated table: what differs between the index designs
/// (one table each, `runs` in `IndexDesign::ALL`'s order), per function, and what each index
/// holds.
fn index_designs(runs: &[&Run; 3]) {
    let mut table = String::from("\n| function |");
    for design in IndexDesign::ALL {
        let d = design.as_str();
        table.push_str(&format!(" requests ({d}) | read units | write units |"));
    }
    table.push_str("\n|---|");
    table.push_str(&"---|---|---|".repeat(IndexDesign::ALL.len()));
    table.push('\n');
    let mut differ = Vec::new();
    for name in runs[0].functions.keys() {
        let each = runs.map(|run| figures(run, name));
        if each.iter().any(|f| *f != each[0]) {
            differ.push(name.as_str());
            let cells: Vec<String> = each.iter().flatten().map(f64::to_string).collect();
            table.push_str(&format!("| `{name}` | {} |\n", cells.join(" | ")));
        }
    }
    table.push_str("\n| index (design) | entries | bytes |\n|---|---|---|\n");
    for (design, run) in IndexDesign::ALL.iter().zip(runs) {
        let design = design.as_str();
        for (_, _, _, indexes) in &run.tables {
            for (index, entries, bytes) in indexes {
                let own = IndexDesign::ALL
                    .iter()
                    .any(|d| d.indexes().contains(&index.as_str()));
                if index == "GSI1" || own {
                    table.push_str(&format!("| `{index}` ({design}) | {entries} | {bytes} |\n"));
                }
            }
        }
    }
    eprintln!("{table}");
    assert_eq!(
        differ,
        [
            "aggregate-reviews",
            "delete-review",
            "get-user",
            "list-product-order-items",
            "put-inventory",
            "put-review",
            "put-user"
        ],
        "what differs between index designs"
    );
    DESIGNS.check(&table);
}
