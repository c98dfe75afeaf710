//! What a stranger can read from a cursor: nothing. Every paginated route's pages, walked one item
//! at a time on the local stack over the seeds (derived rankings included), as the route's own
//! examples ask for them, give cursors that are opened here with the stack's key to learn what they
//! hold (the `LastEvaluatedKey`, the binding), and then read as a stranger would read them, every
//! part base64-decoded: no key value, no piece of one, and no part of the binding may show.

use api::{Method, function::Sender};
use aws_sdk_dynamodb::types::AttributeValue;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use std::time::Duration;
use store::cursor::CursorCodec;

use crate::stack::{Stack, http};

/// Most pages walked per example: the seeds' longest walk at `limit=1` is shorter.
const MAX_PAGES: usize = 60;

/// Every byte a stranger can get out of `cursor`.
fn what_a_stranger_reads(cursor: &str) -> Vec<u8> {
    cursor
        .split('.')
        .flat_map(|part| {
            let mut bytes = part.as_bytes().to_vec();
            bytes.extend(URL_SAFE_NO_PAD.decode(part).unwrap_or_default());
            bytes
        })
        .collect()
}

/// The pieces of key material a cursor must not show: each value whole and each of its parts
/// between delimiters (`#`, `|`, `/`) long enough to mean something (a two-letter part would be
/// found in random bytes).
fn key_material(binding: &str, key: &model::Item) -> Vec<String> {
    let values = key.values().filter_map(|v| match v {
        AttributeValue::S(s) => Some(s.clone()),
        AttributeValue::N(n) => Some(n.clone()),
        _ => None,
    });
    let whole: Vec<String> = values.chain([binding.to_owned()]).collect();
    let parts = whole.iter().flat_map(|v| {
        v.split(['#', '|', '/'])
            .map(str::to_owned)
            .collect::<Vec<_>>()
    });
    let mut material: Vec<String> = whole.iter().cloned().chain(parts).collect();
    material.retain(|m| m.len() >= 4);
    material.sort();
    material.dedup();
    material
}

/// The token of an example's sender on `stack`.
fn token(stack: &Stack, sender: Sender) -> Option<String> {
    match sender {
        Sender::Anyone => None,
        Sender::Sub(sub) => Some(stack.bearer(sub, &[])),
        Sender::Staff => Some(stack.bearer("staff-1", &[api::auth::STAFF_GROUP])),
    }
}

#[tokio::test]
async fn no_paginated_route_gives_a_cursor_a_stranger_can_read() {
    let stack = crate::stack::start_stack().await;
    let (status, ..) = http(stack.port, "GET", "/_local/streams", None, &[]).await;
    assert_eq!(status, 200, "the stack has made its table");
    let table = store::Table::new(devkit::client(), stack.table.clone());
    tools::seed::load(&table).await.unwrap();
    tools::org::load(&table).await.unwrap();
    // Every create's own example too (a second certificate, so that L11-L13 have a next page).
    for function in catalogue::FUNCTIONS.iter() {
        for route in function.routes.iter().filter(|r| r.method == Method::Post) {
            for example in route.patterns.iter().map(|p| &p.example) {
                let token = token(&stack, example.caller);
                let headers: Vec<(&str, &str)> = example
                    .headers
                    .iter()
                    .copied()
                    .chain(token.iter().map(|t| ("authorization", t.as_str())))
                    .collect();
                http(stack.port, "POST", example.target, example.body, &headers).await;
            }
        }
    }
    crate::load::drained(&stack, Duration::from_secs(300)).await;
    let codec = CursorCodec::new(crate::stack::CURSOR_KEY).unwrap();
    let (mut routes, mut cursors) = (Vec::new(), 0);
    for function in catalogue::FUNCTIONS.iter() {
        for route in function.routes {
            if route.page.is_none() {
                continue;
            }
            let mut issued = 0;
            for pattern in route.patterns {
                let token = token(&stack, pattern.example.caller);
                let headers: Vec<(&str, &str)> = token
                    .iter()
                    .map(|t| ("authorization", t.as_str()))
                    .collect();
                let target = pattern.example.target;
                // The example's own query, at one item a page.
                let (path, query) = target.split_once('?').unwrap_or((target, ""));
                let query = query
                    .split('&')
                    .filter(|p| !p.is_empty() && !p.starts_with("limit="));
                let query: Vec<&str> = query.chain(["limit=1"]).collect();
                let first = format!("{path}?{}", query.join("&"));
                let mut next = first.clone();
                for _ in 0..MAX_PAGES {
                    let (status, _, body) = http(stack.port, "GET", &next, None, &headers).await;
                    assert_eq!(status, 200, "{} {next}: {body}", function.name);
                    let Some(cursor) = body["nextCursor"].as_str() else {
                        break;
                    };
                    let (binding, key) = codec.open(cursor).expect("a cursor of the stack's");
                    let seen = what_a_stranger_reads(cursor);
                    for m in key_material(&binding, &key) {
                        assert!(
                            !seen.windows(m.len()).any(|w| w == m.as_bytes()),
                            "{} {target}: {m:?} can be read in its cursor {cursor}",
                            function.name
                        );
                    }
                    issued += 1;
                    next = format!("{first}&cursor={}", testkit::percent_encode(cursor));
                }
            }
            cursors += issued;
            routes.push((function.name, route.path, issued));
        }
    }
    let without: Vec<_> = routes.iter().filter(|(_, _, n)| *n == 0).collect();
    assert!(
        without.is_empty(),
        "these paginated routes gave no cursor over the seeds at limit=1, so nothing was checked: {without:?}"
    );
    assert!(cursors > routes.len(), "{routes:?}");
}
