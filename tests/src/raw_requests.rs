//! Requests whose URI cannot be built (a `Host` that is no host, raw `"`, `<`, `>` or spaces in
//! the query string, as API Gateway passes them on) are the client's 400 `invalid_request`,
//! never a panic of the function (a 5xx any client could cause, and one the 5xx alarm counts):
//! the real binary, sent real API Gateway HTTP API v2 events through the Runtime API, and the
//! local gateway sent a bad `Host`.

use std::time::Duration;

use local_stack::{FunctionSpec, Stack};
use serde_json::Value;

use crate::stack::{exchange, start_stack};

/// `events/get-product.json` with `change` made to it.
fn event(change: impl FnOnce(&mut Value)) -> Value {
    let path = sam_template::workspace_root().join("events/get-product.json");
    let mut event: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    change(&mut event);
    event
}

#[tokio::test]
async fn an_unbuildable_uri_is_a_400_from_the_real_binary() {
    let spec = FunctionSpec {
        name: "get-product".into(),
        binary: crate::stack::debug_binary("get-product"),
        environment: [("TABLE_NAME".to_owned(), "unused".to_owned())].into(),
        timeout: Duration::from_secs(10),
        memory_mb: 128,
        log_file: None,
    };
    let stack = Stack::start(vec![spec], 1);
    let cases: Vec<(&str, Value)> = vec![
        (
            "a Host with a space",
            event(|e| e["headers"]["host"] = "bad host".into()),
        ),
        (
            "a Host with a brace",
            event(|e| e["headers"]["host"] = "a{b".into()),
        ),
        (
            "a forwarded scheme that is no scheme",
            event(|e| e["headers"]["x-forwarded-proto"] = "ht tp".into()),
        ),
        (
            "a raw quote in the query",
            event(|e| e["rawQueryString"] = "q=\"x\"".into()),
        ),
        (
            "raw angle brackets in the query",
            event(|e| e["rawQueryString"] = "q=<b>".into()),
        ),
        (
            "a raw space in the query",
            event(|e| e["rawQueryString"] = "q=a b".into()),
        ),
    ];
    let mut wrong = Vec::new();
    for (case, event) in cases {
        let answer = match stack.invoke("get-product", &event).await {
            Ok(answer) => answer,
            Err(e) => {
                wrong.push(format!("{case}: the function failed: {e}"));
                continue;
            }
        };
        let body: Value =
            serde_json::from_str(answer["body"].as_str().unwrap_or("")).unwrap_or_default();
        if answer["statusCode"] != 400
            || body["code"] != "invalid_request"
            || answer["headers"]["content-type"] != "application/json"
        {
            wrong.push(format!("{case}: {answer}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // A request that can be built still reaches the handler (which refuses its SKU itself).
    let fine = event(|e| e["pathParameters"]["sku"] = "0".into());
    let answer = stack.invoke("get-product", &fine).await.unwrap();
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["code"], "invalid_parameter", "{answer}");
    stack.shutdown().await;
}

#[tokio::test]
async fn a_bad_host_through_the_local_gateway_is_a_400() {
    let stack = start_stack().await;
    let request = "GET /products/42 HTTP/1.1\r\nhost: bad host\r\nconnection: close\r\n\r\n";
    let (status, _, body) = exchange(stack.port, request).await;
    assert_eq!(status, 400, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["code"], "invalid_request", "{body}");
}
