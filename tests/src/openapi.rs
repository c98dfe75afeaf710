//! `openapi.yaml` is the API's contract, generated from the code (`catalogue::openapi`: each
//! function's declaration and its request and answer types); the committed file is held to what
//! the code generates ([`openapi_yaml_is_what_the_code_generates`]). Here it is held to the truth
//! twice more: against
//! `template.yaml` (the same routes, the same public ones, the same access as each function
//! declares), and against the running functions: every answer the end-to-end tests receive is
//! validated against the operation's documented response ([`assert_answer`], called by
//! `stack::http`). schemathesis (`make fuzz`) then sends what nobody here thought of.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{Arc, LazyLock, Mutex},
};

use api::Access;
use sam_template::Template;
use serde_json::{Value, json};

static SPEC: LazyLock<Value> = LazyLock::new(|| {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi.yaml");
    let text = std::fs::read_to_string(path).expect("openapi.yaml");
    serde_yaml::from_str(&text).expect("openapi.yaml is YAML")
});

/// Compiled response schemas, by operation and status.
static VALIDATORS: LazyLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> =
    LazyLock::new(Default::default);

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// Every operation: (METHOD, path template) → the operation object.
fn operations() -> BTreeMap<(String, String), &'static Value> {
    let mut ops = BTreeMap::new();
    for (path, item) in SPEC["paths"].as_object().expect("paths") {
        for method in METHODS {
            if let Some(op) = item.get(method) {
                ops.insert((method.to_uppercase(), path.clone()), op);
            }
        }
    }
    ops
}

/// The operation serving `method` on a concrete `path` (query string ignored), with its template.
fn operation_for(method: &str, path: &str) -> Option<(String, &'static Value)> {
    let path = path.split('?').next().unwrap_or(path);
    let concrete: Vec<&str> = path.split('/').collect();
    operations()
        .into_iter()
        .find(|((m, template), _)| {
            let parts: Vec<&str> = template.split('/').collect();
            m == method
                && parts.len() == concrete.len()
                && parts.iter().zip(&concrete).all(|(t, c)| {
                    (t.starts_with('{') && t.ends_with('}') && !c.is_empty()) || t == c
                })
        })
        .map(|((_, template), op)| (template, op))
}

/// What `openapi.yaml` states the operation `method` `template` can consume at most in one
/// call, in read units (`x-worst-case-read-units`, stated on every public operation).
pub fn worst_case_read_units(method: &str, template: &str) -> Option<f64> {
    operations()
        .get(&(method.to_owned(), template.to_owned()))
        .and_then(|op| op["x-worst-case-read-units"].as_f64())
}

/// How many operations state `x-worst-case-read-units`.
pub fn stating_worst_case_read_units() -> usize {
    operations()
        .values()
        .filter(|op| op.get("x-worst-case-read-units").is_some())
        .count()
}

/// The documented schema of the query parameter `name` of the operation `method` `template`
/// (`GET`, `/books/{isbn}`), its `$ref`s followed.
pub fn query_schema(method: &str, template: &str, name: &str) -> Option<&'static Value> {
    let op = operations().remove(&(method.to_owned(), template.to_owned()))?;
    let parameters = op["parameters"].as_array()?.iter().map(resolve);
    let mut named = parameters.filter(|p| p["in"] == "query" && p["name"] == name);
    named.next().map(|p| resolve(&p["schema"]))
}

/// The parameters the operation `method` `template` documents (`path`, `query`), as (where, name).
pub fn parameters(method: &str, template: &str) -> Vec<(String, String)> {
    let Some(op) = operations().remove(&(method.to_owned(), template.to_owned())) else {
        return Vec::new();
    };
    let listed = [&SPEC["paths"][template]["parameters"], &op["parameters"]];
    listed
        .iter()
        .filter_map(|l| l.as_array())
        .flatten()
        .map(resolve)
        .filter(|p| p["in"] == "path" || p["in"] == "query")
        .map(|p| {
            (
                p["in"].as_str().unwrap_or_default().to_owned(),
                p["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Every member of the request body of `method` `template` that may be a string, as a JSON
/// pointer (`/items/0/note`), and whether it keeps lines (`x-lines: true`).
pub fn body_strings(method: &str, template: &str) -> Vec<(String, bool)> {
    fn walk(schema: &'static Value, at: String, out: &mut Vec<(String, bool)>) {
        let schema = resolve(schema);
        for alternatives in ["oneOf", "anyOf", "allOf"] {
            for s in schema[alternatives].as_array().into_iter().flatten() {
                walk(s, at.clone(), out);
            }
        }
        let types: Vec<&str> = match &schema["type"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types.contains(&"string") && !out.iter().any(|(p, _)| *p == at) {
            out.push((at.clone(), schema["x-lines"] == json!(true)));
        }
        for (name, member) in schema["properties"].as_object().into_iter().flatten() {
            walk(member, format!("{at}/{name}"), out);
        }
        if types.contains(&"array") {
            walk(&schema["items"], format!("{at}/0"), out);
        }
    }
    let mut out = Vec::new();
    if let Some(op) = operations().remove(&(method.to_owned(), template.to_owned())) {
        walk(
            &op["requestBody"]["content"]["application/json"]["schema"],
            String::new(),
            &mut out,
        );
    }
    out
}

/// Follows a local `$ref` (`#/components/...`).
fn resolve(v: &'static Value) -> &'static Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r.strip_prefix('#').expect("a local $ref");
            resolve(
                SPEC.pointer(pointer)
                    .unwrap_or_else(|| panic!("{r} is not in openapi.yaml")),
            )
        }
        None => v,
    }
}

/// A validator for one response schema, able to follow the document's `$ref`s.
fn validator(key: &str, schema: &Value) -> Arc<jsonschema::Validator> {
    let mut cache = VALIDATORS.lock().expect("validators");
    cache
        .entry(key.to_owned())
        .or_insert_with(|| {
            let root = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "components": SPEC["components"],
                "allOf": [schema],
            });
            Arc::new(
                jsonschema::options()
                    .should_validate_formats(true)
                    .build(&root)
                    .unwrap_or_else(|e| panic!("{key}: the schema does not compile: {e}")),
            )
        })
        .clone()
}

/// Whether an answer is one `openapi.yaml` documents: the operation lists the status, and the
/// body matches that response's schema (no body where none is documented). A request no
/// operation serves must get API Gateway's `404 {"message": "Not Found"}`.
pub fn check_answer(method: &str, path: &str, status: u16, body: &Value) -> Result<(), String> {
    let Some((template, op)) = operation_for(method, path) else {
        return if status == 404 && *body == json!({"message": "Not Found"}) {
            Ok(())
        } else {
            Err(format!(
                "{method} {path}: no operation, yet {status} {body}"
            ))
        };
    };
    let what = format!("{method} {template} -> {status}");
    let response = op["responses"]
        .get(status.to_string())
        .map(resolve)
        .ok_or_else(|| format!("{what}: status not documented ({body})"))?;
    match response.pointer("/content/application~1json/schema") {
        Some(schema) => {
            let validator = validator(&what, schema);
            let errors: Vec<String> = validator.iter_errors(body).map(|e| e.to_string()).collect();
            if errors.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{what}: {body} does not match: {}",
                    errors.join("; ")
                ))
            }
        }
        None if body.is_null() => Ok(()),
        None => Err(format!("{what}: documented without a body, got {body}")),
    }
}

/// [`check_answer`], failing the test.
pub fn assert_answer(method: &str, path: &str, status: u16, body: &Value) {
    if let Err(e) = check_answer(method, path, status, body) {
        panic!("openapi.yaml: {e}");
    }
}

/// Whether the operation of a route (as the template writes it) documents a request body.
pub fn takes_body(method: &str, path: &str) -> bool {
    operations()
        .get(&(method.to_owned(), path.to_owned()))
        .is_some_and(|op| op.get("requestBody").is_some())
}

/// [`assert_answer`] for a handler's answer to an API Gateway v2 event.
pub fn assert_event_answer(event: &Value, status: u16, body: &Value) {
    let method = event["requestContext"]["http"]["method"]
        .as_str()
        .expect("a method");
    let path = event["rawPath"].as_str().expect("a rawPath");
    assert_answer(method, path, status, body);
}

use catalogue::openapi::x_access;

/// The committed `openapi.yaml` is the generated one, or it is rewritten with `UPDATE_OPENAPI=1`
/// (`make openapi`).
#[test]
fn openapi_yaml_is_what_the_code_generates() {
    let path = sam_template::workspace_root().join("openapi.yaml");
    let generated = format!(
        "# Generated from the code by `make openapi` (lab/catalogue/src/openapi.rs): edit the\n\
         # declarations and types it reads, or lab/catalogue/src/openapi-frame.yaml, not this file.\n{}",
        serde_yaml::to_string(&catalogue::openapi::document()).expect("YAML")
    );
    crate::generated::hold(&path, &generated, "UPDATE_OPENAPI", "make openapi");
}

#[test]
fn openapi_and_the_template_have_the_same_routes_and_the_same_access() {
    let t = Template::workspace().unwrap();
    let mut routes = BTreeSet::new();
    let ops = operations();
    for f in &t.functions {
        for route in &f.routes {
            let key = (route.method.clone(), route.path.clone());
            routes.insert(key.clone());
            let op = ops.get(&key).unwrap_or_else(|| {
                panic!(
                    "{}: in the template, not in openapi.yaml",
                    route.route_key()
                )
            });
            let access = crate::dispatch::access(f.name()).unwrap();
            assert_eq!(
                op["x-access"].as_str(),
                Some(x_access(&access).as_str()),
                "{}: x-access against {}'s ACCESS",
                route.route_key(),
                f.name()
            );
            // No security requirement exactly on the public routes.
            let open = op.get("security") == Some(&json!([]));
            assert_eq!(open, route.public, "{}: security", route.route_key());
            // The owner's parameter is one of the route's.
            if let Access::Owner { param, not_found } | Access::OwnerOrStaff { param, not_found } =
                access
            {
                assert!(
                    route.path.contains(&format!("{{{param}}}")),
                    "{}",
                    route.route_key()
                );
                let codes = &SPEC["components"]["schemas"]["Error"]["properties"]["code"]["enum"];
                assert!(
                    codes.as_array().unwrap().contains(&json!(not_found.code)),
                    "{} is not among the documented error codes",
                    not_found.code
                );
            }
            // Every signed-in route documents the gateway's 401; staff routes the 403, which an
            // owner-or-staff route may answer too (a staff-only field: put-customer's
            // accountRepId), and no other route.
            let documented = |s: &str| op["responses"].get(s).is_some();
            assert_eq!(
                documented("401"),
                access.signed_in(),
                "{}: 401",
                route.route_key()
            );
            match access {
                Access::Staff => assert!(documented("403"), "{}: 403", route.route_key()),
                Access::OwnerOrStaff { .. } => {}
                _ => assert!(!documented("403"), "{}: 403", route.route_key()),
            }
        }
    }
    let documented: BTreeSet<_> = ops.keys().cloned().collect();
    let extra: Vec<_> = documented.difference(&routes).collect();
    assert!(
        extra.is_empty(),
        "in openapi.yaml, not in the template: {extra:?}"
    );
}

#[test]
fn every_schema_of_the_document_compiles_and_every_ref_resolves() {
    for ((method, path), op) in operations() {
        for (status, response) in op["responses"].as_object().expect("responses") {
            let response = resolve(response);
            assert!(
                response["description"].is_string(),
                "{method} {path} {status}"
            );
            if let Some(schema) = response.pointer("/content/application~1json/schema") {
                validator(&format!("{method} {path} -> {status}"), schema);
            }
        }
        if let Some(schema) = op.pointer("/requestBody/content/application~1json/schema") {
            validator(&format!("{method} {path} body"), schema);
        }
    }
    // A $ref anywhere in the document points at something.
    let mut all = BTreeSet::new();
    catalogue::openapi::refs(&SPEC, &mut all);
    for r in all {
        assert!(
            SPEC.pointer(r.trim_start_matches('#')).is_some(),
            "{r} resolves"
        );
    }
}

#[test]
fn the_checker_refuses_what_the_document_does_not_say() {
    let customer = json!({
        "customerId": "c-1", "name": "Ann", "email": "ann@example.com",
        "createdAt": "2026-11-22T05:38:34.991Z", "updatedAt": "2026-11-22T05:38:34.991Z",
        "orderCount": 0, "lifetimeValue": 0, "accountRepId": null
    });
    assert_eq!(
        check_answer("PUT", "/customers/c-1", 201, &customer),
        Ok(())
    );
    // An undocumented status, a field too many, a wrong type, a missing field.
    assert!(check_answer("PUT", "/customers/c-1", 202, &customer).is_err());
    let mut extra = customer.clone();
    extra["password"] = json!("x");
    assert!(check_answer("PUT", "/customers/c-1", 201, &extra).is_err());
    let mut wrong = customer.clone();
    wrong["orderCount"] = json!("3");
    assert!(check_answer("PUT", "/customers/c-1", 201, &wrong).is_err());
    let mut missing = customer;
    missing.as_object_mut().unwrap().remove("email");
    assert!(check_answer("PUT", "/customers/c-1", 201, &missing).is_err());
    // An undocumented error code; a route that does not exist.
    let teapot = json!({"code": "teapot", "message": "short and stout"});
    assert!(check_answer("GET", "/customers/c-1", 400, &teapot).is_err());
    assert_eq!(
        check_answer("GET", "/nowhere", 404, &json!({"message": "Not Found"})),
        Ok(())
    );
    assert!(check_answer("GET", "/nowhere", 200, &json!({})).is_err());
    // A 204 has no body.
    assert_eq!(
        check_answer("DELETE", "/carts/c-1/items/p", 204, &Value::Null),
        Ok(())
    );
    assert!(check_answer("DELETE", "/carts/c-1/items/p", 204, &json!({})).is_err());
}

#[test]
fn the_error_table_of_docs_errors_md_is_what_the_functions_declare() {
    // The error table of docs/errors.md is what a client developer reads; the codes are the
    // functions' declared refusals (`api::refusals!`) and what any route may answer
    // (`api::Common`), which openapi.yaml's enum lists. Each code once, under its status.
    let page =
        std::fs::read_to_string(sam_template::workspace_root().join("docs/errors.md")).unwrap();
    let rows: Vec<(u16, BTreeSet<String>)> = page
        .lines()
        .skip_while(|l| !l.starts_with("| status | code | when |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').collect();
            let status = cells[1].trim().parse().expect("a status");
            let codes = cells[2]
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|c| c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'))
                .map(str::to_owned)
                .collect();
            (status, codes)
        })
        .collect();
    assert!(!rows.is_empty(), "docs/errors.md has its error table");
    let in_page: BTreeSet<(u16, String)> = rows
        .iter()
        .flat_map(|(status, codes)| codes.iter().map(|c| (*status, c.clone())))
        .collect();
    let declared: BTreeSet<(u16, String)> = catalogue::openapi::catalogue_codes()
        .iter()
        .map(|r| (r.status, r.code.to_owned()))
        .collect();
    let differ: Vec<_> = in_page.symmetric_difference(&declared).collect();
    assert!(
        differ.is_empty(),
        "docs/errors.md's (status, code) and the declarations differ on {differ:?}"
    );
    let documented: BTreeSet<String> = SPEC["components"]["schemas"]["Error"]["properties"]["code"]
        ["enum"]
        .as_array()
        .expect("the code enum")
        .iter()
        .map(|c| c.as_str().expect("a code").to_owned())
        .collect();
    assert_eq!(
        declared
            .into_iter()
            .map(|(_, c)| c)
            .collect::<BTreeSet<_>>(),
        documented
    );
}

#[test]
fn every_operation_documents_the_503_of_a_dynamodb_that_is_busy_or_away() {
    // Every route's function reads or writes the table, so any of them can meet a throttle or
    // an outage (`outage` sends each one during one): one shared response, with its Retry-After.
    let unavailable = "#/components/responses/Unavailable";
    let missing: Vec<String> = operations()
        .into_iter()
        .filter(|(_, op)| op["responses"]["503"]["$ref"] != unavailable)
        .map(|((method, path), _)| format!("{method} {path}"))
        .collect();
    assert!(missing.is_empty(), "no 503 {unavailable}: {missing:#?}");
    let response = resolve(&SPEC["components"]["responses"]["Unavailable"]);
    assert_eq!(
        response["headers"]["Retry-After"]["schema"]["type"], "integer",
        "{response}"
    );
    let codes = &SPEC["components"]["schemas"]["Error"]["properties"]["code"]["enum"];
    for code in [api::error::THROTTLED, api::error::UNAVAILABLE] {
        assert!(
            codes.as_array().unwrap().contains(&json!(code)),
            "{code} is not a documented error code"
        );
    }
}
