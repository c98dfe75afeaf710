//! Numbers at their extremes. Every numeric input of every route, found by walking
//! `openapi.yaml` (body members at any depth, query and path parameters: a field is covered the
//! day it is documented), is sent i64::MIN, i64::MAX, u64::MAX, 2^53 + 1, -1, 0, 1.5, 1e308, -0,
//! `"1"` (a string) and null, through each function as its `main` answers it, on a seeded table.
//! Never a 5xx, nor a panic (these are debug builds: an overflow panics); a 4xx carries a code
//! and a body the operation documents (`openapi::check_answer`) and writes nothing. A
//! `delta` of i64::MIN once wrapped the "never below 0" condition and set a stock of
//! -9223372036854775798.
//!
//! And every range message states the field's real range: one past each end of the documented
//! `minimum` and `maximum` is a 400 whose message names the field and says "<minimum> to
//! <maximum>" ("<minimum> or more" without a maximum). A quantity of -1 was "not a whole number
//! from 0 to 4294967295", the range of the Rust type holding it, where the field takes 1 to 10000.
//! The bounds are read from `openapi.yaml` here, never written again.

use sam_template::Template;
use serde_json::{Value, json};

use crate::{dispatch, messages::openapi};

/// The extremes every numeric input is sent, as JSON text (a query or path parameter gets the
/// same text as its value).
const EXTREMES: &[&str] = &[
    "-9223372036854775808",
    "9223372036854775807",
    "18446744073709551615",
    "9007199254740993",
    "-1",
    "0",
    "1.5",
    "1e308",
    "-0",
    "\"1\"",
    "null",
];

/// Where a numeric input goes in a request.
#[derive(Debug, Clone)]
enum Place {
    /// A body member, as a JSON pointer (`/items/0/quantity`: the first line's).
    Body(String),
    Query(String),
    Path(String),
}

impl Place {
    /// The name a message about it must give.
    fn name(&self) -> &str {
        match self {
            Place::Body(pointer) => pointer.rsplit('/').next().unwrap_or_default(),
            Place::Query(name) | Place::Path(name) => name,
        }
    }
}

/// A numeric input of an operation and its documented bounds.
#[derive(Debug, Clone)]
struct Input {
    place: Place,
    minimum: Option<i64>,
    maximum: Option<i64>,
}

/// `schema` with its local `$ref`s followed.
fn resolve<'s>(spec: &'s Value, schema: &'s Value) -> &'s Value {
    match schema["$ref"].as_str() {
        Some(r) => resolve(spec, spec.pointer(&r[1..]).expect("a local $ref")),
        None => schema,
    }
}

fn is_numeric(schema: &Value) -> bool {
    let numeric = |t: &Value| matches!(t.as_str(), Some("integer" | "number"));
    match &schema["type"] {
        Value::Array(types) => types.iter().any(numeric),
        t => numeric(t),
    }
}

/// Every numeric member of a body `schema`, at `pointer`.
fn body_inputs(spec: &Value, schema: &Value, pointer: &str, out: &mut Vec<Input>) {
    let schema = resolve(spec, schema);
    if is_numeric(schema) {
        out.push(Input {
            place: Place::Body(pointer.to_owned()),
            minimum: schema["minimum"].as_i64(),
            maximum: schema["maximum"].as_i64(),
        });
    }
    for (name, member) in schema["properties"].as_object().into_iter().flatten() {
        body_inputs(spec, member, &format!("{pointer}/{name}"), out);
    }
    if let Some(items) = schema.get("items") {
        body_inputs(spec, items, &format!("{pointer}/0"), out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for part in schema[key].as_array().into_iter().flatten() {
            body_inputs(spec, part, pointer, out);
        }
    }
}

/// Every numeric input `openapi.yaml` documents for `method` on the path `template`.
fn numeric_inputs(spec: &Value, method: &str, template: &str) -> Vec<Input> {
    let item = &spec["paths"][template];
    let op = &item[method.to_ascii_lowercase()];
    let mut out = Vec::new();
    for parameter in [&item["parameters"], &op["parameters"]]
        .into_iter()
        .filter_map(Value::as_array)
        .flatten()
        .map(|p| resolve(spec, p))
    {
        let schema = resolve(spec, &parameter["schema"]);
        let name = parameter["name"].as_str().unwrap_or_default().to_owned();
        let place = match parameter["in"].as_str() {
            Some("query") => Place::Query(name),
            Some("path") => Place::Path(name),
            _ => continue,
        };
        if is_numeric(schema) {
            out.push(Input {
                place,
                minimum: schema["minimum"].as_i64(),
                maximum: schema["maximum"].as_i64(),
            });
        }
    }
    let body = resolve(spec, &op["requestBody"]);
    if let Some(schema) = body.pointer("/content/application~1json/schema") {
        body_inputs(spec, schema, "", &mut out);
    }
    out
}

/// `body` with the member at `pointer` set to `to`; the objects and list items on the way are
/// made when the body lacks them (an optional member the sample leaves out).
fn set(body: &mut Value, pointer: &str, to: Value) {
    let mut at = body;
    for segment in pointer.split('/').skip(1) {
        at = match at {
            Value::Array(items) => {
                let index: usize = segment.parse().expect("a list index");
                if items.len() <= index {
                    items.resize(index + 1, json!({}));
                }
                &mut items[index]
            }
            other => {
                if !other.is_object() {
                    *other = json!({});
                }
                let members = other.as_object_mut().expect("an object");
                members.entry(segment).or_insert(json!({}))
            }
        };
    }
    *at = to;
}

/// `sample` (a function's sample event) with `input` set to the JSON text `value`.
fn with_value(sample: &Value, input: &Input, value: &str) -> Value {
    let mut event = sample.clone();
    // A JSON string's text, as a URL carries it, is the same characters.
    match &input.place {
        Place::Path(name) => event["pathParameters"][name] = json!(value),
        Place::Query(name) => event = testkit::with_query(sample.clone(), name, value),
        Place::Body(pointer) => {
            const MARK: &str = "@@extreme@@";
            let mut body: Value = sample["body"]
                .as_str()
                .and_then(|b| serde_json::from_str(b).ok())
                .unwrap_or_else(|| json!({}));
            set(&mut body, pointer, json!(MARK));
            // The text itself, not serde_json's reading of it: 2^53 + 1 and -0 exactly.
            let text = body.to_string().replace(&format!("\"{MARK}\""), value);
            event["body"] = json!(text);
        }
    }
    event
}

/// `sample`, a function's sample event (of its last route), sent to another of its routes: the
/// same caller and body, that route's method and path, with the sample's path parameters.
fn on_route(sample: &Value, route: &sam_template::Route) -> Value {
    let mut event = sample.clone();
    let path: Vec<String> = route
        .path
        .split('/')
        .map(
            |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => sample["pathParameters"][name]
                    .as_str()
                    .unwrap_or_else(|| panic!("the sample has no {name} for {}", route.path))
                    .to_owned(),
                None => segment.to_owned(),
            },
        )
        .collect();
    let path = path.join("/");
    event["routeKey"] = json!(format!("{} {}", route.method, route.path));
    event["rawPath"] = json!(path);
    event["requestContext"]["http"]["method"] = json!(route.method);
    event["requestContext"]["http"]["path"] = json!(path);
    event["requestContext"]["routeKey"] = event["routeKey"].clone();
    event
}

/// The API functions of the template, each with its sample event and its numeric inputs.
fn functions_with_numbers(spec: &Value) -> Vec<(String, Value, Vec<Input>)> {
    let template = Template::workspace().unwrap();
    let mut out = Vec::new();
    for f in &template.functions {
        if f.routes.is_empty() || dispatch::access(f.name()).is_none() {
            continue;
        }
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        for route in &f.routes {
            let inputs = numeric_inputs(spec, &route.method, &route.path);
            if inputs.is_empty() {
                continue;
            }
            out.push((f.name().to_owned(), on_route(&sample, route), inputs));
        }
    }
    out
}

/// What an answer breaks of the contract, if anything: a 5xx, or a 4xx the operation does not
/// document (an unknown status or code, another body).
fn broken(event: &Value, status: u16, answer: &Value) -> Option<String> {
    if status >= 500 {
        return Some(format!("{status} {answer}"));
    }
    let method = event["requestContext"]["http"]["method"].as_str()?;
    let path = event["rawPath"].as_str()?;
    match status {
        400..=499 => crate::openapi::check_answer(method, path, status, answer).err(),
        _ => None,
    }
}

#[tokio::test]
async fn every_numeric_input_at_its_extremes_is_never_a_5xx_and_a_4xx_writes_nothing() {
    let spec = openapi();
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let mut before = testkit::all_items(&table).await;
    let (mut wrong, mut sent, mut inputs) = (Vec::new(), 0, 0);
    for (function, sample, numeric) in functions_with_numbers(&spec) {
        for input in &numeric {
            inputs += 1;
            for value in EXTREMES {
                let event = with_value(&sample, input, value);
                let what = format!("{function} {:?} = {value}", input.place);
                sent += 1;
                let response = dispatch::handle(&function, &table, testkit::request(&event))
                    .await
                    .unwrap_or_else(|| panic!("no handler for {function}"));
                let (status, answer) = testkit::response_json(&response);
                if let Some(why) = broken(&event, status, &answer) {
                    wrong.push(format!("{what}: {why}"));
                }
                let after = testkit::all_items(&table).await;
                if status >= 400 && after != before {
                    wrong.push(format!(
                        "{what}: {status} {answer}, and something was written"
                    ));
                }
                before = after;
            }
        }
    }
    // Every numeric input of the document: the order-entry SKUs and quantities, the cart's,
    // the inventories', prices, grades, years, versions, and every `limit` and `orders`.
    assert!(inputs >= 40, "only {inputs} numeric inputs found");
    assert!(
        wrong.is_empty(),
        "{} of {sent} answers:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[tokio::test]
async fn every_range_message_states_the_fields_documented_range() {
    let spec = openapi();
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let (mut wrong, mut sent) = (Vec::new(), 0);
    for (function, sample, numeric) in functions_with_numbers(&spec) {
        for input in &numeric {
            let Some(min) = input.minimum else {
                wrong.push(format!(
                    "{function} {:?}: no documented minimum",
                    input.place
                ));
                continue;
            };
            let range = match input.maximum {
                Some(max) => format!("{min} to {max}"),
                None => format!("{min} or more"),
            };
            let outside = [
                min.checked_sub(1),
                input.maximum.and_then(|m| m.checked_add(1)),
            ];
            for value in outside.into_iter().flatten() {
                let event = with_value(&sample, input, &value.to_string());
                sent += 1;
                let response = dispatch::handle(&function, &table, testkit::request(&event))
                    .await
                    .unwrap_or_else(|| panic!("no handler for {function}"));
                let (status, answer) = testkit::response_json(&response);
                let message = answer["message"].as_str().unwrap_or_default();
                let name = input.place.name();
                if status != 400 || !message.contains(name) || !message.contains(&range) {
                    wrong.push(format!(
                        "{function} {name} = {value}: {status} {message:?}, not naming {name} and {range:?}"
                    ));
                }
            }
        }
    }
    assert!(sent >= 70, "only {sent} values sent");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
