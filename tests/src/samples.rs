use template::Template;

/// The IAM action a metered operation needs.
fn needs(operation: &str) -> &'static [&'static str] {
    match operation {
        "Query" => &["dynamodb:Query"],
        "GetItem" => &["dynamodb:GetItem"],
        "PutItem" => &["dynamodb:PutItem"],
        "UpdateItem" => &["dynamodb:UpdateItem"],
        "DeleteItem" => &["dynamodb:DeleteItem"],
        // A transaction needs the actions of its parts; every transaction here puts an item.
        "TransactWriteItems" => &["dynamodb:PutItem"],
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
