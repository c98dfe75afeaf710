//! A paginated route serves the page size its declaration states (`Route::paged`: `limit` from 1
//! to `max`, `default` when absent), `openapi.yaml` documents the same, and the route refuses any
//! other page before it reads anything: a `limit` out of range or not a whole number is a 400
//! `invalid_parameter`, a cursor it did not sign a 400 `invalid_cursor`. One check for every
//! paginated route, driven by the declarations; each function's own tests keep the cursors that
//! only it can tell apart (another customer's, another range's, another page size's).

use api::Page;
use serde_json::json;

/// Each bad page parameter of a route of page size `page`, and the code that refuses it.
fn bad_pages(page: Page) -> Vec<(&'static str, String, &'static str)> {
    let limit = |v: &str| ("limit", v.to_owned(), "invalid_parameter");
    vec![
        limit("0"),
        limit(&(page.max + 1).to_string()),
        limit("-1"),
        limit("2.5"),
        limit("ten"),
        ("cursor", "garbage".to_owned(), "invalid_cursor"),
    ]
}

#[test]
fn openapi_documents_each_paginated_routes_page_size() {
    let mut differ = Vec::new();
    for function in catalogue::FUNCTIONS.iter() {
        for route in function.routes {
            let Some(page) = route.page else { continue };
            let (method, path) = (route.method.as_str(), route.path);
            let schema = crate::openapi::query_schema(method, path, "limit");
            let documented = schema.map(|s| (&s["minimum"], &s["maximum"], &s["default"]));
            let declared = (&json!(1), &json!(page.max), &json!(page.default));
            if documented != Some(declared) {
                differ.push(format!(
                    "{method} {path}: {documented:?}, declared {declared:?}"
                ));
            }
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

#[tokio::test]
async fn every_paginated_route_refuses_a_page_it_does_not_serve_and_reads_nothing() {
    let table = testkit::table().await;
    let mut checked = 0;
    for function in catalogue::FUNCTIONS.iter() {
        for route in function.routes {
            let Some(page) = route.page else { continue };
            for pattern in route.patterns {
                for (name, value, code) in bad_pages(page) {
                    // The pattern's own example, which it serves, with one bad page parameter.
                    let ev = crate::sample_events::example_event(route, &pattern.example);
                    let ev = testkit::with_query(ev, name, &value);
                    let req = testkit::request(&ev);
                    let answer = crate::dispatch::handle(function.name, &table, req).await;
                    let (s, b) = testkit::response_json(&answer.expect("a handler"));
                    assert_eq!(
                        (s, b["code"].as_str().unwrap_or_default()),
                        (400, code),
                        "{} {} with {name}={value:?}: {b}",
                        function.name,
                        pattern.example.target
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0, "no paginated route");
    assert!(table.meter().requests().is_empty(), "nothing read");
}
