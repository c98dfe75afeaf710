//! What the tools refuse before they touch anything, through the real binaries: a flag they do
//! not know (`migrate --dryrun` must not migrate), a stray argument, and on AWS a shell with no
//! credentials or no region (one line saying what is missing, not the SDK's chain dump). Each
//! exits 2 and leaves the table as it was.

use std::{
    path::Path,
    sync::atomic::{AtomicUsize, Ordering},
    time::SystemTime,
};

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
    let cases: [(&str, &[&str], &str); 13] = [
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
        // A rehearsal writes: asked for dry, it is refused, not run (it once ran, moving the
        // table's indexes and removing every order's GSI1 keys).
        (
            MOVE_INDEX,
            &["--table", t, "--rehearse", "--dry-run"],
            "--dry-run",
        ),
        (
            MOVE_INDEX,
            &["--table", t, "--cleanup", "--rehearse"],
            "--cleanup",
        ),
        (MOVE_INDEX, &["--table", t, "--readers", "4"], "--rehearse"),
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

/// A target named by accident is refused, not guessed: an empty `AWS_ENDPOINT_URL_DYNAMODB`
/// (the SDK stopped on it, exit 101, or a command went to AWS when a local table was meant), and
/// a seed with no endpoint at all (it wrote into the stack on port 8000). Exit 2, naming what to
/// give, nothing written.
#[tokio::test]
async fn an_empty_or_missing_endpoint_is_refused_not_guessed() {
    let table = devkit::table().await;
    let before = snapshot(&table).await;
    let t = table.name();
    for binary in [RECONCILE, MIGRATE, MOVE_INDEX, SEED] {
        let (code, err) = shell(
            binary,
            &["--table", t],
            &[("AWS_ENDPOINT_URL_DYNAMODB", "")],
            None,
        )
        .await;
        assert_eq!(code, 2, "{binary}: {err}");
        assert!(err.contains("endpoint"), "{binary}: {err}");
    }
    let (code, err) = shell(SEED, &["--table", t], &[], None).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--endpoint URL"), "{err}");
    // compare starts tables and a stack of its own: on the DynamoDB Local named, or nowhere.
    let (code, err) = shell(env!("CARGO_BIN_EXE_compare"), &[], &[], None).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("AWS_ENDPOINT_URL_DYNAMODB"), "{err}");
    assert_eq!(snapshot(&table).await, before, "nothing written");
    // Named, it seeds that DynamoDB Local.
    let (code, err) = shell(
        SEED,
        &["--endpoint", &devkit::endpoint(), "--table", t],
        &[],
        None,
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_ne!(snapshot(&table).await, before);
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

/// `binary args` on AWS (no endpoint) in a shell that has none of AWS's settings: HOME a
/// directory of its own (no ~/.aws, or `aws_config` as ~/.aws/config), every AWS_* variable unset
/// but `extra`, IMDS off so that nothing waits on an instance's metadata.
async fn shell(
    binary: &str,
    args: &[&str],
    extra: &[(&str, &str)],
    aws_config: Option<&str>,
) -> (i32, String) {
    static HOMES: AtomicUsize = AtomicUsize::new(0);
    let home = std::env::temp_dir().join(format!(
        "tools-usage-home-{}-{}",
        std::process::id(),
        HOMES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    if let Some(config) = aws_config {
        std::fs::write(home.join(".aws/config"), config).unwrap();
    }
    let mut command = Command::new(binary);
    command
        .args(args)
        .env_clear()
        .env("HOME", &home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("AWS_EC2_METADATA_DISABLED", "true");
    for (k, v) in extra {
        command.env(k, v);
    }
    let out = command.output().await.unwrap();
    std::fs::remove_dir_all(&home).unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// No credentials anywhere: one line naming what is missing and how to provide it, exit 2.
#[tokio::test]
async fn without_credentials_or_region_the_tools_say_so_in_one_line() {
    for binary in [RECONCILE, MIGRATE, MOVE_INDEX] {
        let (code, err) = shell(binary, &["--table", "prod-table"], &[], None).await;
        assert_eq!(code, 2, "{binary}: {err}");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{binary}: one line: {err}"
        );
        assert!(err.len() < 400, "{binary}: short: {err}");
        for said in [
            "no AWS credentials",
            "AWS_PROFILE",
            "aws sso login",
            "AWS_ACCESS_KEY_ID",
            "no region",
            "AWS_REGION",
        ] {
            assert!(err.contains(said), "{binary}: {said:?} in {err}");
        }
    }
    // Credentials but no region, and a region but no credentials: each names only its own.
    let keys = [
        ("AWS_ACCESS_KEY_ID", "AKIDFAKE"),
        ("AWS_SECRET_ACCESS_KEY", "x"),
    ];
    let (code, err) = shell(RECONCILE, &["--table", "prod-table"], &keys, None).await;
    assert_eq!((code, err.trim_end().lines().count()), (2, 1), "{err}");
    assert!(
        err.contains("no region") && !err.contains("no AWS credentials"),
        "{err}"
    );
    let region = [("AWS_REGION", "eu-west-1")];
    let (code, err) = shell(MIGRATE, &["--table", "prod-table"], &region, None).await;
    assert_eq!((code, err.trim_end().lines().count()), (2, 1), "{err}");
    assert!(
        err.contains("no AWS credentials") && !err.contains("no region"),
        "{err}"
    );
}

/// An SSO profile whose session was never logged in (no cached token): the tools read SSO
/// profiles as the AWS CLI does, and say in one line to log in.
#[tokio::test]
async fn an_sso_profile_not_logged_in_is_told_to_log_in() {
    let config = "[profile dev]\nsso_session = corp\nsso_account_id = 123456789012\n\
                  sso_role_name = Operator\nregion = eu-west-1\n\n[sso-session corp]\n\
                  sso_start_url = https://corp.awsapps.com/start\nsso_region = eu-west-1\n";
    let profile = [("AWS_PROFILE", "dev")];
    let (code, err) = shell(
        RECONCILE,
        &["--table", "prod-table"],
        &profile,
        Some(config),
    )
    .await;
    assert_eq!((code, err.trim_end().lines().count()), (2, 1), "{err}");
    assert!(err.contains("aws sso login --profile dev"), "{err}");
    assert!(err.contains("SSO token"), "the provider's reason: {err}");
}
