//! The API functions' sample events (`events/<function>.json`, for `cargo lambda invoke
//! --data-file` and the samples tests) are written from the functions' declarations: each is the
//! example of the function's last pattern, as API Gateway (HTTP API, payload v2) would pass it
//! after its JWT authorizer accepted a token for the example's caller. `make samples` writes them;
//! this test fails when a file differs from what the declarations say.
//!
//! The stream handlers' samples (`commerce-stream.json`, `aggregate-reviews.json`) are written by
//! hand: a batch of records is not an example of a route.

use api::{
    Function, Route,
    function::{Example, Sender},
};
use serde_json::{Map, Value, json};

/// Fixed where a real event varies per request, so a sample is the same whatever writes it.
const REQUEST_ID: &str = "Bq2xYhx5IAMEbXg=";
const TIME: &str = "22/Nov/2026:10:15:30 +0000";
const TIME_EPOCH_MS: u64 = 1795860930000;
const DOMAIN: &str = "abc123.execute-api.us-east-1.amazonaws.com";
/// A token's shape only: API Gateway has checked it; the functions read the claims below.
const TOKEN: &str = "Bearer eyJraWQiOiJleGFtcGxlIiwiYWxnIjoiUlMyNTYifQ.e30.c2lnbmF0dXJl";

/// `function`'s sample event: its last pattern's example (the most selective request of the
/// function, the costliest to serve) on that pattern's route.
pub fn sample(function: &Function) -> Value {
    let route = function.routes.last().expect("a route");
    let pattern = route.patterns.last().expect("a pattern");
    event(route.method.as_str(), route.path, &pattern.example)
}

/// The event of `example`, a request to `route`, as API Gateway passes it.
pub fn example_event(route: &Route, example: &Example) -> Value {
    event(route.method.as_str(), route.path, example)
}

fn event(method: &str, template: &str, example: &Example) -> Value {
    let route_key = format!("{method} {template}");
    let (path, query) = example
        .target
        .split_once('?')
        .unwrap_or((example.target, ""));
    let mut headers = Map::new();
    headers.insert("accept".into(), json!("application/json"));
    if let Some(body) = example.body {
        headers.insert("content-length".into(), json!(body.len().to_string()));
        headers.insert("content-type".into(), json!("application/json"));
    }
    headers.insert("host".into(), json!(DOMAIN));
    headers.insert("user-agent".into(), json!("curl/8.5.0"));
    headers.insert(
        "x-amzn-trace-id".into(),
        json!("Root=1-6740a1b2-0123456789abcdef01234567"),
    );
    headers.insert("x-forwarded-for".into(), json!("203.0.113.7"));
    headers.insert("x-forwarded-port".into(), json!("443"));
    headers.insert("x-forwarded-proto".into(), json!("https"));
    let signed_in = match example.caller {
        Sender::Anyone => None,
        Sender::Sub(sub) => Some((sub, None)),
        Sender::Staff => Some(("staff-1", Some(api::auth::STAFF_GROUP))),
    };
    for (name, value) in example.headers {
        headers.insert(name.to_ascii_lowercase(), json!(value));
    }
    if signed_in.is_some() {
        headers.insert("authorization".into(), json!(TOKEN));
    }

    let mut context = json!({
        "accountId": "123456789012",
        "apiId": "abc123",
        "domainName": DOMAIN,
        "domainPrefix": "abc123",
        "http": {
            "method": method,
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": "203.0.113.7",
            "userAgent": "curl/8.5.0"
        },
        "requestId": REQUEST_ID,
        "routeKey": route_key,
        "stage": "$default",
        "time": TIME,
        "timeEpoch": TIME_EPOCH_MS,
    });
    if let Some((sub, group)) = signed_in {
        let mut claims = json!({
            "sub": sub,
            "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example",
            "client_id": "example-app-client",
            "token_use": "access",
            "scope": "aws.cognito.signin.user.admin",
            "auth_time": "1795860000",
            "iat": "1795860000",
            "exp": "1795863600",
            "username": sub,
        });
        if let Some(group) = group {
            claims[api::auth::GROUPS_CLAIM] = json!(format!("[{group}]"));
        }
        context["authorizer"] = json!({
            "jwt": { "claims": claims, "scopes": ["aws.cognito.signin.user.admin"] }
        });
    }

    let mut event = Map::new();
    event.insert("version".into(), json!("2.0"));
    event.insert("routeKey".into(), json!(route_key));
    event.insert("rawPath".into(), json!(path));
    event.insert("rawQueryString".into(), json!(query));
    event.insert("headers".into(), Value::Object(headers));
    if !query.is_empty() {
        let parameters: Map<String, Value> = query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| {
                (
                    testkit::percent_decode(k),
                    json!(testkit::percent_decode(v)),
                )
            })
            .collect();
        event.insert("queryStringParameters".into(), Value::Object(parameters));
    }
    event.insert("requestContext".into(), context);
    let parameters: Map<String, Value> = template
        .split('/')
        .zip(path.split('/'))
        .filter_map(|(t, v)| {
            let name = t.strip_prefix('{')?.strip_suffix('}')?;
            Some((name.to_owned(), json!(testkit::percent_decode(v))))
        })
        .collect();
    if !parameters.is_empty() {
        event.insert("pathParameters".into(), Value::Object(parameters));
    }
    if let Some(body) = example.body {
        event.insert("body".into(), json!(body));
    }
    event.insert("isBase64Encoded".into(), json!(false));
    Value::Object(event)
}

#[test]
fn every_api_sample_is_its_functions_last_example() {
    let update = std::env::var_os("UPDATE_SAMPLES").is_some();
    let mut stale = Vec::new();
    for function in catalogue::FUNCTIONS.iter() {
        let path = sam_template::workspace_root().join(format!("events/{}.json", function.name));
        let wanted = serde_json::to_string_pretty(&sample(function)).unwrap() + "\n";
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == wanted {
            continue;
        }
        if update {
            std::fs::write(&path, wanted).unwrap();
        } else {
            stale.push(function.name);
        }
    }
    assert!(
        stale.is_empty(),
        "events/ samples that differ from their function's last example: {stale:?}; run \
         `make samples` and review the change"
    );
}
