//! One build of the workspace serves every command. The Makefile builds `--workspace --bins`
//! for what runs (`make run`, `seed`, `token`, `plan`, the tools) and `--workspace
//! --all-targets` for `make test`; the two share every dependency only if the tests turn on no
//! feature the binaries' build lacks. One that did (the SDK's `test-util`, `serde_json`'s
//! `float_roundtrip` for jsonschema) made cargo build serde_json, the AWS SDK and everything
//! above them a second time. `tests/Cargo.toml` takes the tests' dependencies as normal ones
//! for that reason.

use std::process::Command;

/// Every package of the workspace's dependency graph with its features, one line each, as
/// `cargo tree` resolves them for the edge kinds `edges` (`normal,build` or `normal,build,dev`).
fn resolved(edges: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["tree", "--workspace", "--offline", "--prefix", "none"])
        .args(["-e", edges, "-f", "{p} [{f}]"])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.replace(" (*)", "").replace(" (proc-macro)", ""))
        .filter(|l| !l.is_empty())
        .collect();
    lines.sort();
    lines.dedup();
    lines
}

#[test]
fn the_tests_turn_on_no_feature_a_run_lacks() {
    let run = resolved("normal,build");
    let test = resolved("normal,build,dev");
    // A package both builds hold must be built with the same features; the tests may add
    // packages of their own.
    let name = |l: &String| l.split(" [").next().unwrap_or_default().to_owned();
    let names: std::collections::BTreeSet<String> = run.iter().map(name).collect();
    let differ: Vec<&String> = test
        .iter()
        .filter(|l| names.contains(&name(l)) && !run.contains(l))
        .collect();
    assert!(
        differ.is_empty(),
        "the tests build these with features `cargo build --workspace --bins` lacks, so every \
         command would build them twice; add the feature to tests/Cargo.toml's dependencies:\n{}",
        differ
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
