//! A record no retry can apply, through the real thing: DynamoDB Local's stream, the local event
//! source mapping with the template's settings, and the `commerce-stream` binary. It goes to the
//! failure queue once, is never retried, and holds nothing back.

use std::time::Duration;

use serde_json::Value;

use crate::stack::{http, start_stack};

/// Where the local stack's handlers send poison records (`FAILURE_QUEUE_URL`).
const FAILURE_FILE: &str = ".local/failures/StreamFailureQueue.jsonl";

/// `GET /_local/streams` once it says `drained` (every change so far dealt with).
async fn drained(port: u16) -> Value {
    for _ in 0..600 {
        let (status, _, body) = http(port, "GET", "/_local/streams", None, &[]).await;
        if status == 200 && body["drained"] == true {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the streams did not drain within a minute");
}

#[tokio::test]
async fn a_header_that_no_longer_decodes_goes_to_the_failure_queue_and_the_next_order_goes_on() {
    let stack = start_stack().await;
    // The stack answers once its table and mappings are made.
    drained(stack.port).await;
    let table = store::Table::new(devkit::client(), stack.table.clone());
    let customer = format!("poison-{}", ulid::Ulid::new().to_string().to_lowercase());
    commerce::fixtures::customer(&table, &customer).await;
    let now = keys::now_ms();
    let bad = commerce::fixtures::order(&table, &customer, now, &[(1, 1, 100)]).await;
    let good = commerce::fixtures::order(&table, &customer, now + 1, &[(2, 1, 100)]).await;
    drained(stack.port).await;
    // The first order's header loses ItemCount, as a hand edit (or a bug) would leave it.
    let key = keys::commerce::order_header(bad.order_id);
    let mut header = table
        .get_item(&key, store::Read::Strong, None)
        .await
        .unwrap()
        .unwrap();
    header.remove("ItemCount");
    table.put_item(header, None).await.unwrap();
    let before = drained(stack.port).await["commerce-stream"].clone();

    let staff = stack.bearer("staff-1", &["staff"]);
    for order in [bad.order_id, good.order_id] {
        let path = format!("/orders/{order}/events");
        let body = Some(r#"{"status":"SHIPPED"}"#);
        let (s, _, b) = http(
            stack.port,
            "POST",
            &path,
            body,
            &[("authorization", &staff)],
        )
        .await;
        assert_eq!(s, 201, "{b}");
    }
    let after = drained(stack.port).await["commerce-stream"].clone();

    assert_eq!(
        after["retries"], before["retries"],
        "nothing was retried: {after}"
    );
    let good_header = table
        .get_item(
            &keys::commerce::order_header(good.order_id),
            store::Read::Strong,
            None,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        good_header["Status"].as_s().unwrap(),
        "SHIPPED",
        "the order behind it was applied"
    );
    let root = sam_template::workspace_root();
    let lines = std::fs::read_to_string(root.join(FAILURE_FILE)).unwrap_or_default();
    let sent: Vec<Value> = lines
        .lines()
        .filter(|l| l.contains(&bad.order_id.to_string()))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(sent.len(), 1, "sent once: {sent:#?}");
    assert_eq!(sent[0]["function"], "commerce-stream");
    assert_eq!(sent[0]["record"]["eventName"], "INSERT");
    let reason = sent[0]["reason"].as_str().unwrap();
    assert!(reason.contains("ItemCount"), "{reason}");
}
