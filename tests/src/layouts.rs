//! `TableLayout` table-per-context, end to end: what crosses contexts works across tables (an
//! account rep and a warehouse checked in HR's table inside commerce's transactions, a day's
//! counts summed from commerce's and reviews' tables), and after real traffic each table holds
//! its own context's items only (the site-wide counts and the stream ledger in the tables of the
//! two consumers that write them). The patterns themselves run in both layouts in the `e2e`
//! suites.

use std::time::Duration;

use keys::{Space, registry};
use serde_json::Value;
use store::Table;

use crate::{
    load::{drained, isbn13},
    stack::{Stack, TABLE_PER_CONTEXT, http, start_stack_in},
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
    let template =
        sam_template::Template::workspace_with(&[("TableLayout", TABLE_PER_CONTEXT)]).unwrap();
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
}
