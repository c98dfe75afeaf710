//! The explorer (`/_local/explorer`) on the real local stack over the seeded table: partitions in
//! DynamoDB's order, named by the key registry; every access pattern of the catalogue run as the
//! page runs it (a token from the explorer, the request through the gateway), each answered with
//! a success and seen in the recorder as its function's DynamoDB requests.

use serde_json::Value;

use crate::stack::{http, start_stack};

/// A GET of the stack, its status and JSON.
async fn get(port: u16, path: &str) -> (u16, Value) {
    let (status, _, body) = http(port, "GET", path, None, &[]).await;
    (status, body)
}

#[tokio::test]
async fn the_explorer_shows_collections_in_order_and_runs_every_pattern() {
    let stack = start_stack().await;
    let port = stack.port;
    // The first answer comes once the stack has made its table.
    let (status, head, page) = http(port, "GET", "/_local/explorer", None, &[]).await;
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("text/html"));
    assert!(page.as_str().unwrap().contains("Item collections"));
    let table = store::Table::new(devkit::client(), stack.table.clone());
    tools::seed::load(&table).await.unwrap();

    // The collection of Good's data-modeling post: the orders newest last, then the customer's A
    // record after them.
    let (status, c) = get(
        port,
        &format!(
            "/_local/explorer/partition?index=table&pk={}",
            testkit::percent_encode("CUSTOMER#123")
        ),
    )
    .await;
    assert_eq!(status, 200, "{c}");
    let items = c["items"].as_array().unwrap();
    let entities: Vec<&str> = items
        .iter()
        .map(|i| i["entity"].as_str().unwrap())
        .collect();
    assert_eq!(entities.last(), Some(&"Customer"), "{entities:?}");
    assert!(entities[..entities.len() - 1].iter().all(|e| *e == "Order"));
    let sks: Vec<&str> = items.iter().map(|i| i["sk"].as_str().unwrap()).collect();
    let mut sorted = sks.clone();
    sorted.sort();
    assert_eq!(sks, sorted, "DynamoDB's order: by sort key, bytewise");
    assert_eq!(items[0]["skParts"][1], "ORDER");

    // A GSI partition: the user's reviews under R2's inverted index.
    let (status, u) = get(
        port,
        &format!(
            "/_local/explorer/partition?index=GSI1&pk={}",
            testkit::percent_encode("USER#frodo")
        ),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        u["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["entity"] == "Review")
    );
    let (status, partitions) = get(port, "/_local/explorer/partitions?index=table").await;
    assert_eq!(status, 200);
    assert!(
        partitions["partitions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["pk"] == "CUSTOMER#123")
    );

    // Every pattern's example, run as the page runs it.
    let (_, listed) = get(port, "/_local/explorer/patterns").await;
    for p in listed["patterns"].as_array().unwrap() {
        let example = &p["example"];
        let caller = example["caller"].as_str().unwrap();
        let (_, token) = get(
            port,
            &format!(
                "/_local/explorer/token?caller={}",
                testkit::percent_encode(caller)
            ),
        )
        .await;
        let (_, mark) = get(port, "/_local/explorer/exchanges?since=0&function=-").await;
        let next = mark["next"].as_u64().unwrap();
        let bearer = token["token"].as_str().map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer
            .as_deref()
            .map(|b| vec![("authorization", b)])
            .unwrap_or_default();
        let method = p["method"].as_str().unwrap();
        let target = example["target"].as_str().unwrap();
        let function = p["function"].as_str().unwrap();
        let documents = crate::metrics::documents(&stack, function).len();
        let (status, _, body) =
            http(port, method, target, example["body"].as_str(), &headers).await;
        assert!(
            (200..300).contains(&status),
            "{} {method} {target} as {caller}: {status} {body}",
            p["id"]
        );
        // Its metrics are counted under its pattern: its ID, or the function's name when the
        // catalogue numbers none (shown as "—").
        let docs = crate::metrics::invocation_count(&stack, function, documents + 1).await;
        let id = p["id"].as_str().unwrap();
        let expected = if id == "—" { function } else { id };
        assert_eq!(
            docs.get(documents).map(|d| &d["Pattern"]),
            Some(&Value::from(expected)),
            "{method} {target}: {docs:?}"
        );
        let (_, seen) = get(
            port,
            &format!("/_local/explorer/exchanges?since={next}&function={function}"),
        )
        .await;
        let exchanges = seen["exchanges"].as_array().unwrap();
        assert!(
            !exchanges.is_empty(),
            "{} {target}: no DynamoDB request recorded for {function}",
            p["id"]
        );
        for x in exchanges {
            assert_eq!(x["function"], function);
            assert_ne!(x["operation"], "?");
            // A refused condition is a 400 the function expects (put-inventory creates, then
            // replaces); DynamoDB never failed.
            assert!(x["status"].as_u64().unwrap() < 500, "{x}");
        }
        assert!(exchanges.iter().any(|x| x["status"] == 200), "{}", p["id"]);
    }

    // C1 in detail: one Query, its key condition, the capacity DynamoDB reported.
    let (_, mark) = get(port, "/_local/explorer/exchanges?since=0&function=-").await;
    let next = mark["next"].as_u64().unwrap();
    let (_, token) = get(port, "/_local/explorer/token?caller=sub%3A123").await;
    let bearer = format!("Bearer {}", token["token"].as_str().unwrap());
    let (status, _, _) = http(
        port,
        "GET",
        "/customers/123?orders=2",
        None,
        &[("authorization", &bearer)],
    )
    .await;
    assert_eq!(status, 200);
    let (_, seen) = get(
        port,
        &format!("/_local/explorer/exchanges?since={next}&function=get-customer"),
    )
    .await;
    let exchanges = seen["exchanges"].as_array().unwrap();
    assert_eq!(exchanges.len(), 1, "{seen}");
    let query = &exchanges[0];
    assert_eq!(query["operation"], "Query");
    assert!(query["request"]["KeyConditionExpression"].is_string());
    assert_eq!(query["response"]["ConsumedCapacity"]["CapacityUnits"], 0.5);
    assert_eq!(query["response"]["Items"].as_array().map(Vec::len), Some(3));
}
