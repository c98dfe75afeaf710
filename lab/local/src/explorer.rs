//! The item-collection explorer, `GET /_local/explorer`: a page (`explorer.html`) and the few
//! JSON answers it reads. Pick a partition of the table or of a GSI and see its items in
//! DynamoDB's order, each named as its entity by the key registry and its keys split at their
//! delimiters; run an access pattern of the catalogue through the gateway and see the DynamoDB
//! requests its function sent (the [`Recorder`]'s exchanges), what they read and consumed.
//!
//! Local only, like everything under `/_local`: it answers only requests addressed to a loopback
//! name (a page elsewhere cannot reach it through DNS rebinding), sends no CORS headers, and its
//! token endpoint signs with the local issuer that `make token` uses.

use std::{
    collections::{BTreeMap, HashMap},
    future::Future,
    pin::Pin,
    sync::Arc,
};

use aws_sdk_dynamodb::{Client, types::AttributeValue};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use keys::{Space, registry};
use serde_json::{Value, json};

pub mod recorder;

use crate::apigw::{LocalSite, jwt::Issuer, payload, routes::percent_decode};
use recorder::Recorder;

pub const PATH: &str = "/_local/explorer";

type Item = HashMap<String, AttributeValue>;

const PAGE: &str = include_str!("explorer/explorer.html");

/// A partition's items shown at most (pages of a Query, in order).
const MAX_ITEMS: usize = 1_000;
/// Items a partition list looks at, at most (a Scan of the keys: this is a developer's tool on
/// a local table, never an access pattern).
const MAX_SCANNED: usize = 20_000;

pub struct Explorer {
    /// Every table of the layout (`TableLayout`), `Table`'s first, with its global indexes: a
    /// partition is looked for in each table that has its index (keys never meet across
    /// contexts, so at most one holds it).
    pub tables: Vec<(String, Vec<String>)>,
    pub client: Client,
    pub recorder: Arc<Recorder>,
    /// The local issuer and the scope a token needs, when the API signs in.
    pub issuer: Option<(Arc<Issuer>, String)>,
}

/// Whether the request was addressed to this machine by a loopback name.
fn loopback(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

fn query_params(query: Option<&str>) -> BTreeMap<String, String> {
    query
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            // `+` is a space in a query component, as forms send it.
            let decode = |s: &str| percent_decode(&s.replace('+', " "));
            (decode(k), decode(v))
        })
        .collect()
}

fn space_of(index: &str) -> Option<Space> {
    match index {
        "table" | "" => Some(Space::Base),
        _ => Space::ALL.into_iter().find(|s| s.index() == Some(index)),
    }
}

/// The key attribute names of a space.
fn key_names(space: Space) -> (&'static str, &'static str) {
    use keys::attr;
    match space {
        Space::Base => (attr::PK, attr::SK),
        Space::Gsi1 => (attr::GSI1PK, attr::GSI1SK),
        Space::Gsi2 => (attr::GSI2PK, attr::GSI2SK),
    }
}

fn text(item: &Item, name: &str) -> String {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default()
}

/// An item as the page shows it: its entity, its keys split at the delimiter, its attributes.
pub fn annotate(space: Space, item: &Item) -> Value {
    let (pk_name, sk_name) = key_names(space);
    let (pk, sk) = (text(item, pk_name), text(item, sk_name));
    let kinds = registry::classify(space, &pk, &sk);
    let split = |k: &str| -> Vec<String> { k.split(keys::DELIMITER).map(str::to_owned).collect() };
    json!({
        "entity": kinds.first().map(|k| k.entity),
        "context": kinds.first().map(|k| k.context),
        "pk": pk,
        "sk": sk,
        "pkParts": split(&pk),
        "skParts": split(&sk),
        "item": devkit::json::item(item),
    })
}

impl Explorer {
    /// The answer to a request under [`PATH`]; `None` for any other path.
    pub async fn handle(
        &self,
        method: &http::Method,
        path: &str,
        query: Option<&str>,
        headers: &HeaderMap,
    ) -> Option<Response<Bytes>> {
        let rest = path.strip_prefix(PATH)?;
        if !rest.is_empty() && !rest.starts_with('/') {
            return None;
        }
        if !loopback(headers) {
            return Some(payload::error_response(
                StatusCode::FORBIDDEN,
                "the explorer answers requests to 127.0.0.1 or localhost only",
            ));
        }
        if method != http::Method::GET {
            return Some(payload::error_response(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method Not Allowed",
            ));
        }
        let params = query_params(query);
        let param = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
        Some(match rest {
            "" | "/" => {
                let mut page = Response::new(Bytes::from_static(PAGE.as_bytes()));
                page.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/html; charset=utf-8"),
                );
                page
            }
            "/patterns" => payload::json_response(StatusCode::OK, &patterns()),
            "/partitions" => match space_of(param("index")) {
                Some(space) => self.partitions(space).await,
                None => bad_request("index: table, GSI1 or GSI2"),
            },
            "/partition" => match (space_of(param("index")), param("pk")) {
                (Some(_), "") => bad_request("pk: the partition key"),
                (Some(space), pk) => self.partition(space, pk).await,
                (None, _) => bad_request("index: table, GSI1 or GSI2"),
            },
            "/token" => self.token(param("caller")),
            "/exchanges" => {
                let since = param("since").parse().unwrap_or(u64::MAX);
                let function = Some(param("function")).filter(|f| !f.is_empty());
                payload::json_response(
                    StatusCode::OK,
                    &json!({
                        "next": self.recorder.next_seq(),
                        "exchanges": self.recorder.since(since, function),
                    }),
                )
            }
            _ => payload::error_response(StatusCode::NOT_FOUND, "Not Found"),
        })
    }

    /// The tables that have `space`'s index (every table for the table's own space).
    fn tables_of(&self, space: Space) -> impl Iterator<Item = &str> {
        self.tables
            .iter()
            .filter(move |(_, indexes)| {
                space.index().is_none_or(|i| indexes.iter().any(|x| x == i))
            })
            .map(|(name, _)| name.as_str())
    }

    /// The partition keys of a space, with how many items each holds, sorted.
    async fn partitions(&self, space: Space) -> Response<Bytes> {
        let (pk_name, _) = key_names(space);
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut scanned = 0;
        let mut complete = true;
        // Each table from its start; past the cap, no further table is read.
        'tables: for table in self.tables_of(space) {
            let mut start = None;
            loop {
                let out = self
                    .client
                    .scan()
                    .table_name(table)
                    .set_index_name(space.index().map(str::to_owned))
                    .projection_expression("#pk")
                    .expression_attribute_names("#pk", pk_name)
                    .set_exclusive_start_key(start)
                    .send()
                    .await;
                let out = match out {
                    Ok(out) => out,
                    Err(e) => return dynamodb_error(e),
                };
                for item in out.items() {
                    *counts.entry(text(item, pk_name)).or_default() += 1;
                }
                scanned += out.items().len();
                start = out.last_evaluated_key;
                if start.is_none() {
                    break;
                }
                if scanned >= MAX_SCANNED {
                    complete = false;
                    break 'tables;
                }
            }
        }
        let partitions: Vec<Value> = counts
            .into_iter()
            .map(|(pk, items)| json!({ "pk": pk, "items": items }))
            .collect();
        payload::json_response(
            StatusCode::OK,
            &json!({
                "index": space.index().unwrap_or("table"),
                "partitions": partitions,
                "complete": complete,
            }),
        )
    }

    /// A partition's items in DynamoDB's order, annotated, with the capacity the Query consumed.
    async fn partition(&self, space: Space, pk: &str) -> Response<Bytes> {
        let (pk_name, _) = key_names(space);
        let mut items = Vec::new();
        let mut consumed = 0.0;
        let mut complete = true;
        'tables: for table in self.tables_of(space) {
            let mut start = None;
            loop {
                let out = self
                    .client
                    .query()
                    .table_name(table)
                    .set_index_name(space.index().map(str::to_owned))
                    .key_condition_expression("#pk = :pk")
                    .expression_attribute_names("#pk", pk_name)
                    .expression_attribute_values(":pk", AttributeValue::S(pk.to_owned()))
                    .return_consumed_capacity(
                        aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total,
                    )
                    .set_exclusive_start_key(start)
                    .send()
                    .await;
                let out = match out {
                    Ok(out) => out,
                    Err(e) => return dynamodb_error(e),
                };
                consumed += out
                    .consumed_capacity
                    .as_ref()
                    .and_then(|c| c.capacity_units)
                    .unwrap_or(0.0);
                items.extend(out.items().iter().map(|i| annotate(space, i)));
                start = out.last_evaluated_key;
                if start.is_none() {
                    break;
                }
                if items.len() >= MAX_ITEMS {
                    complete = false;
                    break 'tables;
                }
            }
        }
        payload::json_response(
            StatusCode::OK,
            &json!({
                "index": space.index().unwrap_or("table"),
                "pk": pk,
                "items": items,
                "complete": complete,
                "consumedCapacity": consumed,
            }),
        )
    }

    /// A token for `caller`: `anyone` (none), `staff`, or `sub:<id>`.
    fn token(&self, caller: &str) -> Response<Bytes> {
        let (sub, groups): (&str, &[&str]) = match caller {
            "anyone" | "" => {
                return payload::json_response(StatusCode::OK, &json!({ "token": null }));
            }
            "staff" => ("explorer-staff", &["staff"]),
            other => match other.strip_prefix("sub:") {
                Some(sub) if !sub.is_empty() => (sub, &[]),
                _ => return bad_request("caller: anyone, staff or sub:<id>"),
            },
        };
        let Some((issuer, scope)) = &self.issuer else {
            return payload::json_response(StatusCode::OK, &json!({ "token": null }));
        };
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let token = issuer.access_token(sub, groups, scope, now);
        payload::json_response(StatusCode::OK, &json!({ "token": token }))
    }
}

impl LocalSite for Explorer {
    fn answer<'a>(
        &'a self,
        method: &'a http::Method,
        path: &'a str,
        query: Option<&'a str>,
        headers: &'a HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Option<Response<Bytes>>> + Send + 'a>> {
        Box::pin(self.handle(method, path, query, headers))
    }
}

/// The catalogue's patterns, with their operations, as the page lists them.
pub fn patterns() -> Value {
    let patterns: Vec<Value> = catalogue::PATTERNS
        .iter()
        .map(|p| {
            let o = p.operation();
            let caller = match p.example.caller {
                catalogue::Sender::Anyone => "anyone".to_owned(),
                catalogue::Sender::Staff => "staff".to_owned(),
                catalogue::Sender::Sub(sub) => format!("sub:{sub}"),
            };
            json!({
                "id": p.label(),
                "method": p.method.as_str(),
                "path": p.path,
                "route": p.route,
                "function": o.function,
                "summary": o.summary,
                "index": p.index.as_str(),
                "request": p.request,
                "returns": p.returns,
                "example": { "caller": caller, "target": p.example.target, "body": p.example.body },
            })
        })
        .collect();
    json!({ "patterns": patterns })
}

fn bad_request(message: &str) -> Response<Bytes> {
    payload::error_response(StatusCode::BAD_REQUEST, message)
}

fn dynamodb_error(e: impl std::fmt::Display) -> Response<Bytes> {
    payload::error_response(StatusCode::BAD_GATEWAY, &format!("DynamoDB: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_are_answered() {
        let with = |host: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
            loopback(&h)
        };
        assert!(with("127.0.0.1:3000"));
        assert!(with("localhost:3000"));
        assert!(with("localhost"));
        assert!(with("[::1]:3000"));
        assert!(!with("attacker.example:3000"));
        assert!(!with("localhost.attacker.example"));
        assert!(!loopback(&HeaderMap::new()));
    }

    #[test]
    fn query_components_are_decoded() {
        let p = query_params(Some("index=GSI1&pk=CUSTOMER%23123&x=a+b&bad=%zz"));
        assert_eq!(p["pk"], "CUSTOMER#123");
        assert_eq!(p["x"], "a b");
        assert_eq!(p["bad"], "%zz");
    }

    #[test]
    fn an_item_is_named_by_the_registry_and_its_keys_split() {
        let item = Item::from([
            ("PK".to_owned(), AttributeValue::S("CUSTOMER#123".into())),
            ("SK".to_owned(), AttributeValue::S("A".into())),
        ]);
        let shown = annotate(Space::Base, &item);
        assert_eq!(shown["entity"], "Customer");
        assert_eq!(shown["pkParts"], json!(["CUSTOMER", "123"]));
        assert_eq!(shown["item"]["PK"], json!({"S": "CUSTOMER#123"}));
        let unknown = Item::from([
            ("PK".to_owned(), AttributeValue::S("NOPE".into())),
            ("SK".to_owned(), AttributeValue::S("A".into())),
        ]);
        assert_eq!(annotate(Space::Base, &unknown)["entity"], Value::Null);
    }

    #[test]
    fn every_pattern_is_listed_with_a_runnable_example() {
        let listed = patterns();
        let list = listed["patterns"].as_array().unwrap();
        assert_eq!(list.len(), catalogue::PATTERNS.len());
        for p in list {
            assert!(p["example"]["target"].as_str().unwrap().starts_with('/'));
            assert!(p["function"].is_string());
        }
    }
}
