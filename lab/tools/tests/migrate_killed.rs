//! `make migrate` killed midway: the real binary, SIGKILLed once it has moved some certificates.
//! Nothing is lost or doubled (every certificate is in exactly one version), and a rerun moves
//! exactly what is left.

use std::collections::BTreeMap;

use keys::learning::CertVersion;
use model::learning::Certificate;
use store::Table;
use tokio::{io::AsyncReadExt, process::Command};

const CERTIFICATES: usize = 150;

/// Every certificate in the table: student → the versions they are held in.
async fn versions(table: &Table) -> BTreeMap<String, Vec<CertVersion>> {
    let mut by_student: BTreeMap<String, Vec<CertVersion>> = BTreeMap::new();
    for item in devkit::all_items(table).await {
        if model::type_of(&item) == Some(<Certificate as model::Entity>::TYPE) {
            let c: Certificate = model::from_item(item).unwrap();
            by_student
                .entry(c.student.as_str().to_owned())
                .or_default()
                .push(c.entity_version);
        }
    }
    by_student
}

/// The count of moved certificates in the last progress line (`..., moved N, ...`).
fn moved(progress: &str) -> usize {
    progress
        .rsplit('\r')
        .find_map(|line| {
            line.split(", moved ")
                .nth(1)?
                .split(',')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

fn migrate(table: &Table) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_migrate"));
    command
        .args(["--table", table.name()])
        .env("AWS_ENDPOINT_URL_DYNAMODB", devkit::endpoint())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    command
}

#[tokio::test]
async fn a_killed_migration_loses_nothing_and_a_rerun_finishes_it() {
    let table = devkit::table().await;
    let certificates: Vec<Certificate> = (0..CERTIFICATES)
        .map(|n| {
            learning::fixtures::certificate(
                "2022-03-15",
                &format!("Student {n}"),
                "Tyler Walch",
                CertVersion::V1,
            )
        })
        .collect();
    devkit::batch_put(&table, &certificates).await;

    // Kill it as soon as its progress line says it has moved something.
    let mut child = migrate(&table).spawn().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 256];
    loop {
        let n = stderr.read(&mut buf).await.unwrap();
        assert!(
            n > 0,
            "the migration ended before it could be killed: {seen}"
        );
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        if moved(&seen) > 0 {
            break;
        }
    }
    child.start_kill().unwrap();
    let status = child.wait().await.unwrap();
    assert!(!status.success(), "killed, not finished");

    let after_kill = versions(&table).await;
    assert_eq!(after_kill.len(), CERTIFICATES, "no certificate lost");
    assert!(
        after_kill.values().all(|v| v.len() == 1),
        "no certificate in both versions"
    );
    let left = after_kill
        .values()
        .filter(|v| v[0] == CertVersion::V1)
        .count();
    assert!(
        0 < left && left < CERTIFICATES,
        "killed midway: {left} of {CERTIFICATES} still v01"
    );

    // The rerun moves exactly what is left, and everything ends as v02.
    let out = migrate(&table).output().await.unwrap();
    assert!(out.status.success());
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.starts_with(&format!("moved {left} v01 certificates to v02")),
        "{report}"
    );
    let finished = versions(&table).await;
    assert_eq!(finished.len(), CERTIFICATES);
    assert!(finished.values().all(|v| v == &[CertVersion::V2]));
}
