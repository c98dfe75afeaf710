//! Error messages speak to people: every route, sent bad path parameters, bad query parameters
//! and bodies with each field wrong (another type, out of range, missing) or one too many, answers
//! a 4xx whose message names the field and what it accepts, and never speaks of Rust or serde
//! (`u32`, `i64`, `usize`, `struct`, "missing field `x`", "is not a key of the expected shape").

use sam_template::Template;
use serde_json::{Value, json};

use crate::dispatch;

/// Words of Rust and serde, not of the API.
const RUST_WORDS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "struct", "enum", "Option", "Vec", "String", "str",
];
const SERDE_PHRASES: &[&str] = &[
    "key of the expected shape",
    "missing field `",
    "unknown field `",
    "unknown variant `",
    "invalid type:",
    "invalid value:",
    "invalid length",
    "at line ",
    "expected a sequence",
    "expected a map",
];

/// What is wrong with `message` as a message to a person, if anything.
fn rust_speak(message: &str) -> Option<String> {
    let words = message.split(|c: char| !c.is_ascii_alphanumeric());
    if let Some(word) = words.into_iter().find(|w| RUST_WORDS.contains(w)) {
        return Some(format!("speaks of `{word}`"));
    }
    SERDE_PHRASES
        .iter()
        .find(|p| message.contains(*p))
        .map(|p| format!("speaks serde ({p:?})"))
}

pub(crate) fn openapi() -> Value {
    let text = std::fs::read_to_string(sam_template::workspace_root().join("openapi.yaml"))
        .expect("openapi.yaml");
    serde_yaml::from_str(&text).expect("openapi.yaml is YAML")
}

/// The query parameters `openapi.yaml` documents for `method` on `path`.
pub(crate) fn query_parameters(spec: &Value, method: &str, path: &str) -> Vec<String> {
    let item = &spec["paths"][path];
    let op = &item[method.to_ascii_lowercase()];
    let listed = [&item["parameters"], &op["parameters"]];
    let resolve = |p: &Value| match p["$ref"].as_str() {
        Some(r) => spec["components"]["parameters"][r.rsplit('/').next().unwrap()].clone(),
        None => p.clone(),
    };
    listed
        .iter()
        .filter_map(|l| l.as_array())
        .flatten()
        .map(resolve)
        .filter(|p| p["in"] == "query")
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect()
}

/// Every JSON pointer into `value` (objects' members and arrays' first elements), with the name
/// of the member it ends at.
fn pointers(value: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(members) => {
            for (name, member) in members {
                let pointer = format!("{at}/{name}");
                out.push((pointer.clone(), name.clone()));
                pointers(member, &pointer, out);
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                pointers(first, &format!("{at}/0"), out);
            }
        }
        _ => {}
    }
}

/// `body` with the member at `pointer` set to `to`, or removed when `to` is `None`.
fn changed(body: &Value, pointer: &str, to: Option<&Value>) -> Value {
    let mut body = body.clone();
    let (parent, name) = pointer.rsplit_once('/').unwrap();
    if let Some(Value::Object(members)) = body.pointer_mut(parent) {
        match to {
            Some(v) => {
                members.insert(name.to_owned(), v.clone());
            }
            None => {
                members.remove(name);
            }
        }
    }
    body
}

struct Case {
    what: String,
    event: Value,
    /// A word the message must contain: the field's name.
    names: Option<String>,
}

/// The bad variants of `sample`, a function's sample event.
fn cases(spec: &Value, sample: &Value) -> Vec<Case> {
    let mut cases = Vec::new();
    let route = sample["routeKey"].as_str().unwrap_or_default();
    let (method, path) = route.split_once(' ').unwrap_or_default();
    let bad_values = [
        "x",
        "-1",
        "0",
        "1.5",
        "..",
        ".",
        "a\u{200B}b",
        "\u{FEFF}a",
        "a\u{202E}b",
        "processing",
        "99999999999999999999",
    ];
    if let Some(params) = sample["pathParameters"].as_object() {
        for name in params.keys() {
            for bad in bad_values {
                let mut event = sample.clone();
                event["pathParameters"][name] = json!(bad);
                cases.push(Case {
                    what: format!("path {name}={bad:?}"),
                    event,
                    names: None,
                });
            }
        }
    }
    for name in query_parameters(spec, method, path) {
        for bad in bad_values {
            cases.push(Case {
                what: format!("query {name}={bad:?}"),
                event: testkit::with_query(sample.clone(), &name, bad),
                names: Some(name.clone()),
            });
        }
    }
    let body: Option<Value> = sample["body"]
        .as_str()
        .and_then(|b| serde_json::from_str(b).ok());
    if let Some(body) = body.filter(Value::is_object) {
        let mut all = Vec::new();
        pointers(&body, "", &mut all);
        let wrong = [
            json!("x"),
            json!(-1),
            json!(1.5),
            json!(true),
            json!(null),
            json!([]),
            json!({}),
            json!(1e20),
            json!(""),
        ];
        let mut with_body = |what: String, body: Value, names: &str| {
            let mut event = sample.clone();
            event["body"] = json!(body.to_string());
            cases.push(Case {
                what,
                event,
                names: Some(names.to_owned()),
            });
        };
        for (pointer, name) in &all {
            if pointer.ends_with("/0") {
                continue;
            }
            for to in &wrong {
                with_body(
                    format!("body {pointer} = {to}"),
                    changed(&body, pointer, Some(to)),
                    name,
                );
            }
            with_body(
                format!("body without {pointer}"),
                changed(&body, pointer, None),
                name,
            );
        }
        with_body(
            "body with an unknown member".into(),
            changed(&body, "/surplus", Some(&json!(1))),
            "surplus",
        );
    }
    cases
}

#[tokio::test]
async fn every_bad_input_is_answered_in_words_a_person_reads() {
    let spec = openapi();
    let template = Template::workspace().unwrap();
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let mut wrong = Vec::new();
    let mut sent = 0;
    for f in &template.functions {
        if f.routes.is_empty() || dispatch::access(f.name()).is_none() {
            continue;
        }
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        for case in cases(&spec, &sample) {
            sent += 1;
            let response = dispatch::handle(f.name(), &table, testkit::request(&case.event))
                .await
                .unwrap_or_else(|| panic!("no handler for {}", f.name()));
            let (status, answer) = testkit::response_json(&response);
            let message = answer["message"].as_str().unwrap_or_default();
            let what = format!("{} {}", f.name(), case.what);
            if status >= 500 {
                wrong.push(format!("{what}: {status} {answer}"));
            } else if status >= 400 {
                if let Some(why) = rust_speak(message) {
                    wrong.push(format!("{what}: {why}: {message:?}"));
                } else if let Some(name) = case.names.as_deref().filter(|_| status == 400)
                    && !message.contains(name)
                {
                    wrong.push(format!("{what}: does not name {name}: {message:?}"));
                }
            }
        }
    }
    assert!(sent > 1000, "only {sent} bad requests sent");
    assert!(
        wrong.is_empty(),
        "{} of {sent} answers:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_checker_knows_rust_from_words() {
    assert!(rust_speak("quantity: \"x\" is not a whole number from 1 to 1000").is_none());
    assert!(rust_speak("invalid type: string \"x\", expected u32").is_some());
    assert!(rust_speak("missing field `email`").is_some());
    assert!(rust_speak("\"processing\" is not a key of the expected shape").is_some());
    assert!(rust_speak("expected struct AddEvent").is_some());
}
