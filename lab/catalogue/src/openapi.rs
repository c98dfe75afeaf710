//! `openapi.yaml`, generated: every operation from its function's declaration (summary, access,
//! page size) and its route's [`Contract`] (its module's `CONTRACTS`, one per route, apart from
//! the `FUNCTION` its binary reads: query, body, answers and refusals, each schema
//! derived from the Rust type that parses or builds it, descriptions from its doc comments).
//! What no type says is kept by hand in `openapi-frame.yaml`: the document's prose (info, tags,
//! security), the path parameters and the shared responses. The error codes are the functions'
//! declared refusals ([`api::refusal`]) and what any route may answer ([`Common`]): [`codes`].
//!
//! The tests crate holds the committed file to [`document`] (`UPDATE_OPENAPI=1` rewrites it:
//! `make openapi`).

use std::collections::BTreeSet;

use api::{Access, Common, Function, Refusal, Route, contract::Contract};
use schemars::{SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};

/// The hand-kept frame (see the module's header).
const FRAME: &str = include_str!("openapi-frame.yaml");

/// A context's tag, its functions and their routes' contracts.
type Context = (
    &'static str,
    &'static [&'static Function],
    &'static [&'static [Contract]],
);

/// Every context, under its tag.
fn contexts() -> [Context; 4] {
    std::array::from_fn(|i| {
        (
            crate::CONTEXT_NAMES[i],
            crate::CONTEXTS[i],
            crate::CONTRACTS[i],
        )
    })
}

/// The whole document.
pub fn document() -> Value {
    let frame: Value = serde_yaml::from_str(FRAME).expect("openapi-frame.yaml is YAML");
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = "#/components/schemas/".into();
        s.meta_schema = None;
    });
    // What a client reads is described as it is serialised, what it sends as it is read.
    let mut generators = Generators {
        answers: settings.clone().for_serialize().into_generator(),
        requests: settings.for_deserialize().into_generator(),
    };
    let mut paths = Map::new();
    for (tag, functions, contracts) in contexts() {
        let mut routes = Vec::new();
        for (function, contracts) in functions.iter().zip(contracts) {
            assert_eq!(
                function.routes.len(),
                contracts.len(),
                "{}: one contract per route, in their order",
                function.name
            );
            routes.extend(
                function
                    .routes
                    .iter()
                    .zip(*contracts)
                    .map(|rc| (*function, rc)),
            );
        }
        // The catalogue's order, not the modules'.
        routes.sort_by_key(|(_, (route, _))| crate::reading_order(route));
        for (function, (route, contract)) in routes {
            let op = operation(function, route, contract, tag, &frame, &mut generators);
            let item = paths.entry(route.path).or_insert_with(|| json!({}));
            item[route.method.as_str().to_lowercase()] = op;
        }
    }
    let mut doc = frame.clone();
    doc["paths"] = Value::Object(paths);
    doc["components"]["schemas"]["Error"]["properties"]["code"]["enum"] =
        catalogue_codes().iter().map(|r| r.code).collect();
    let schemas = doc["components"]["schemas"]
        .as_object_mut()
        .expect("the frame's schemas");
    for generator in [&mut generators.answers, &mut generators.requests] {
        for (name, mut schema) in generator.take_definitions(true) {
            tidy(&mut schema);
            if let Some(other) = schemas.get(&name) {
                assert_eq!(other, &schema, "two schemas named {name}");
            }
            schemas.insert(name, schema);
        }
    }
    // By name, whatever order the operations first named them in.
    schemas.sort_keys();
    prune(&mut doc);
    doc
}

struct Generators {
    answers: SchemaGenerator,
    requests: SchemaGenerator,
}

/// How the document writes a function's [`Access`] (`x-access`).
pub fn x_access(access: &Access) -> String {
    match access {
        Access::Public => "public".into(),
        Access::SignedIn => "signed-in".into(),
        Access::Staff => "staff".into(),
        Access::Owner { param, .. } => format!("owner:{param}"),
        Access::OwnerOrStaff { param, .. } => format!("owner-or-staff:{param}"),
    }
}

/// `get-customer` as an operation id: `getCustomer`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '-' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// An operation of a route that declares its contract.
fn operation(
    function: &Function,
    route: &Route,
    contract: &Contract,
    context: &str,
    frame: &Value,
    generators: &mut Generators,
) -> Value {
    let mut op = Map::new();
    let id = contract
        .operation_id
        .map_or_else(|| camel(function.name), str::to_owned);
    op.insert("operationId".into(), id.into());
    op.insert("summary".into(), route.summary.into());
    op.insert("tags".into(), json!([contract.tag.unwrap_or(context)]));
    op.insert("x-access".into(), x_access(&function.access).into());
    if let Some(units) = contract.worst_read_units_declared() {
        op.insert("x-worst-case-read-units".into(), units.into());
    }
    if function.access == Access::Public {
        op.insert("security".into(), json!([]));
    }
    let mut parameters: Vec<Value> = path_parameters(route.path, frame);
    for q in contract.query {
        let mut schema = q.schema.build(&mut generators.requests).to_value();
        tidy(&mut schema);
        let mut p = json!({ "name": q.name, "in": "query" });
        if q.required {
            p["required"] = true.into();
        }
        if !q.description.is_empty() {
            p["description"] = q.description.into();
        }
        p["schema"] = schema;
        parameters.push(p);
    }
    if let Some(page) = route.page {
        let description = match contract.page_note {
            Some(note) => format!("the page size; {note}"),
            None => "the page size".to_owned(),
        };
        parameters.push(json!({
            "name": "limit",
            "in": "query",
            "description": description,
            "schema": { "type": "integer", "minimum": 1, "maximum": page.max, "default": page.default },
        }));
        parameters.push(json!({ "$ref": "#/components/parameters/cursor" }));
    }
    if !parameters.is_empty() {
        op.insert("parameters".into(), parameters.into());
    }
    if let Some(body) = &contract.body {
        let mut schema = body.schema.build(&mut generators.requests).to_value();
        tidy(&mut schema);
        op.insert(
            "requestBody".into(),
            json!({
                "required": body.required,
                "content": { "application/json": { "schema": schema } },
            }),
        );
    }
    let mut responses: Vec<(u16, Value)> = Vec::new();
    for answer in contract.answers() {
        let mut response = json!({ "description": answer.description });
        if let Some(schema) = answer.schema {
            let mut schema = schema.build(&mut generators.answers).to_value();
            tidy(&mut schema);
            response["content"] = json!({ "application/json": { "schema": schema } });
        }
        responses.push((answer.status, response));
    }
    for (status, response) in refusal_responses(function, route, contract) {
        responses.push((status, response));
    }
    responses.sort_by_key(|(status, _)| *status);
    let responses: Map<String, Value> = responses
        .into_iter()
        .map(|(status, r)| (status.to_string(), r))
        .collect();
    op.insert("responses".into(), responses.into());
    let mut op = Value::Object(op);
    if let Some(more) = contract.more {
        merge(&mut op, (more.0)());
    }
    op
}

/// What a route refuses, by status: what its function declares (its `Refused::ALL`, and the
/// 404 of its access), each status with a description from the refusals' `when` and the codes
/// it may answer; and the statuses any route of its shape answers ([`Common`]), as the frame's
/// shared responses.
fn refusal_responses(function: &Function, route: &Route, contract: &Contract) -> Vec<(u16, Value)> {
    let mut declared: Vec<Refusal> = contract.refusals.to_vec();
    if let Access::Owner { not_found, .. } | Access::OwnerOrStaff { not_found, .. } =
        function.access
        && !declared.contains(&not_found)
    {
        declared.push(not_found);
    }
    let common = |code: &str| Common::ALL.iter().any(|c| c.code == code);
    let shapes = [
        (true, 400),
        (function.access.signed_in(), 401),
        (function.access == Access::Staff, 403),
        (contract.body.is_some(), 413),
        // API Gateway's, when the function gives no answer (docs/errors.md).
        (true, 500),
        (true, 503),
    ];
    let statuses: BTreeSet<u16> = shapes
        .iter()
        .filter(|(applies, _)| *applies)
        .map(|(_, status)| *status)
        .chain(declared.iter().map(|r| r.status))
        .collect();
    let shared = |name: &str| json!({ "$ref": format!("#/components/responses/{name}") });
    statuses
        .into_iter()
        .map(|status| {
            let own: Vec<&Refusal> = declared
                .iter()
                .filter(|r| r.status == status && !common(r.code))
                .collect();
            let response = match (own.is_empty(), status) {
                (false, _) => {
                    let mut when: Vec<String> = own
                        .iter()
                        .map(|r| format!("- `{}`: {}", r.code, r.when))
                        .collect();
                    let mut codes: Vec<&str> = Common::ALL
                        .iter()
                        .filter(|c| c.status == status)
                        .map(|c| c.code)
                        .collect();
                    if !codes.is_empty() {
                        when.insert(
                            0,
                            format!(
                                "- malformed input, as on every route (`{}`)",
                                codes.join("`, `")
                            ),
                        );
                    }
                    codes.extend(own.iter().map(|r| r.code));
                    json!({
                        "description": match when.as_slice() {
                            [one] => one.trim_start_matches("- ").to_owned(),
                            _ => when.join("\n"),
                        },
                        "content": { "application/json": { "schema": { "allOf": [
                            { "$ref": "#/components/schemas/Error" },
                            { "properties": { "code": { "enum": codes } } },
                        ] } } },
                    })
                }
                (true, 400) => shared("BadRequest"),
                (true, 401) => shared("Unauthorized"),
                (true, 403) => shared("Forbidden"),
                (true, 413) => shared("TooLarge"),
                (true, 500) => shared("ServerError"),
                (true, 503) => shared("Unavailable"),
                (true, status) => panic!(
                    "{} {}: {status} has no shared response",
                    route.method.as_str(),
                    route.path
                ),
            };
            (status, response)
        })
        .collect()
}

/// Every error code a function may answer: what any route may ([`Common`]), then each
/// function's declared refusals and its access's 404, in the catalogue's order, once each. A code
/// declared with two statuses is an error: a client reads a code's meaning from it alone.
pub fn codes<'a>(declared: impl IntoIterator<Item = &'a Refusal>) -> Result<Vec<Refusal>, String> {
    let mut codes: Vec<Refusal> = Vec::new();
    for refusal in Common::ALL.iter().chain(declared) {
        match codes.iter().find(|c| c.code == refusal.code) {
            Some(first) if first.status != refusal.status => {
                return Err(format!(
                    "`{}` is declared as a {} and as a {}",
                    refusal.code, first.status, refusal.status
                ));
            }
            Some(_) => {}
            None => codes.push(*refusal),
        }
    }
    Ok(codes)
}

/// [`codes`] of every function in the catalogue.
pub fn catalogue_codes() -> Vec<Refusal> {
    let declared = contexts()
        .into_iter()
        .flat_map(|(_, functions, contracts)| {
            functions
                .iter()
                .zip(contracts)
                .flat_map(|(function, contracts)| {
                    let access = match function.access {
                        Access::Owner { not_found, .. }
                        | Access::OwnerOrStaff { not_found, .. } => Some(not_found),
                        _ => None,
                    };
                    access
                        .into_iter()
                        .chain(contracts.iter().flat_map(|c| c.refusals.iter().copied()))
                })
        });
    let declared: Vec<Refusal> = declared.collect();
    codes(&declared).unwrap_or_else(|e| panic!("{e}"))
}

/// `more` merged into `into`: objects member by member, arrays appended, anything else replaced.
fn merge(into: &mut Value, more: Value) {
    match (into, more) {
        (Value::Object(into), Value::Object(more)) => {
            for (key, value) in more {
                match into.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        into.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(into), Value::Array(more)) => into.extend(more),
        (into, more) => *into = more,
    }
}

/// The path parameters of a path template, each the frame's parameter of that name.
fn path_parameters(path: &str, frame: &Value) -> Vec<Value> {
    let declared = frame["components"]["parameters"]
        .as_object()
        .expect("the frame's parameters");
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| {
            let (key, _) = declared
                .iter()
                .find(|(_, p)| p["in"] == "path" && p["name"] == name)
                .unwrap_or_else(|| {
                    panic!("{path}: openapi-frame.yaml declares no path parameter {name}")
                });
            json!({ "$ref": format!("#/components/parameters/{key}") })
        })
        .collect()
}

/// The generated schemas as the hand-written ones were: an object takes no member it does not
/// list, a whole number's Rust width (`format: uint32`) is no format a client knows, an
/// optional member has no `null` default, and a doc comment's line breaks inside a paragraph
/// are spaces.
fn tidy(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = text
                    .split("\n\n")
                    .map(|paragraph| paragraph.replace('\n', " "))
                    .collect::<Vec<_>>()
                    .join("\n\n");
            }
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), false.into());
            }
            let rust_width = map.get("format").and_then(Value::as_str).is_some_and(|f| {
                [
                    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                    "uint", "int", "float", "double",
                ]
                .contains(&f)
            });
            if rust_width {
                map.remove("format");
            }
            // `#[serde(default)]` of an optional member: absent says it, and a null default
            // would contradict the member's own type.
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            map.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Removes the frame's components nothing references any more (the operations that used them
/// declare their contracts now).
fn prune(doc: &mut Value) {
    loop {
        let mut used = BTreeSet::new();
        refs(doc, &mut used);
        let mut removed = false;
        for kind in ["schemas", "parameters", "responses"] {
            if let Some(map) = doc["components"][kind].as_object_mut() {
                let before = map.len();
                map.retain(|name, _| used.contains(&format!("#/components/{kind}/{name}")));
                removed |= map.len() != before;
            }
        }
        if !removed {
            return;
        }
    }
}

/// Every `$ref` of a document, or of a part of one.
pub fn refs(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.insert(r.clone());
            }
            m.values().for_each(|v| refs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_listed_once_and_refused_with_two_statuses() {
        let full = Refusal::new(409, "cart_full", "a cart of 100 lines");
        let again = Refusal::new(409, "cart_full", "said another way");
        let codes = codes(&[full, again]).unwrap();
        assert_eq!(codes.iter().filter(|c| c.code == "cart_full").count(), 1);
        assert_eq!(codes.len(), Common::ALL.len() + 1);
        let gone = Refusal::new(410, "cart_full", "a cart of 100 lines");
        assert_eq!(
            super::codes(&[full, gone]),
            Err("`cart_full` is declared as a 409 and as a 410".into())
        );
        // A code every route may answer keeps its status.
        let teapot = Refusal::new(418, "invalid_body", "short and stout");
        assert!(super::codes(&[teapot]).is_err());
    }
}
