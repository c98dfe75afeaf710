//! A DynamoDB that accepts connections and never answers (its process stopped with SIGSTOP, as
//! a host that hangs): every function answers by its own deadline (`store::deadline`), a 503
//! `unavailable` with `Retry-After` from the function for a request and a report of the records
//! to retry for a stream batch, before Lambda's timeout; never API Gateway's 500 for a function
//! that timed out. Then DynamoDB answers again and so does the stack.

use std::time::{Duration, Instant};

use local_stack::{Stack as Functions, StackConfig};
use serde_json::Value;

use crate::{
    outage::{OwnDynamoDbLocal, examples_of, send},
    stack::{CURSOR_KEY, http, start_stack_on},
};

/// The functions whose examples are sent while DynamoDB is frozen: a read (C1), a query (C2),
/// a single-item write (C0), a transaction as the first call (C6), and a batch read then a
/// transaction (C3).
const SENT: &[&str] = &[
    "get-customer",
    "list-customer-orders",
    "put-customer",
    "add-order-event",
    "place-order",
];

/// The stream consumer given a batch while DynamoDB is frozen, and its timeout here (the
/// template's 60 s would only make the test longer: the deadline is a share of whatever it is).
const CONSUMER: &str = "commerce-stream";
const CONSUMER_TIMEOUT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_frozen_dynamodb_is_answered_by_the_functions_before_their_timeout() {
    let ddb = OwnDynamoDbLocal::start();
    let stack = start_stack_on(&ddb.endpoint()).await;
    let p = stack.port;
    let ann = stack.bearer("frozen-ann", &[]);
    let (s, _, b) = http(
        p,
        "PUT",
        "/customers/frozen-ann",
        Some(r#"{"name":"Ann","email":"ann@example.com"}"#),
        &[("authorization", &ann)],
    )
    .await;
    assert_eq!(s, 201, "{b}");

    // The consumer, in a process of its own on the same table, warm before the freeze.
    let template = sam_template::Template::workspace().unwrap();
    let failures_dir = std::env::temp_dir().join(format!("frozen-failures-{}", stack.table));
    let config = StackConfig {
        bin_dir: devkit::debug_dir(),
        table_name: stack.table.clone(),
        params: [("CursorSigningKey".to_owned(), CURSOR_KEY.to_owned())].into(),
        max_instances: 1,
        log_dir: None,
        failures_dir: failures_dir.clone(),
    };
    let mut consumer = Functions::function_specs(&template, &config)
        .unwrap()
        .into_iter()
        .find(|f| f.name == CONSUMER)
        .expect("the consumer's spec");
    consumer.timeout = CONSUMER_TIMEOUT;
    for variable in [
        "AWS_ENDPOINT_URL_DYNAMODB",
        "AWS_ENDPOINT_URL_DYNAMODB_STREAMS",
    ] {
        consumer
            .environment
            .push((variable.to_owned(), ddb.endpoint()));
    }
    let functions = Functions::start(vec![consumer], 1);
    functions
        .invoke(CONSUMER, &serde_json::json!({"Records": []}))
        .await
        .expect("an empty batch");
    let batch: Value = serde_json::from_str(
        &std::fs::read_to_string(
            sam_template::workspace_root().join(format!("events/{CONSUMER}.json")),
        )
        .unwrap(),
    )
    .unwrap();
    let requests = examples_of(&stack, |name| SENT.contains(&name));
    assert!(requests.len() >= SENT.len(), "an example each at least");

    ddb.freeze();
    let timed = async |work: std::pin::Pin<Box<dyn Future<Output = String> + '_>>| {
        let started = Instant::now();
        let what = work.await;
        (what, started.elapsed())
    };
    let mut work: Vec<std::pin::Pin<Box<dyn Future<Output = String> + '_>>> = requests
        .iter()
        .map(|request| {
            Box::pin(async move {
                let (status, retry_after, body) = send(p, request).await;
                let code = body["code"].as_str().unwrap_or_default().to_owned();
                format!(
                    "{} {}: {status} {code} Retry-After {}",
                    request.method,
                    request.target,
                    retry_after.as_deref().unwrap_or("-")
                )
            }) as std::pin::Pin<Box<dyn Future<Output = String>>>
        })
        .collect();
    work.push(Box::pin(async {
        match functions.invoke(CONSUMER, &batch).await {
            Ok(answer) => format!(
                "{CONSUMER}: {} of {} records to retry",
                answer["batchItemFailures"].as_array().map_or(0, Vec::len),
                batch["Records"].as_array().map_or(0, Vec::len)
            ),
            Err(e) => format!("{CONSUMER}: {e}"),
        }
    }));
    let answers = futures::future::join_all(work.into_iter().map(timed)).await;
    ddb.thaw();
    functions.shutdown().await;
    let _ = std::fs::remove_dir_all(&failures_dir);

    let report: Vec<String> = answers
        .iter()
        .map(|(what, took)| format!("{what} after {:.1} s", took.as_secs_f64()))
        .collect();
    let report = report.join("\n");
    eprintln!("while DynamoDB was frozen:\n{report}");
    let records = batch["Records"].as_array().map_or(0, Vec::len);
    for (what, took) in &answers {
        if what.starts_with(CONSUMER) {
            // Every record writes a derived value: none was applied, all are retried.
            assert_eq!(
                what,
                &format!("{CONSUMER}: {records} of {records} records to retry"),
                "{report}"
            );
        } else {
            assert!(
                what.ends_with(": 503 unavailable Retry-After 5"),
                "{report}"
            );
        }
        // The function's own answer, by its deadline (80% of its time: 8 s of 10), not Lambda
        // stopping it at 10 s.
        assert!(*took < Duration::from_secs(10), "{report}");
    }

    let (s, _, b) = http(
        p,
        "GET",
        "/customers/frozen-ann",
        None,
        &[("authorization", &ann)],
    )
    .await;
    assert_eq!(s, 200, "after the thaw: {b}");
}
