//! What the real binaries tell CloudWatch: each invocation's Embedded Metric Format document, as
//! the local stack keeps a function's output (`--log-dir`), checked against the EMF
//! specification and against what a known request did.

use std::time::Duration;

use serde_json::Value;

use crate::stack::{Stack, http, start_stack};

/// The units CloudWatch accepts (`MetricDatum.Unit`).
const UNITS: &[&str] = &[
    "Seconds",
    "Microseconds",
    "Milliseconds",
    "Bytes",
    "Kilobytes",
    "Megabytes",
    "Gigabytes",
    "Terabytes",
    "Bits",
    "Kilobits",
    "Megabits",
    "Gigabits",
    "Terabits",
    "Percent",
    "Count",
    "Bytes/Second",
    "Kilobytes/Second",
    "Megabytes/Second",
    "Gigabytes/Second",
    "Terabytes/Second",
    "Bits/Second",
    "Kilobits/Second",
    "Megabits/Second",
    "Gigabits/Second",
    "Terabits/Second",
    "Count/Second",
    "None",
];

/// Whether `doc` is a valid EMF document (the specification's rules: a `_aws` member with a
/// millisecond `Timestamp` and metric directives; every dimension a string member of the root;
/// every metric a number, or up to 100 numbers, in a member of the root).
fn check_emf(doc: &Value) -> Result<(), String> {
    let aws = doc.get("_aws").ok_or("no _aws member")?;
    aws["Timestamp"]
        .as_u64()
        .filter(|t| *t > 1_600_000_000_000)
        .ok_or("_aws.Timestamp is not milliseconds since the epoch")?;
    let directives = aws["CloudWatchMetrics"]
        .as_array()
        .filter(|d| !d.is_empty())
        .ok_or("_aws.CloudWatchMetrics is not a non-empty array")?;
    for directive in directives {
        let namespace = directive["Namespace"].as_str().unwrap_or_default();
        if namespace.trim().is_empty() || namespace.len() > 1024 {
            return Err(format!("bad Namespace {namespace:?}"));
        }
        for set in directive["Dimensions"]
            .as_array()
            .ok_or("Dimensions is not an array")?
        {
            let set = set.as_array().ok_or("a dimension set is not an array")?;
            if set.len() > 30 {
                return Err("more than 30 dimensions in a set".into());
            }
            for name in set {
                let name = name.as_str().ok_or("a dimension name is not a string")?;
                doc[name]
                    .as_str()
                    .ok_or(format!("dimension {name} has no string value"))?;
            }
        }
        let metrics = directive["Metrics"]
            .as_array()
            .filter(|m| !m.is_empty() && m.len() <= 100)
            .ok_or("Metrics is not 1 to 100 definitions")?;
        for metric in metrics {
            let name = metric["Name"].as_str().ok_or("a metric has no Name")?;
            if let Some(unit) = metric.get("Unit") {
                let unit = unit.as_str().unwrap_or_default();
                if !UNITS.contains(&unit) {
                    return Err(format!("{name}: unit {unit:?} is not one CloudWatch knows"));
                }
            }
            let numbers = match &doc[name] {
                Value::Number(_) => true,
                Value::Array(values) => values.len() <= 100 && values.iter().all(Value::is_number),
                _ => false,
            };
            if !numbers {
                return Err(format!("metric {name} has no numeric value"));
            }
        }
    }
    Ok(())
}

/// The EMF documents `function` has printed so far, each checked.
pub(crate) fn documents(stack: &Stack, function: &str) -> Vec<Value> {
    stack
        .function_output(function)
        .lines()
        .filter(|l| l.starts_with("{\"_aws\""))
        .map(|l| {
            let doc: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            check_emf(&doc).unwrap_or_else(|e| panic!("{function} printed invalid EMF ({e}): {l}"));
            doc
        })
        .collect()
}

/// The documents with an invocation's metrics: one per invocation that did something.
fn invocations(stack: &Stack, function: &str) -> Vec<Value> {
    documents(stack, function)
}

/// Waits (a little) for `function`'s output to settle: lines are copied asynchronously.
pub(crate) async fn invocation_count(stack: &Stack, function: &str, at_least: usize) -> Vec<Value> {
    for _ in 0..100 {
        let docs = invocations(stack, function);
        if docs.len() >= at_least {
            return docs;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    invocations(stack, function)
}

#[tokio::test]
async fn every_invocation_writes_one_valid_emf_document_with_what_it_did() {
    let stack = start_stack().await;
    let p = stack.port;
    let token = stack.bearer("emf-1", &[]);
    let caller = [("authorization", token.as_str())];

    let (s, _, c) = http(
        p,
        "PUT",
        "/customers/emf-1",
        Some(r#"{"name":"Em","email":"em@example.com"}"#),
        &caller,
    )
    .await;
    assert_eq!(s, 201, "{c}");

    // C1 of a customer with no orders: one Query, one item, half a read unit (eventually
    // consistent, under 4 KB).
    let (s, _, got) = http(p, "GET", "/customers/emf-1", None, &caller).await;
    assert_eq!(s, 200, "{got}");
    let docs = invocation_count(&stack, "get-customer", 1).await;
    assert_eq!(docs.len(), 1, "one document per invocation: {docs:?}");
    let doc = &docs[0];
    assert_eq!(doc["FunctionName"], "get-customer");
    assert_eq!(doc["_aws"]["CloudWatchMetrics"][0]["Namespace"], "local");
    assert_eq!(
        doc["_aws"]["CloudWatchMetrics"][0]["Dimensions"],
        serde_json::json!([["FunctionName", "Pattern"]])
    );
    assert_eq!(doc["Pattern"], "C1");
    assert_eq!(doc["DynamoDBRequests"], 1, "{doc}");
    assert_eq!(doc["ItemsRead"], 1, "{doc}");
    assert_eq!(doc["ReadCapacityUnits"], 0.5, "{doc}");
    assert!(doc.get("WriteCapacityUnits").is_none(), "{doc}");
    let units: Vec<(&str, &str)> = doc["_aws"]["CloudWatchMetrics"][0]["Metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["Name"].as_str().unwrap(), m["Unit"].as_str().unwrap()))
        .collect();
    assert!(units.contains(&("ReadCapacityUnits", "Count")), "{units:?}");
    let first_request = doc["RequestId"]
        .as_str()
        .expect("the request id")
        .to_owned();

    // The process's first invocation also counted its cold start.
    assert_eq!(doc["ColdStart"], 1, "{doc}");

    // A customer who does not exist: the same read, nothing found (a count with nothing to count
    // is left out, not written as 0).
    let other = stack.bearer("emf-nobody", &[]);
    let (s, _, _) = http(
        p,
        "GET",
        "/customers/emf-nobody",
        None,
        &[("authorization", other.as_str())],
    )
    .await;
    assert_eq!(s, 404);
    let docs = invocation_count(&stack, "get-customer", 2).await;
    assert_eq!(docs.len(), 2, "{docs:?}");
    assert_eq!(docs[1]["DynamoDBRequests"], 1);
    assert!(
        docs[1].get("ColdStart").is_none(),
        "a warm call: {}",
        docs[1]
    );
    // The units are written even as 0 (DynamoDB Local reports 0 units for a query that finds
    // nothing; DynamoDB charges it half a unit).
    assert_eq!(
        docs[1]["ReadCapacityUnits"].as_f64(),
        Some(0.0),
        "{}",
        docs[1]
    );
    assert!(docs[1].get("ItemsRead").is_none(), "{}", docs[1]);
    assert_ne!(docs[1]["RequestId"], first_request.as_str());

    // Refused before the handler (another customer's record): no request, so no document.
    let (s, _, _) = http(
        p,
        "GET",
        "/customers/emf-1",
        None,
        &[("authorization", other.as_str())],
    )
    .await;
    assert_eq!(s, 404);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(invocations(&stack, "get-customer").len(), 2);

    // A write: the customer was written (one item, at least one write unit).
    let docs = invocation_count(&stack, "put-customer", 1).await;
    assert_eq!(docs.len(), 1, "{docs:?}");
    assert!(docs[0]["ItemsWritten"].as_u64() >= Some(1), "{}", docs[0]);
    let written = docs[0]["WriteCapacityUnits"]
        .as_f64()
        .expect("the write units of the invocation, summed");
    assert!(written >= 1.0, "{}", docs[0]);

    // An order: the stream handler's batches say how many records they had, how far behind
    // the table they were, and that none failed.
    let staff = stack.bearer("staff-1", &["staff"]);
    let body = r#"{"name":"Espresso cups","price":1250,"currency":"USD"}"#;
    let staff = [("authorization", staff.as_str())];
    let (s, _, _) = http(p, "PUT", "/products/1001", Some(body), &staff).await;
    assert_eq!(s, 201);
    let (s, _, placed) = http(
        p,
        "POST",
        "/customers/emf-1/orders",
        Some(r#"{"items":[{"sku":1001,"quantity":2}]}"#),
        &[("Idempotency-Key", "emf-key"), caller[0]],
    )
    .await;
    assert_eq!(s, 201, "{placed}");
    let mut batches = Vec::new();
    for _ in 0..200 {
        batches = invocations(&stack, "commerce-stream");
        let records: u64 = batches
            .iter()
            .filter_map(|d| d["StreamRecords"].as_u64())
            .sum();
        if records >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let records: u64 = batches
        .iter()
        .filter_map(|d| d["StreamRecords"].as_u64())
        .sum();
    assert!(
        records >= 2,
        "the order's header and line reached the handler: {batches:?}"
    );
    for batch in &batches {
        let age = batch["StreamIteratorAge"].as_f64().expect("iterator age");
        // Milliseconds, and recent. DynamoDB Local rounds a record's creation time down to the
        // minute, so a fresh record reads up to 60 s old, plus the poller's lag (61.0 s seen in
        // a full `make test`); an age in seconds, or since 1970, stays out of this range.
        assert!((0.0..120_000.0).contains(&age), "{batch}");
        // How fast it went: time per record (ms) and records a second, one the other's inverse.
        let per_record = batch["StreamRecordTime"].as_f64().expect("time per record");
        let rate = batch["StreamRecordRate"]
            .as_f64()
            .expect("records a second");
        assert!(per_record > 0.0 && rate > 0.0, "{batch}");
        assert!(
            (per_record * rate / 1000.0 - 1.0).abs() < 1e-6,
            "{per_record} ms a record at {rate}/s: {batch}"
        );
        assert!(batch.get("BatchItemFailures").is_none(), "{batch}");
        assert!(batch.get("PoisonRecords").is_none(), "{batch}");
    }
}

#[test]
fn the_checker_refuses_what_cloudwatch_would_drop() {
    let good = serde_json::json!({
        "_aws": {"Timestamp": 1_700_000_000_000u64, "CloudWatchMetrics": [{
            "Namespace": "n", "Dimensions": [["FunctionName"]],
            "Metrics": [{"Name": "ItemsRead", "Unit": "Count"}]}]},
        "FunctionName": "f", "ItemsRead": 3
    });
    assert_eq!(check_emf(&good), Ok(()));
    let broken = |path: &str, value: Value| {
        let mut doc = good.clone();
        *doc.pointer_mut(path).unwrap() = value;
        check_emf(&doc)
    };
    assert!(broken("/ItemsRead", Value::from("3")).is_err());
    assert!(broken("/FunctionName", Value::from(1)).is_err());
    assert!(broken("/_aws/Timestamp", Value::from(1_700_000_000u64)).is_err());
    assert!(
        broken(
            "/_aws/CloudWatchMetrics/0/Metrics/0/Unit",
            Value::from("Units")
        )
        .is_err()
    );
    assert!(broken("/_aws/CloudWatchMetrics/0/Namespace", Value::from(" ")).is_err());
}
