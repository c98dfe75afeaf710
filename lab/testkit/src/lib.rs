//! Test support shared by every crate's tests.
//!
//! - [`table`]: a fresh table in DynamoDB Local, created as `template.yaml` declares it, so tests
//!   run in parallel without seeing each other's items; its meter records every request;
//! - [`deps`]: a function's dependencies on that table, exactly as it declares them;
//! - [`Harness`]: one API function under test on that table (or on a fresh one of its own,
//!   [`Harness::on_new_table`]), its handler called in process with events built on its declared
//!   routes (`h.as_staff().get("/orders", &[])`);
//! - [`event`] / [`request`]: real API Gateway HTTP API (payload v2) events, the samples of
//!   `events/` or built like them, turned into `lambda_http` requests the way the runtime does;
//! - [`item_size`] / [`query_read_units`]: DynamoDB's own size and capacity arithmetic, so a test
//!   can state the minimum a read should cost and compare it with what DynamoDB reports.
//! - what function tests check and read back again and again, once: [`assert_errors`] (a table of
//!   bad requests, each its status, code and message), [`assert_one_index_query`] (one query of an
//!   index, paying the minimum), [`assert_one_small_get`] (one GetItem for half a unit),
//!   [`walk_one_query_per_page`] (a walk, each page one query paying for what it shows),
//!   [`assert_cursor_refused_by_another_read`], [`column()`] (the ids of a page; [`joined`],
//!   [`column_of_pages`]) and [`items_with`] (a partition).
//!
//! Each context's fixtures (the seeds' entities, written through its own writes) are its
//! crate's (`commerce::fixtures`, `hr::fixtures::org_with` for a table with the HR org).
//!
//! The DynamoDB helpers among them (tables, stream records, sizes, a cancelled
//! transaction for the mocks) are `dev`'s,
//! re-exported here: the benchmarks and maintenance commands use them outside tests.

mod harness;

use std::collections::HashMap;

use lambda_http::{Body, Request, Response};
use model::Item;
use serde_json::{Value, json};

pub use harness::{Call, Harness};

pub use devkit::{
    Change, TABLE_PREFIXES, TEST_CURSOR_KEY, TEST_SHARDS, TEST_STREAM_ARN, all_items, batch_put,
    cancelled, deps, item_size, query_read_units, stream_event, stream_event_of, stream_record,
    table, write_units,
};

/// Whether `path` fits the route path `route` (`/users/{username}`): literal segments equal, a
/// `{parameter}` any segment. If it does, how many literal segments the route has: of several
/// routes a path fits, API Gateway takes the one with the most.
pub fn route_fit(route: &str, path: &str) -> Option<usize> {
    let (template, segments): (Vec<&str>, Vec<&str>) =
        (route.split('/').collect(), path.split('/').collect());
    let fits = template.len() == segments.len()
        && (template.iter().zip(&segments)).all(|(t, s)| t.starts_with('{') || t == s);
    fits.then(|| template.iter().filter(|t| !t.starts_with('{')).count())
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

/// A page of a metered walk: `table`'s meter reset, the page fetched by `get` with `query` (it
/// must be a 200), its body and the requests it made.
async fn metered_page(
    table: &store::Table,
    get: &mut impl AsyncFnMut(&[(&str, &str)]) -> (u16, Value),
    query: &[(&str, &str)],
) -> (Value, Vec<store::Request>) {
    table.meter().reset();
    let (s, body) = get(query).await;
    assert_eq!(s, 200, "{body}");
    (body, table.meter().requests())
}

/// Asserts that `answer`, a first page asked for without a `limit`, is a 200 listing `len`
/// records under `list`, read in one request of `table` (its meter reset before the call).
#[track_caller]
pub fn assert_default_page(table: &store::Table, answer: &(u16, Value), list: &str, len: usize) {
    let (s, body) = answer;
    let listed = body[list].as_array().map(Vec::len);
    assert_eq!((*s, listed), (200, Some(len)), "{body}");
    assert_eq!(
        table.meter().requests().len(),
        1,
        "the default page is one query"
    );
}

/// [`walk_pages`] `limit` at a time, asserting of every page that it is a 200 whose requests
/// consumed at most [`store::PAGE_READ_BUDGET`] read units (table and indexes together, as
/// `table`'s meter recorded them). `get` fetches a page and returns its status and body. Every
/// body, in order.
pub async fn walk_within_read_budget(
    table: &store::Table,
    limit: &str,
    mut get: impl AsyncFnMut(&[(&str, &str)]) -> (u16, Value),
) -> Vec<Value> {
    walk_pages(limit, async |q| {
        let (body, requests) = metered_page(table, &mut get, q).await;
        let spent: f64 = requests
            .iter()
            .map(|r| r.read_units + r.index_read_units)
            .sum();
        assert!(
            spent <= store::PAGE_READ_BUDGET,
            "a page consumed {spent} units"
        );
        body
    })
    .await
}

/// [`walk_pages`] `limit` at a time, asserting of every page that it took one query, which read
/// the items `shown` finds stored for that page and paid DynamoDB's minimum for them: on the
/// table, or with `index` on that index. `get` fetches a page and returns its status and body,
/// which must be 200. Every body, in order.
pub async fn walk_one_query_per_page(
    table: &store::Table,
    index: Option<&str>,
    limit: &str,
    mut get: impl AsyncFnMut(&[(&str, &str)]) -> (u16, Value),
    mut shown: impl AsyncFnMut(&Value) -> Vec<Item>,
) -> Vec<Value> {
    walk_pages(limit, async |q| {
        let (body, requests) = metered_page(table, &mut get, q).await;
        assert_eq!(requests.len(), 1, "one query per page");
        let read = shown(&body).await;
        let query = &requests[0];
        assert_eq!(query.items, read.len());
        let paid = match index {
            None => query.read_units,
            Some(index) => {
                assert_eq!(query.index, Some(index));
                query.index_read_units
            }
        };
        assert_eq!(paid, query_read_units(&read, false));
        body
    })
    .await
}

/// Every item of `table` whose attribute `name` is the string `value`: a partition of the table
/// or of an index (`items_with(&table, "GSI1PK", "REP#E1")`), in the order a scan reads them.
pub async fn items_with(table: &store::Table, name: &str, value: &str) -> Vec<Item> {
    let has = |i: &Item| {
        i.get(name)
            .and_then(|v| v.as_s().ok())
            .is_some_and(|s| s == value)
    };
    all_items(table).await.into_iter().filter(has).collect()
}

/// Asserts that `table`'s meter holds one request: a Query of the index `index` that returned
/// `items` items and paid DynamoDB's minimum for the items it had to read, `paid_for`, on the
/// index alone (nothing from the table).
pub fn assert_one_index_query(table: &store::Table, index: &str, items: usize, paid_for: &[Item]) {
    let requests = table.meter().requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let query = &requests[0];
    let got = (query.operation, query.index, query.items);
    assert_eq!(got, ("Query", Some(index), items));
    assert_eq!(query.index_read_units, query_read_units(paid_for, false));
    assert_eq!(query.read_units, 0.0, "nothing read from the table");
}

/// Asserts that `table`'s meter holds one request: a GetItem of one item that paid half a unit,
/// an eventually consistent read of an item under 4 KB.
pub fn assert_one_small_get(table: &store::Table) {
    let requests = table.meter().requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let get = &requests[0];
    assert_eq!(
        (get.operation, get.items, get.read_units),
        ("GetItem", 1, 0.5),
        "one eventually consistent read of an item under 4 KB"
    );
}

/// Asserts that the cursor of the first page of `path` with `query` is refused (400
/// `invalid_cursor`) by `path` with `other` query parameters: a cursor serves the read that made
/// it and no other.
pub async fn assert_cursor_refused_by_another_read(
    h: &Harness,
    path: &str,
    query: &[(&str, &str)],
    other: &[(&str, &str)],
) {
    let (_, body) = h.get(path, query).await;
    let cursor = body["nextCursor"].as_str().expect("a next page").to_owned();
    let other: Vec<_> = other
        .iter()
        .copied()
        .chain([("cursor", &*cursor)])
        .collect();
    let (s, body) = h.get(path, &other).await;
    assert_eq!((s, body["code"].as_str()), (400, Some("invalid_cursor")));
}

/// Asserts that `answer` is the refusal `status` with the stable error `code`; a failure shows
/// `what` was sent and the body.
#[track_caller]
pub fn assert_refused(answer: &(u16, Value), status: u16, code: &str, what: &str) {
    let (s, body) = answer;
    assert_eq!(
        (*s, body["code"].as_str()),
        (status, Some(code)),
        "{what}: {body}"
    );
}

/// Sends every case and asserts the error it expects. A case is `(request, status, code)`:
/// `send` sends the request and returns the answer's status and body, which must carry that
/// status, the stable `code` and a message. A failure names the request (its first 120
/// characters) and the body.
pub async fn assert_errors<R: std::fmt::Debug>(
    cases: impl IntoIterator<Item = (R, u16, &'static str)>,
    mut send: impl AsyncFnMut(&R) -> (u16, Value),
) {
    for (request, status, code) in cases {
        let answer = send(&request).await;
        let shown: String = format!("{request:?}").chars().take(120).collect();
        assert_refused(&answer, status, code, &shown);
        let b = &answer.1;
        let message = b["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{shown}: no message in {b}");
    }
}

/// The string `field` of every element of the JSON array `list`, in order: the ids or names a
/// page lists. Panics if `list` is not an array or an element's `field` is not a string.
pub fn column(list: &Value, field: &str) -> Vec<String> {
    joined(list, &[field], "")
}

/// [`column()`] of the array `list` of every page in `pages`, in order: what a walk listed.
pub fn column_of_pages(pages: &[Value], list: &str, field: &str) -> Vec<String> {
    pages.iter().flat_map(|p| column(&p[list], field)).collect()
}

/// The string `fields` of every element of the JSON array `list`, each element's joined by
/// `separator`, in order: a sort key (`"{date}#USER#{name}"`) or a line of a page. Panics as
/// [`column()`] does.
pub fn joined(list: &Value, fields: &[&str], separator: &str) -> Vec<String> {
    let list = list
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"));
    let text = |e: &Value, field: &str| match e[field].as_str() {
        Some(text) => text.to_owned(),
        None => panic!("no string {field} in {e}"),
    };
    list.iter()
        .map(|e| {
            fields
                .iter()
                .map(|f| text(e, f))
                .collect::<Vec<_>>()
                .join(separator)
        })
        .collect()
}

/// The string `name` and the whole number `count` of every element of the JSON array `list`, in
/// order: a cart's lines, a product's inventories. Panics as [`column()`] does.
pub fn counted<'a>(list: &'a Value, name: &str, count: &str) -> Vec<(&'a str, u64)> {
    let list = list
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"));
    let pair = |e: &'a Value| match (e[name].as_str(), e[count].as_u64()) {
        (Some(name), Some(count)) => (name, count),
        _ => panic!("no string {name} and whole number {count} in {e}"),
    };
    list.iter().map(pair).collect()
}

/// The string attributes `a` and `b` of each of `items`, in order: what a test reads back of
/// the table (`("OrderHeader", "SHIPPED")`). Panics on an item without them.
pub fn attribute_pairs<'a>(
    items: impl IntoIterator<Item = &'a Item>,
    a: &str,
    b: &str,
) -> Vec<(String, String)> {
    let text = |i: &Item, name: &str| match i.get(name).map(|v| v.as_s()) {
        Some(Ok(text)) => text.clone(),
        _ => panic!("no string {name} in {i:?}"),
    };
    items
        .into_iter()
        .map(|i| (text(i, a), text(i, b)))
        .collect()
}

/// A sample event of `events/` (by file name), as JSON.
pub fn sample_event(file: &str) -> Value {
    let path = sam_template::workspace_root().join("events").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// `%XX`-encodes every byte but the unreserved ones, as a client sends a query value or a path
/// segment.
pub use api::function::path_segment as percent_encode;

/// Decodes `%XX` escapes (a malformed one is kept as it is), as API Gateway decodes path
/// parameters.
pub fn percent_decode(s: &str) -> String {
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

/// An event as it arrives without a token (a route without an authorizer): unchanged.
pub fn anonymous(event: Value) -> Value {
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

/// Sets the query parameter `name` of an event (its others stay as they are), in both its
/// decoded parameters and its raw query string.
pub fn with_query(mut event: Value, name: &str, value: &str) -> Value {
    let mut params = event["queryStringParameters"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    params.insert(name.to_owned(), json!(value));
    let raw: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v.as_str().unwrap_or_default())))
        .collect();
    event["rawQueryString"] = json!(raw.join("&"));
    event["queryStringParameters"] = Value::Object(params);
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
    devkit::json::item(item)
}
