//! What cannot be addressed or read one way only is refused, and nothing is written: ids `.` and
//! `..` (a URL cannot name them: clients and proxies resolve them away), a body naming a member
//! twice (serde_json keeps the last, other parsers the first), a query parameter given twice
//! (`?orders=1&orders=3` silently read the first), names holding invisible or control characters
//! (`A\u{200B}nn` looks like `Ann` and would be another key).

use sam_template::Template;
use serde_json::{Value, json};

use crate::dispatch;

/// The answer of `function` to `event`, against `table`.
async fn answer(function: &str, table: &store::Table, event: &Value) -> (u16, Value) {
    let response = dispatch::handle(function, table, testkit::request(event))
        .await
        .unwrap_or_else(|| panic!("no handler for {function}"));
    testkit::response_json(&response)
}

#[tokio::test]
async fn ambiguous_input_is_a_400_naming_the_field_and_writes_nothing() {
    let template = Template::workspace().unwrap();
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let before = testkit::all_items(&table).await;
    let mut wrong = Vec::new();
    let mut check = |what: String, (status, answer): (u16, Value), code: &str, names: &str| {
        let message = answer["message"].as_str().unwrap_or_default();
        if status != 400 || answer["code"] != code || !message.contains(names) {
            wrong.push(format!("{what}: {status} {answer}"));
        }
    };
    let mut duplicates = 0;
    for f in &template.functions {
        if f.routes.is_empty() || dispatch::access(f.name()).is_none() {
            continue;
        }
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        // Every path parameter, `.` and `..`.
        for name in sample["pathParameters"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.keys())
        {
            for dots in [".", ".."] {
                let mut event = sample.clone();
                event["pathParameters"][name] = json!(dots);
                let what = format!("{} {name}={dots:?}", f.name());
                check(
                    what,
                    answer(f.name(), &table, &event).await,
                    "invalid_parameter",
                    name,
                );
            }
        }
        // Every body, its first member given twice (the second time with another value).
        let body = sample["body"].as_str().unwrap_or_default();
        let Some(first) = serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|b| b.as_object().and_then(|m| m.keys().next().cloned()))
        else {
            continue;
        };
        let twice = format!(
            "{{\"{first}\": 0, {}",
            body.trim_start().trim_start_matches('{')
        );
        let mut event = sample.clone();
        event["body"] = json!(twice);
        let what = format!("{} {twice}", f.name());
        check(
            what,
            answer(f.name(), &table, &event).await,
            "duplicate_field",
            &first,
        );
        duplicates += 1;
    }
    assert!(duplicates >= 14, "only {duplicates} bodies sent twice");
    // Names that become keys, each with an invisible character: the certificate's student and
    // instructor, the course occurrence's name and location.
    let certificate = testkit::sample_event("issue-certificate.json");
    let course = testkit::sample_event("create-course-occurrence.json");
    let cases = [
        ("issue-certificate", &certificate, "student", "Ann\u{200B}"),
        (
            "issue-certificate",
            &certificate,
            "instructor",
            "\u{FEFF}Tyler",
        ),
        (
            "create-course-occurrence",
            &course,
            "courseName",
            "Intro\u{202E} to DynamoDB",
        ),
        (
            "create-course-occurrence",
            &course,
            "location",
            "Building\u{0007} 1",
        ),
        ("issue-certificate", &certificate, "student", ".."),
    ];
    for (function, sample, field, value) in cases {
        let mut body: Value = serde_json::from_str(sample["body"].as_str().unwrap()).unwrap();
        body[field] = json!(value);
        let mut event = sample.clone();
        event["body"] = json!(body.to_string());
        let what = format!("{function} {field}={value:?}");
        check(
            what,
            answer(function, &table, &event).await,
            "invalid_body",
            field,
        );
    }
    // And in a path: a course, by its name.
    let mut event = testkit::sample_event("list-course-certificates.json");
    event["pathParameters"]["course"] = json!("Intro\u{200B} to DynamoDB");
    check(
        "list-course-certificates course".into(),
        answer("list-course-certificates", &table, &event).await,
        "invalid_parameter",
        "course",
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        testkit::all_items(&table).await,
        before,
        "something was written"
    );
}

/// Every documented query parameter of every route, given twice as API Gateway sends it
/// (payload 2.0: `rawQueryString` as written, `queryStringParameters` joined with a comma, as the
/// local stack's gateway does too): a 400 `invalid_parameter` naming it, nothing written.
#[tokio::test]
async fn a_query_parameter_given_twice_is_a_400_naming_it() {
    let spec = crate::messages::openapi();
    let template = Template::workspace().unwrap();
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let before = testkit::all_items(&table).await;
    let (mut wrong, mut sent) = (Vec::new(), 0);
    for f in &template.functions {
        if f.routes.is_empty() || dispatch::access(f.name()).is_none() {
            continue;
        }
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        let route = sample["routeKey"].as_str().unwrap_or_default();
        let (method, path) = route.split_once(' ').unwrap_or_default();
        for name in crate::messages::query_parameters(&spec, method, path) {
            let mut params = sample["queryStringParameters"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let value = params
                .remove(&name)
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_else(|| "1".into());
            let mut raw: Vec<String> = params
                .iter()
                .map(|(k, v)| format!("{k}={}", testkit::percent_encode(v.as_str().unwrap())))
                .collect();
            raw.push(format!("{name}={}", testkit::percent_encode(&value)));
            raw.push(format!("{name}={}", testkit::percent_encode(&value)));
            params.insert(name.clone(), json!(format!("{value},{value}")));
            let mut event = sample.clone();
            event["rawQueryString"] = json!(raw.join("&"));
            event["queryStringParameters"] = Value::Object(params);
            sent += 1;
            let (status, answer) = answer(f.name(), &table, &event).await;
            let message = answer["message"].as_str().unwrap_or_default();
            if status != 400
                || answer["code"] != "invalid_parameter"
                || !message.starts_with(&format!("{name}: "))
            {
                wrong.push(format!("{} {name} twice: {status} {answer}", f.name()));
            }
        }
    }
    assert!(sent >= 25, "only {sent} parameters sent twice");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        testkit::all_items(&table).await,
        before,
        "something was written"
    );
}
