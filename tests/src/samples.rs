use sam_template::{Function, Template};

use crate::cost::Row;

/// Every request a function sent is allowed by its policy: each IAM action it needed (a
/// transaction's are its parts'), on the resource it touched (the table, or the index a Query
/// read: a policy on the table does not cover its indexes, nor one index another).
fn assert_within_policy(f: &Function, requests: &[store::Request]) {
    assert!(!requests.is_empty(), "{} sent nothing", f.name());
    for r in requests {
        for action in r.iam_actions() {
            assert!(
                f.allows(&action, r.index),
                "{} performs {} on {} but its policy does not allow {action} there",
                f.name(),
                r.operation,
                r.index
                    .map_or("the table".to_owned(), |i| format!("index {i}")),
            );
        }
    }
}

/// A fresh table with the seeds loaded, its meter cleared: a sample's requests are all it holds.
async fn seeded_table() -> store::Table {
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    table.meter().reset();
    table
}

/// Every API sample through its handler, each on a freshly seeded table: the cost of each.
async fn api_samples(t: &Template) -> Vec<Row> {
    let mut rows = Vec::new();
    for f in t.functions.iter().filter(|f| !f.routes.is_empty()) {
        let table = seeded_table().await;
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        let response = crate::dispatch::handle(f.name(), &table, testkit::request(&sample))
            .await
            .unwrap_or_else(|| panic!("no handler for {}", f.name()));
        let (status, body) = testkit::response_json(&response);
        crate::openapi::assert_event_answer(&sample, status, &body);
        assert!(
            (200..300).contains(&status),
            "{}: {status} {body}",
            f.name()
        );
        let requests = table.meter().requests();
        assert_within_policy(f, &requests);
        let query = sample["rawQueryString"].as_str().unwrap_or_default();
        let target = format!(
            "{}{}{query}",
            sample["rawPath"].as_str().unwrap_or("?"),
            if query.is_empty() { "" } else { "?" },
        );
        let method = sample["requestContext"]["http"]["method"]
            .as_str()
            .unwrap_or("?");
        let request = format!("`{method} {target}`");
        // The pattern the sample exercises: the one whose example it is (checked for every
        // function by `catalogue::every_function_has_a_sample_request_among_its_patterns_examples`).
        let pattern = catalogue::PATTERNS
            .iter()
            .find(|p| p.operation().function == f.name() && p.example.target == target)
            .map_or("?", |p| p.label());
        rows.push(Row::measured(pattern, f.name(), request, &requests));
    }
    rows
}

/// Every stream sample batch through its handler, each on a freshly seeded table.
async fn stream_samples(t: &Template) -> Vec<Row> {
    let mut rows = Vec::new();
    for f in t.functions.iter().filter(|f| !f.streams.is_empty()) {
        let table = seeded_table().await;
        let sample: stream_handler::Event =
            serde_json::from_value(testkit::sample_event(&format!("{}.json", f.name())))
                .unwrap_or_else(|e| {
                    panic!(
                        "events/{}.json is not a DynamoDB Streams event: {e}",
                        f.name()
                    )
                });
        let response = crate::dispatch::handle_stream(f.name(), &table, &sample)
            .await
            .unwrap_or_else(|| panic!("no stream handler for {}", f.name()));
        assert!(
            response.batch_item_failures.is_empty(),
            "{}: {response:?}",
            f.name()
        );
        let requests = table.meter().requests();
        assert_within_policy(f, &requests);
        let request = format!("a batch of {} records", sample.records.len());
        rows.push(Row::measured("stream", f.name(), request, &requests));
    }
    rows
}

#[tokio::test]
async fn every_sample_goes_through_its_handler_within_its_policy_at_the_documented_cost() {
    let t = Template::workspace().unwrap();
    let (mut rows, batches) = tokio::join!(api_samples(&t), stream_samples(&t));
    rows.extend(batches);
    crate::cost::check_readme(&rows);
}

#[test]
fn the_policy_check_sees_resources_and_transaction_parts() {
    // The check itself: a GSI2 query under a policy scoped to GSI1 fails, and so does a
    // transaction whose part the policy lacks.
    let t = Template::workspace().unwrap();
    let get_user = t.function("get-user").unwrap();
    let query = |index| store::Request {
        operation: "Query",
        index,
        read_units: 0.5,
        write_units: 0.0,
        index_read_units: 0.0,
        items: 1,
        parts: Vec::new(),
    };
    assert_within_policy(get_user, &[query(Some("GSI1"))]);
    for wrong in [query(Some("GSI2")), query(None)] {
        let caught = std::panic::catch_unwind(|| assert_within_policy(get_user, &[wrong]));
        assert!(caught.is_err());
    }
    let put_review = t.function("put-review").unwrap();
    let tx = |parts| store::Request {
        operation: "TransactWriteItems",
        index: None,
        read_units: 0.0,
        write_units: 2.0,
        index_read_units: 0.0,
        items: 2,
        parts,
    };
    assert_within_policy(
        put_review,
        &[tx(vec!["dynamodb:PutItem", "dynamodb:ConditionCheckItem"])],
    );
    let caught = std::panic::catch_unwind(|| {
        assert_within_policy(put_review, &[tx(vec!["dynamodb:UpdateItem"])])
    });
    assert!(caught.is_err());
}

/// A record no handler owns (another source's id format, an item of no entity they derive from)
/// is skipped by both stream handlers, never a failure or poison; an owned record with such an
/// id is still poison, reported alone.
#[tokio::test]
async fn a_record_a_stream_handler_does_not_own_is_never_a_failure() {
    let sample = testkit::sample_event("commerce-stream.json");
    let mut foreign = sample["Records"][0].clone();
    foreign["eventID"] =
        "shardId-000000000000:49590338271490256608559692538361571095921575989136588898".into();
    foreign["dynamodb"]["NewImage"]["Type"] = serde_json::json!({ "S": "SomebodyElses" });
    let mut no_item = foreign.clone();
    no_item["dynamodb"]
        .as_object_mut()
        .unwrap()
        .remove("NewImage");
    for function in ["commerce-stream", "aggregate-reviews"] {
        let table = seeded_table().await;
        let event: stream_handler::Event = serde_json::from_value(serde_json::json!({
            "Records": [foreign.clone(), no_item.clone()]
        }))
        .unwrap();
        let r = crate::dispatch::handle_stream(function, &table, &event)
            .await
            .unwrap();
        assert!(r.batch_item_failures.is_empty(), "{function}: {r:?}");
        assert!(r.poison.is_empty(), "{function}: {:?}", r.poison);
        assert!(
            table.meter().requests().is_empty(),
            "{function} wrote nothing"
        );
    }
    // The same id on a record commerce-stream owns: poison, that record only.
    let mut owned = sample["Records"][0].clone();
    owned["eventID"] = foreign["eventID"].clone();
    let event: stream_handler::Event =
        serde_json::from_value(serde_json::json!({ "Records": [owned] })).unwrap();
    let table = seeded_table().await;
    let r = crate::dispatch::handle_stream("commerce-stream", &table, &event)
        .await
        .unwrap();
    assert!(r.batch_item_failures.is_empty());
    assert_eq!(r.poison.len(), 1, "{:?}", r.poison);
}
