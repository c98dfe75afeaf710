use template::Template;

/// The IAM action a metered operation needs.
fn needs(operation: &str) -> &'static [&'static str] {
    match operation {
        "Query" => &["dynamodb:Query"],
        "GetItem" => &["dynamodb:GetItem"],
        "PutItem" => &["dynamodb:PutItem"],
        "UpdateItem" => &["dynamodb:UpdateItem"],
        "DeleteItem" => &["dynamodb:DeleteItem"],
        "BatchGetItem" => &["dynamodb:BatchGetItem"],
        // A transaction needs the actions of its parts: the meter records them.
        "TransactWriteItems" => &[],
        other => panic!("unknown operation {other}"),
    }
}

#[tokio::test]
async fn every_sample_event_goes_through_its_handler_within_its_policy() {
    let t = Template::workspace().unwrap();
    for f in t.functions.iter().filter(|f| !f.routes.is_empty()) {
        let table = testkit::table().await;
        tools::seed::load(&table).await.unwrap();
        table.meter().reset();
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        let response = crate::dispatch::handle(f.name(), &table, testkit::request(&sample))
            .await
            .unwrap_or_else(|| panic!("no handler for {}", f.name()));
        let response = api::respond(response);
        let (status, body) = testkit::response_json(&response);
        assert!(
            (200..300).contains(&status),
            "{}: {status} {body}",
            f.name()
        );
        let requests = table.meter().requests();
        assert!(!requests.is_empty(), "{} sent nothing", f.name());
        for r in requests {
            for action in needs(r.operation).iter().chain(&r.actions) {
                assert!(
                    f.policy_actions.iter().any(|a| a == action),
                    "{} performs {} but its policy lacks {action}",
                    f.name(),
                    r.operation
                );
            }
        }
    }
}

#[tokio::test]
async fn every_sample_stream_batch_goes_through_its_handler_within_its_policy() {
    let t = Template::workspace().unwrap();
    for f in t.functions.iter().filter(|f| !f.streams.is_empty()) {
        let table = testkit::table().await;
        tools::seed::load(&table).await.unwrap();
        table.meter().reset();
        let sample: streams::Event =
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
        assert!(!requests.is_empty(), "{} wrote nothing", f.name());
        for r in requests {
            for action in needs(r.operation) {
                assert!(
                    f.policy_actions.iter().any(|a| a == action),
                    "{} performs {} but its policy lacks {action}",
                    f.name(),
                    r.operation
                );
            }
        }
    }
}
