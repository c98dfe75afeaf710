//! Load through the local stack, then the drift check: 500 reviews of 20 books by 50 users and
//! 200 orders over 10 products, sent concurrently over HTTP to the real binaries; once the local
//! stream poller has drained, every derived value must match a recomputation from the source
//! items (`make reconcile`'s check).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::stack::{Stack, http, start_stack};

/// A valid ISBN-13 (978 prefix) numbered `n`.
fn isbn13(n: u32) -> String {
    let body = format!("978{n:09}");
    let sum: u32 = body
        .bytes()
        .enumerate()
        .map(|(i, b)| u32::from(b - b'0') * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    format!("{body}{}", (10 - sum % 10) % 10)
}

/// Sends every request with at most `parallel` in flight; returns the statuses.
async fn send_all(
    stack: &Stack,
    parallel: usize,
    requests: Vec<(String, String, String)>,
) -> Vec<u16> {
    let limit = Arc::new(Semaphore::new(parallel));
    let port = stack.port;
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|(method, path, body)| {
            let limit = limit.clone();
            let auth = stack.bearer_for(&path);
            tokio::spawn(async move {
                let _permit = limit.acquire_owned().await.expect("open semaphore");
                http(
                    port,
                    &method,
                    &path,
                    Some(&body),
                    &[("authorization", &auth)],
                )
                .await
                .0
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.expect("request task"));
    }
    statuses
}

async fn drained(stack: &Stack, within: Duration) -> Value {
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
    for c in 0..20 {
        setup.push((
            "PUT".into(),
            format!("/customers/load{c}"),
            format!(r#"{{"name":"Load {c}","email":"load{c}@example.com"}}"#),
        ));
    }
    let statuses = send_all(&stack, 16, setup).await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");

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
                .map(|l| {
                    format!(
                        r#"{{"sku":{},"quantity":{},"unitPrice":{}}}"#,
                        1 + (i + l) % 10,
                        1 + l,
                        100 + i
                    )
                })
                .collect();
            load.push((
                "POST".into(),
                format!("/customers/load{}/orders", i % 20),
                format!(r#"{{"items":[{}]}}"#, lines.join(",")),
            ));
        }
    }
    let statuses = send_all(&stack, 32, load).await;
    let created = statuses.iter().filter(|s| **s == 201).count();
    assert_eq!(
        created, 700,
        "every review and order was created: {statuses:?}"
    );
    let sent_in = started.elapsed();

    let streams = drained(&stack, Duration::from_secs(300)).await;
    let drained_in = started.elapsed();
    let table = store::Table::new(dev::client(), stack.table.clone());
    let report = tools::reconcile::run(&table).await.expect("reconcile");
    eprintln!(
        "load: 790 requests sent in {sent_in:?}, streams drained at {drained_in:?}; {report}streams: {streams}"
    );
    assert!(report.checked > 0);
    assert!(report.drift.is_empty(), "{report}");
}
