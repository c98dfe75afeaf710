//! `cargo lambda watch` runs the functions with the environment of the workspace manifest's
//! `[workspace.metadata.lambda.watch.env]`: it must give every function what the template gives
//! it, with the template's defaults, so `cargo lambda invoke --data-file events/<f>.json` works
//! against DynamoDB Local out of the box.

use std::collections::BTreeMap;

use sam_template::{EnvValue, Template};

const SECTION: &str = "[workspace.metadata.lambda.watch.env]";

/// The section's `NAME = "value"` lines (the manifest's other tables are not read).
fn watch_env() -> BTreeMap<String, String> {
    let manifest = std::fs::read_to_string(sam_template::workspace_root().join("Cargo.toml"))
        .expect("Cargo.toml");
    let start = manifest.find(SECTION).expect("the watch env section") + SECTION.len();
    manifest[start..]
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('=').expect("NAME = \"value\"");
            let v = v.trim();
            assert!(v.starts_with('"') && v.ends_with('"'), "{l}: a string");
            (k.trim().to_owned(), v[1..v.len() - 1].to_owned())
        })
        .collect()
}

#[test]
fn cargo_lambda_watch_gives_every_function_what_the_template_gives_it() {
    let t = Template::workspace().unwrap();
    let env = watch_env();
    let default = |p: &str| {
        t.parameters
            .iter()
            .find(|x| x.name == p)
            .map(|x| x.default.clone())
    };
    for f in &t.functions {
        for (name, value) in &f.environment {
            let local = env.get(name);
            match value {
                EnvValue::Ref(target) if *target == t.table.logical_id => {
                    assert_eq!(local.map(String::as_str), Some("local-table"), "{name}");
                }
                EnvValue::Ref(target) => match default(target) {
                    // A parameter with a default: the same value (an empty default may be left out).
                    Some(Some(d)) if d.is_empty() => {
                        assert!(local.is_none_or(|v| v.is_empty()), "{name}")
                    }
                    Some(Some(d)) => assert_eq!(local, Some(&d), "{}: {name}", f.name()),
                    // A parameter without one (the cursor key): any value it accepts.
                    Some(None) => {
                        assert!(local.is_some_and(|v| v.len() >= 32), "{}: {name}", f.name())
                    }
                    // A resource (the failure queue) or a pseudo parameter: set locally.
                    None => assert!(local.is_some(), "{}: {name} is not set", f.name()),
                },
                EnvValue::Literal(v) => assert_eq!(local, Some(v), "{}: {name}", f.name()),
                EnvValue::Other(_) => assert!(local.is_some(), "{}: {name}", f.name()),
            }
        }
    }
    assert_eq!(
        env.get("AWS_ENDPOINT_URL_DYNAMODB").map(String::as_str),
        Some("http://127.0.0.1:8000"),
        "make run's DynamoDB Local"
    );
}
