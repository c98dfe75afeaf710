//! DynamoDB goes away under the running stack, and comes back. The test runs its own DynamoDB
//! Local (the shared one serves the other tests), with its database in a directory of its own so
//! that the table outlives the stop, and the local stack against it. While DynamoDB Local is
//! stopped, every route, sent each of its patterns' examples, answers 503 `unavailable` with
//! `Retry-After`, never a 500 (the functions reach DynamoDB through the stack's recorder, which
//! answers 502 when it cannot connect: as a load balancer in front of a dead server would; a
//! refused connection itself is `store`'s test). Once it is started again, reads and writes go
//! through and the stream consumers catch up.

use api::function::Sender;
use futures::StreamExt;
use serde_json::Value;

pub(crate) use devkit::own_local::OwnDynamoDbLocal;

use crate::stack::{Stack, http, start_stack_on};

/// One request, as sent.
pub(crate) struct Request {
    pub(crate) method: &'static str,
    pub(crate) target: &'static str,
    pub(crate) body: Option<&'static str>,
    /// The example's own, and the caller's token.
    pub(crate) headers: Vec<(&'static str, String)>,
}

/// Each route's examples, with the caller's token.
fn every_example(stack: &Stack) -> Vec<Request> {
    examples_of(stack, |_| true)
}

/// The examples of the routes of the functions `keep` keeps, with the caller's token.
pub(crate) fn examples_of(stack: &Stack, keep: impl Fn(&str) -> bool) -> Vec<Request> {
    let mut requests = Vec::new();
    for function in catalogue::FUNCTIONS.iter().filter(|f| keep(f.name)) {
        for route in function.routes {
            for pattern in route.patterns {
                let example = &pattern.example;
                let mut headers: Vec<(&str, String)> = example
                    .headers
                    .iter()
                    .map(|(k, v)| (*k, v.to_string()))
                    .collect();
                let token = match example.caller {
                    Sender::Anyone => None,
                    Sender::Sub(sub) => Some(stack.bearer(sub, &[])),
                    Sender::Staff => Some(stack.bearer("staff-1", &["staff"])),
                };
                headers.extend(token.map(|t| ("authorization", t)));
                requests.push(Request {
                    method: route.method.as_str(),
                    target: example.target,
                    body: example.body,
                    headers,
                });
            }
        }
    }
    requests
}

/// The status, `Retry-After` and body of one request.
pub(crate) async fn send(port: u16, request: &Request) -> (u16, Option<String>, Value) {
    let headers: Vec<(&str, &str)> = request
        .headers
        .iter()
        .map(|(k, v)| (*k, v.as_str()))
        .collect();
    let (status, head, json) =
        http(port, request.method, request.target, request.body, &headers).await;
    let retry_after = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("retry-after")
            .then(|| value.trim().to_owned())
    });
    (status, retry_after, json)
}

#[tokio::test]
async fn an_outage_answers_503_with_retry_after_on_every_route_and_the_stack_recovers() {
    let ddb = OwnDynamoDbLocal::start();
    let stack = start_stack_on(&ddb.endpoint()).await;
    let p = stack.port;
    let ann = stack.bearer("outage-ann", &[]);
    let ann = [("authorization", ann.as_str())];
    let (s, _, b) = http(
        p,
        "PUT",
        "/customers/outage-ann",
        Some(r#"{"name":"Ann","email":"ann@example.com"}"#),
        &ann,
    )
    .await;
    assert_eq!(s, 201, "{b}");

    ddb.down();
    let requests = every_example(&stack);
    // A few at a time: on a loaded machine, 70 cold starts at once would leave the debug
    // binaries' invocations short of their 10 s timeout.
    let answers: Vec<_> = futures::stream::iter(requests.iter().map(|request| send(p, request)))
        .buffered(8)
        .collect()
        .await;
    let mut wrong = Vec::new();
    for (Request { method, target, .. }, (status, retry_after, body)) in
        requests.iter().zip(&answers)
    {
        let code = body["code"].as_str().unwrap_or_default();
        if (*status, code, retry_after.as_deref()) != (503, "unavailable", Some("5")) {
            wrong.push(format!(
                "{method} {target}: {status} {retry_after:?} {body}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} requests did not answer 503 unavailable with Retry-After: 5:\n{}",
        wrong.len(),
        requests.len(),
        wrong.join("\n")
    );
    // Logged as what it is: a WARN with the failure (an ERROR is a bug or a deployment to fix,
    // what an operator is paged for).
    let errors: Vec<String> = catalogue::FUNCTIONS
        .iter()
        .flat_map(|f| {
            stack
                .function_output(f.name)
                .lines()
                .filter(|l| l.contains(r#""level":"ERROR""#))
                .map(|l| format!("{}: {l}", f.name))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));

    // Back: the customer written before is there, and the first order after is counted by the
    // stream consumer (which kept polling through the outage) in the customer's item.
    ddb.up();
    let (s, _, b) = http(p, "GET", "/customers/outage-ann", None, &ann).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["customer"]["name"], "Ann");
    let (s, _, b) = http(
        p,
        "PUT",
        "/products/7001",
        Some(r#"{"name":"Lamp","price":1200,"currency":"EUR"}"#),
        &[("authorization", &stack.bearer("staff-1", &["staff"]))],
    )
    .await;
    assert!(s == 200 || s == 201, "{s} {b}");
    let (s, _, b) = http(
        p,
        "POST",
        "/customers/outage-ann/orders",
        Some(r#"{"items":[{"sku":7001,"quantity":2}]}"#),
        &ann,
    )
    .await;
    assert_eq!(s, 201, "{b}");
    let mut counted = Value::Null;
    for _ in 0..600 {
        let (_, _, b) = http(p, "GET", "/customers/outage-ann", None, &ann).await;
        counted = b["customer"]["orderCount"].clone();
        if counted == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(counted, 1, "the stream consumer caught up after the outage");
}
