//! What the tools refuse before they touch anything, through the real binaries: a flag they do
//! not know (`migrate --dryrun` must not migrate), a stray argument. Each exits 2 and leaves the
//! table as it was.

use std::{path::Path, time::SystemTime};

use model::Item;
use store::Table;
use tokio::process::Command;

const SEED: &str = env!("CARGO_BIN_EXE_seed");
const RECONCILE: &str = env!("CARGO_BIN_EXE_reconcile");
const MIGRATE: &str = env!("CARGO_BIN_EXE_migrate");
const MOVE_INDEX: &str = env!("CARGO_BIN_EXE_move_index");
const WORKBENCH: &str = env!("CARGO_BIN_EXE_workbench");

/// Everything a command could change: the items, sorted, and the table's indexes.
async fn snapshot(table: &Table) -> (Vec<String>, Vec<String>) {
    let mut items: Vec<String> = devkit::all_items(table)
        .await
        .iter()
        .map(|i: &Item| {
            let mut attrs: Vec<String> = i.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
            attrs.sort();
            attrs.join(",")
        })
        .collect();
    items.sort();
    let described = table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .unwrap();
    let mut indexes: Vec<String> = described
        .table()
        .map(|t| t.global_secondary_indexes())
        .unwrap_or_default()
        .iter()
        .map(|g| g.index_name().unwrap_or_default().to_owned())
        .collect();
    indexes.sort();
    (items, indexes)
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// A typo among the right flags, or a word no command takes: exit 2 with a usage line naming
/// the word, nothing written (a seeded table holds drift, a v01 certificate and the indexes, so
/// each command had something to change), and the workbench file untouched.
#[tokio::test]
async fn every_tool_refuses_an_unknown_flag_or_a_stray_argument_and_writes_nothing() {
    let table = devkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let before = snapshot(&table).await;
    let workbench = sam_template::workspace_root().join(tools::workbench::PATH);
    let workbench_before = modified(&workbench);
    let t = table.name();
    let cases: [(&str, &[&str], &str); 10] = [
        (MIGRATE, &["--table", t, "--dryrun"], "--dryrun"),
        (MIGRATE, &["--table", t, "dry-run"], "dry-run"),
        (
            RECONCILE,
            &["--table", t, "--repair", "--settle", "0", "--segmnts", "2"],
            "--segmnts",
        ),
        (
            RECONCILE,
            &["--table", t, "--repair", "--settle", "0", "now"],
            "now",
        ),
        (
            RECONCILE,
            &["--table", t, "--settle", "0", "--settle", "5"],
            "--settle",
        ),
        (MOVE_INDEX, &["--table", t, "--clean-up"], "--clean-up"),
        (
            MOVE_INDEX,
            &["--table", t, "--dry-run", "--readers"],
            "--readers",
        ),
        (SEED, &["--table", t, "--sise", "large"], "--sise"),
        (SEED, &["--table", t, "large"], "large"),
        (WORKBENCH, &["--out", "elsewhere.json"], "--out"),
    ];
    for (binary, args, word) in cases {
        let name = Path::new(binary).file_name().unwrap().to_string_lossy();
        let out = Command::new(binary)
            .args(args)
            .env("AWS_ENDPOINT_URL_DYNAMODB", devkit::endpoint())
            .output()
            .await
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name} {args:?}: {err}");
        assert!(err.contains(word), "{name} {args:?} names {word:?}: {err}");
        let usage = err.lines().find(|l| l.starts_with("usage: ")).unwrap_or("");
        assert!(
            usage.contains(&*name),
            "{name} {args:?} says its usage: {err}"
        );
        assert_eq!(snapshot(&table).await, before, "{name} {args:?} wrote");
    }
    assert_eq!(
        modified(&workbench),
        workbench_before,
        "workbench file written"
    );
}

/// `--help` answers the usage on stdout, exit 0, for every tool.
#[tokio::test]
async fn every_tool_answers_help_with_its_usage() {
    for binary in [SEED, RECONCILE, MIGRATE, MOVE_INDEX, WORKBENCH] {
        let out = Command::new(binary).arg("--help").output().await.unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{binary}: {text}");
        assert!(text.starts_with("usage: "), "{binary}: {text}");
    }
}
