//! No invisible text anywhere: every text a route takes, as `openapi.yaml` lists them (each path
//! and query parameter, each member of a body that may be a string, however deep), sent each of
//! the characters the text rule refuses through the real handler, answers a 400 that names the
//! field and the character, and nothing is written. A member `x-lines: true` keeps line feeds;
//! any other refuses them. The list comes from the document, so a field added there is checked
//! here without a word of this test changing.

use serde_json::{Value, json};

use crate::{dispatch, openapi, sample_events::example_event};

/// The tester's strings and the characters they carry: a bidirectional override in a file name,
/// NUL, a zero-width space, a line separator, the Hangul filler, the blank braille pattern, a
/// variation selector that selects nothing (first, then after a Latin letter), a joiner between
/// Latin letters, a private-use character, a letter under 50 combining marks.
const REFUSED: &[(&str, &str)] = &[
    ("Ann\u{202E}gnp.exe", "U+202E"),
    ("\u{0}", "U+0000"),
    ("a\u{200B}b", "U+200B"),
    ("a\u{2028}b", "U+2028"),
    ("\u{3164}", "U+3164"),
    ("\u{2800}", "U+2800"),
    ("\u{FE0F}x", "U+FE0F"),
    ("a\u{E0100}", "U+E0100"),
    ("A\u{200D}nn", "U+200D"),
    ("\u{E000}", "U+E000"),
    (ZALGO, "U+0301"),
];

/// A letter under 50 acute accents (`keys::unicode`'s own test stacks 200).
const ZALGO: &str = "a\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}";

/// The API's way of naming a body member: `/items/0/note` is `items[0].note`.
fn member_name(pointer: &str) -> String {
    let mut name = String::new();
    for part in pointer.trim_start_matches('/').split('/') {
        match part.parse::<usize>() {
            Ok(i) => name.push_str(&format!("[{i}]")),
            Err(_) if name.is_empty() => name.push_str(part),
            Err(_) => name.push_str(&format!(".{part}")),
        }
    }
    name
}

/// `body` with the member at `pointer` set to `value` (its object made if the example leaves
/// an optional member out); `None` when the example has no such object (an empty list).
fn with_member(body: &Value, pointer: &str, value: &str) -> Option<Value> {
    let mut body = body.clone();
    let (parent, name) = pointer.rsplit_once('/')?;
    body.pointer_mut(parent)?
        .as_object_mut()?
        .insert(name.to_owned(), json!(value));
    Some(body)
}

#[tokio::test]
async fn every_text_of_every_route_refuses_invisible_characters_and_writes_nothing() {
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let before = testkit::all_items(&table).await;
    let mut wrong = Vec::new();
    let (mut parameters, mut members, mut keeping_lines) = (0, 0, 0);
    for function in catalogue::FUNCTIONS.iter() {
        for route in function.routes {
            let (method, template) = (route.method.as_str(), route.path);
            let example = example_event(route, &route.patterns[0].example);
            let mut send = async |what: String, event: Value, names: &str, code: &str| {
                let response = dispatch::handle(function.name, &table, testkit::request(&event))
                    .await
                    .expect("a handler");
                let (status, answer) = testkit::response_json(&response);
                let message = answer["message"].as_str().unwrap_or_default();
                if status != 400 || !message.contains(names) || !message.contains(code) {
                    wrong.push(format!("{method} {template} {what}: {status} {answer}"));
                }
            };
            for (place, name) in openapi::parameters(method, template) {
                parameters += 1;
                for (value, code) in REFUSED {
                    let event = match place.as_str() {
                        "path" => {
                            let mut event = example.clone();
                            event["pathParameters"][&name] = json!(value);
                            event
                        }
                        _ => testkit::with_query(example.clone(), &name, value),
                    };
                    send(format!("{name}={value:?}"), event, &name, code).await;
                }
            }
            let Some(body) = example["body"]
                .as_str()
                .and_then(|b| serde_json::from_str::<Value>(b).ok())
            else {
                continue;
            };
            for (pointer, keeps_lines) in openapi::body_strings(method, template) {
                let name = member_name(&pointer);
                let sent = |value: &str| {
                    with_member(&body, &pointer, value).map(|b| {
                        let mut event = example.clone();
                        event["body"] = json!(b.to_string());
                        event
                    })
                };
                let Some(_) = sent("x") else { continue };
                members += 1;
                for (value, code) in REFUSED {
                    let event = sent(value).unwrap();
                    send(format!("body {name}={value:?}"), event, &name, code).await;
                }
                // A line feed passes only where the member keeps lines: the character after
                // it is the one refused there.
                let code = if keeps_lines { "U+200B" } else { "U+000A" };
                keeping_lines += usize::from(keeps_lines);
                let event = sent("one\ntwo\u{200B}").unwrap();
                send(format!("body {name} with a line feed"), event, &name, code).await;
            }
        }
    }
    assert!(
        parameters >= 100 && members >= 35 && keeping_lines >= 2,
        "only {parameters} parameters, {members} body members ({keeping_lines} keeping lines)"
    );
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(
        testkit::all_items(&table).await,
        before,
        "something was written"
    );
}

#[test]
fn members_are_named_as_the_api_names_them() {
    assert_eq!(member_name("/items/0/note"), "items[0].note");
    assert_eq!(member_name("/name"), "name");
}

/// The answer of `function` to `event` (as staff), against `table`.
async fn staff_sends(function: &str, table: &store::Table, event: Value) -> (u16, Value) {
    let event = testkit::as_staff(event);
    let response = dispatch::handle(function, table, testkit::request(&event))
        .await
        .expect("a handler");
    testkit::response_json(&response)
}

/// The tester's two findings: "José Ortega" precomposed (NFC) and decomposed (NFD) were two
/// certificates of one student on one day, and "Zoë Quist" two employees of whom a name search
/// (H2) found one. One name is one key, whichever form it is sent in.
#[tokio::test]
async fn one_name_in_two_unicode_forms_is_one_key() {
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let certificate = |student: &str| {
        let body = json!({
            "courseName": "Intro to DynamoDB", "date": "2022-03-15", "location": "Building 1",
            "student": student, "certType": "Completion", "instructor": "Tyler Walch"
        });
        testkit::event(
            "POST /certificates",
            "/certificates",
            &[],
            Some(&body.to_string()),
        )
    };
    let (first, _) =
        staff_sends("issue-certificate", &table, certificate("Jos\u{E9} Ortega")).await;
    let (second, answer) = staff_sends(
        "issue-certificate",
        &table,
        certificate("Jose\u{301} Ortega"),
    )
    .await;
    assert_eq!(
        (first, second, answer["code"].as_str()),
        (201, 409, Some("certificate_exists")),
        "{answer}"
    );

    for (id, name) in [("zq-nfc", "Zo\u{EB} Quist"), ("zq-nfd", "Zoe\u{308} Quist")] {
        let body = json!({"name": name, "hireDate": "2025-06-02", "warehouseId": "W1"});
        let path = format!("/employees/{id}");
        let event = testkit::event(
            "PUT /employees/{employeeId}",
            &path,
            &[],
            Some(&body.to_string()),
        );
        let (status, answer) = staff_sends("put-employee", &table, event).await;
        assert_eq!(status, 201, "{answer}");
        assert_eq!(answer["name"], "Zo\u{EB} Quist", "stored as NFC");
    }
    for asked in ["Zo\u{EB} Quist", "ZOE\u{308} quist"] {
        let event = testkit::event("GET /employees", "/employees", &[("name", asked)], None);
        let (status, answer) = staff_sends("list-employees", &table, event).await;
        let ids = testkit::column(&answer["employees"], "employeeId");
        assert_eq!((status, ids.len()), (200, 2), "{asked:?}: {answer}");
    }
}
