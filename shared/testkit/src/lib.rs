//! Test support shared by every crate's tests.
//!
//! - [`table`]: a fresh table in DynamoDB Local, created as `template.yaml` declares it, so tests
//!   run in parallel without seeing each other's items; its meter records every request;
//! - [`deps`]: a function's dependencies on that table, exactly as it declares them;
//! - [`fixtures`]: the seeds' entities written through the store, as every function's tests
//!   need them;
//! - [`event`] / [`request`]: real API Gateway HTTP API (payload v2) events, the samples of
//!   `events/` or built like them, turned into `lambda_http` requests the way the runtime does;
//! - [`item_size`] / [`query_read_units`]: DynamoDB's own size and capacity arithmetic, so a test
//!   can state the minimum a read should cost and compare it with what DynamoDB reports.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use lambda_http::{Body, Request, Response};
use model::Item;
use serde_json::{Value, json};
use store::{Deps, Needs, Table};

pub mod fixtures;

/// Signs pagination cursors in tests.
pub const TEST_CURSOR_KEY: &str = "tests-cursor-signing-key-0123456789";
/// Write shards of the sharded counters in tests (the template's default).
pub const TEST_SHARDS: u32 = 10;

/// A function's dependencies on `table`: only what `needs` declares is set, as in AWS.
pub fn deps(table: Table, needs: Needs) -> Deps {
    Deps::new(table, needs, TEST_CURSOR_KEY, TEST_SHARDS).expect("valid test settings")
}

/// An API handler's answer to `event`, as status and JSON body (errors rendered as API Gateway
/// would return them).
pub async fn call<Fut>(handler: impl FnOnce(Request) -> Fut, event: &Value) -> (u16, Value)
where
    Fut: std::future::Future<Output = Result<Response<Body>, api::ApiError>>,
{
    response_json(&api::respond(handler(request(event)).await))
}

/// Walks a paginated route from its first page to its last: `page` fetches one page with the
/// query parameters it is given (`limit`, and from the second page on the previous page's
/// `cursor`) and returns its body; the walk follows `nextCursor` until it is null. Every body, in
/// order.
pub async fn walk_pages(
    limit: &str,
    mut page: impl AsyncFnMut(&[(&str, &str)]) -> Value,
) -> Vec<Value> {
    let mut pages: Vec<Value> = Vec::new();
    loop {
        let cursor = pages
            .last()
            .map(|p| p["nextCursor"].as_str().map(str::to_owned));
        let mut query = vec![("limit", limit)];
        match &cursor {
            None => {}
            Some(Some(c)) => query.push(("cursor", c.as_str())),
            Some(None) => return pages,
        }
        assert!(pages.len() < 1000, "a walk that does not end");
        pages.push(page(&query).await);
    }
}

/// The prefixes of throwaway tables: a test's (`test-`) and a test stack's (`e2e-`).
pub const TABLE_PREFIXES: &[&str] = &["test", "e2e"];

/// A new, empty table in DynamoDB Local (at `AWS_ENDPOINT_URL_DYNAMODB`), recording every request.
/// The tables of earlier test processes are deleted first (once per process).
pub async fn table() -> Table {
    let client = dev::client();
    dev::reap_test_tables(&client, TABLE_PREFIXES).await;
    let name = dev::test_table_name("test", &ulid::Ulid::new().to_string().to_lowercase());
    dev::create_workspace_table(&client, &name)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "cannot create a table in DynamoDB Local at {} ({e}); start one with `scripts/dynamodb-local.sh start 8001` and set AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8001, or run `make test`",
                dev::endpoint()
            )
        });
    Table::new(client, name).recording()
}

/// Writes entities fast, 25 to a BatchWriteItem (tests that need big collections).
pub async fn batch_put<E: model::Entity>(table: &Table, entities: &[E]) {
    use store::aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
    for chunk in entities.chunks(25) {
        let mut pending: Vec<WriteRequest> = chunk
            .iter()
            .map(|e| {
                let put = PutRequest::builder()
                    .set_item(Some(model::to_item(e).expect("an item")))
                    .build()
                    .expect("a put");
                WriteRequest::builder().put_request(put).build()
            })
            .collect();
        while !pending.is_empty() {
            let out = table
                .client()
                .batch_write_item()
                .request_items(table.name(), pending)
                .send()
                .await
                .expect("batch write");
            pending = out
                .unprocessed_items
                .and_then(|mut u| u.remove(table.name()))
                .unwrap_or_default();
        }
    }
}

/// Every item of a table (tests only: the functions never scan).
pub async fn all_items(table: &Table) -> Vec<Item> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let out = table
            .client()
            .scan()
            .table_name(table.name())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        items.extend(out.items.unwrap_or_default());
        start = out.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    items.sort_by_key(key_of);
    items
}

fn key_of(item: &Item) -> (String, String) {
    let get = |k: &str| {
        item.get(k)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    (get("PK"), get("SK"))
}

/// The size DynamoDB bills for an item: the UTF-8 length of each attribute name plus its value's
/// size (strings: UTF-8 length; numbers: about 1 byte per 2 significant digits + 1; booleans and
/// nulls: 1; lists and maps: 3 + their elements, names included for maps, 1 byte per element).
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

fn value_size(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(l) => l.iter().map(String::len).sum(),
        AttributeValue::Ns(l) => l.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(l) => l.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(l) => 3 + l.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| k.len() + value_size(v) + 1)
                .sum::<usize>()
        }
        _ => 0,
    }
}

fn number_size(n: &str) -> usize {
    let digits: String = n
        .trim_start_matches('-')
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    let negative = usize::from(n.starts_with('-'));
    significant.len().div_ceil(2) + 1 + negative
}

/// Read units a Query (or Scan) costs for the items it reads: their sizes summed, then rounded up
/// to the next 4 KB, half a unit per 4 KB when eventually consistent (seed 004). Reading nothing
/// still costs the minimum.
pub fn query_read_units(items: &[Item], consistent: bool) -> f64 {
    let bytes: usize = items.iter().map(item_size).sum();
    let blocks = bytes.div_ceil(4096).max(1) as f64;
    if consistent { blocks } else { blocks / 2.0 }
}

/// A sample event of `events/` (by file name), as JSON.
pub fn sample_event(file: &str) -> Value {
    let path = template::workspace_root().join("events").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// `%XX`-encodes every byte but the unreserved ones, as a client sends a query value.
pub fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Decodes `%XX` escapes (a malformed one is kept as it is), as API Gateway decodes path
/// parameters.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An API Gateway HTTP API (payload v2) event for a route of the template: `route` is the
/// route key (`GET /customers/{customerId}`), `path` the concrete path as a client sends it
/// (percent-encoded: path parameters arrive decoded), `query` the decoded query parameters
/// (`rawQueryString` gets them encoded).
pub fn event(route: &str, path: &str, query: &[(&str, &str)], body: Option<&str>) -> Value {
    let (method, template_path) = route.split_once(' ').expect("route key");
    let params: HashMap<String, String> = template_path
        .split('/')
        .zip(path.split('/'))
        .filter_map(|(t, v)| {
            t.strip_prefix('{')
                .and_then(|t| t.strip_suffix('}'))
                .map(|name| (name.to_owned(), percent_decode(v)))
        })
        .collect();
    let raw_query = query
        .iter()
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let qs: HashMap<&str, &str> = query.iter().copied().collect();
    json!({
        "version": "2.0",
        "routeKey": route,
        "rawPath": path,
        "rawQueryString": raw_query,
        "headers": { "content-type": "application/json", "host": "api.example.com" },
        "queryStringParameters": if qs.is_empty() { Value::Null } else { json!(qs) },
        "pathParameters": params,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api",
            "domainName": "api.example.com",
            "domainPrefix": "api",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "testkit"
            },
            "requestId": ulid::Ulid::new().to_string(),
            "routeKey": route,
            "stage": "$default",
            "time": "22/Nov/2026:10:00:00 +0000",
            "timeEpoch": 1795860000000u64
        },
        "body": body,
        "isBase64Encoded": false
    })
}

/// The event as API Gateway passes it after its JWT authorizer accepted a token for `sub` in
/// `groups`: claims flattened to strings (a list as `[a b]`), the token's scopes.
pub fn signed_in_as(mut event: Value, sub: &str, groups: &[&str]) -> Value {
    let mut claims = json!({
        "sub": sub,
        "iss": "https://issuer.example.com",
        "client_id": "testkit",
        "token_use": "access",
        "scope": "aws.cognito.signin.user.admin",
        "exp": "4102444800",
        "iat": "1795860000",
    });
    if !groups.is_empty() {
        claims[api::auth::GROUPS_CLAIM] = json!(format!("[{}]", groups.join(" ")));
    }
    event["requestContext"]["authorizer"] = json!({
        "jwt": { "claims": claims, "scopes": ["aws.cognito.signin.user.admin"] }
    });
    event
}

/// The event as a member of the staff group (`staff-1`) sends it.
pub fn as_staff(event: Value) -> Value {
    signed_in_as(event, "staff-1", &[api::auth::STAFF_GROUP])
}

/// Sets a header on an event.
pub fn with_header(mut event: Value, name: &str, value: &str) -> Value {
    event["headers"][name.to_ascii_lowercase()] = json!(value);
    event
}

/// Turns an event into the request a handler receives, as the Lambda runtime does.
pub fn request(event: &Value) -> Request {
    lambda_http::request::from_str(&event.to_string())
        .unwrap_or_else(|e| panic!("not an API Gateway event: {e}"))
}

/// A response's status and JSON body (`Null` when empty).
pub fn response_json(response: &Response<Body>) -> (u16, Value) {
    let body = match response.body() {
        Body::Text(t) => t.as_bytes().to_vec(),
        Body::Binary(b) => b.clone(),
        _ => Vec::new(),
    };
    let json = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).unwrap_or_else(|e| panic!("body is not JSON: {e}"))
    };
    (response.status().as_u16(), json)
}

/// An item in DynamoDB JSON (`{"S": ".."}`, `{"N": ".."}`, ...), as stream records carry it.
pub fn dynamodb_json(item: &Item) -> Value {
    dev::json::item(item)
}

/// What happened to an item, for [`stream_record`].
pub enum Change<'a> {
    Insert(&'a Item),
    Modify(&'a Item, &'a Item),
    Remove(&'a Item),
    /// A removal by DynamoDB's TTL.
    TtlRemove(&'a Item),
}

/// One DynamoDB Streams record as Lambda delivers it (`NEW_AND_OLD_IMAGES`), with sequence
/// number `seq` (written zero padded, as DynamoDB's are: they compare as numbers).
pub fn stream_record(event_id: &str, seq: u64, change: Change<'_>) -> Value {
    let (name, old, new) = match change {
        Change::Insert(n) => ("INSERT", None, Some(n)),
        Change::Modify(o, n) => ("MODIFY", Some(o), Some(n)),
        Change::Remove(o) | Change::TtlRemove(o) => ("REMOVE", Some(o), None),
    };
    let any = new.or(old).expect("an image");
    let keys: Item = any
        .iter()
        .filter(|(k, _)| *k == "PK" || *k == "SK")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut dynamodb = json!({
        "ApproximateCreationDateTime": 1_795_860_000,
        "Keys": dynamodb_json(&keys),
        "SequenceNumber": format!("{seq:021}"),
        "SizeBytes": item_size(any),
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    });
    if let Some(o) = old {
        dynamodb["OldImage"] = dynamodb_json(o);
    }
    if let Some(n) = new {
        dynamodb["NewImage"] = dynamodb_json(n);
    }
    let mut record = json!({
        "eventID": event_id,
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": dynamodb,
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/test/stream/2026-11-22T00:00:00.000",
    });
    if matches!(change, Change::TtlRemove(_)) {
        record["userIdentity"] =
            json!({ "type": "Service", "principalId": "dynamodb.amazonaws.com" });
    }
    record
}

/// A DynamoDB Streams event of these records, as the handler receives it.
pub fn stream_event(records: Vec<Value>) -> streams::Event {
    serde_json::from_value(json!({ "Records": records })).expect("a DynamoDB Streams event")
}
