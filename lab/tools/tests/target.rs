//! Which table `make reconcile` and `make migrate` work on, offline: the real binaries against a
//! fake AWS (one local HTTP server answering STS's GetCallerIdentity and DynamoDB's ListTables,
//! ListTagsOfResource and Scan, reached through the SDK's own `AWS_ENDPOINT_URL`), and against
//! DynamoDB Local. Without a local endpoint the SDK's default chain and region apply; the tools
//! say which account and table they are about to change, and write nothing there without
//! `--confirm <account>`.

use std::sync::{Arc, Mutex};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
    process::Command,
};

const ACCOUNT: &str = "123456789012";
const STACK_TABLE: &str = "shop-Table-1A2B3C4D";

/// A fake AWS endpoint; `calls` lists the operations it was asked for, in order.
struct FakeAws {
    url: String,
    calls: Arc<Mutex<Vec<String>>>,
}

/// The answer to one request: the operation's name and its body.
fn answer(target: &str, body: &str) -> (String, &'static str, String) {
    if body.contains("Action=GetCallerIdentity") {
        let xml = format!(
            "<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\
             <GetCallerIdentityResult><Arn>arn:aws:iam::{ACCOUNT}:user/operator</Arn>\
             <UserId>AIDAFAKE</UserId><Account>{ACCOUNT}</Account></GetCallerIdentityResult>\
             <ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata>\
             </GetCallerIdentityResponse>"
        );
        return ("GetCallerIdentity".into(), "text/xml", xml);
    }
    let operation = target.rsplit('.').next().unwrap_or("").to_owned();
    let json = match operation.as_str() {
        "ListTables" => format!(r#"{{"TableNames":["other-table","{STACK_TABLE}"]}}"#),
        "ListTagsOfResource" if body.contains(STACK_TABLE) => r#"{"Tags":[
            {"Key":"aws:cloudformation:stack-name","Value":"shop"},
            {"Key":"aws:cloudformation:logical-id","Value":"Table"}]}"#
            .into(),
        "ListTagsOfResource" => r#"{"Tags":[]}"#.into(),
        "Scan" => r#"{"Items":[],"Count":0,"ScannedCount":0}"#.into(),
        _ => r#"{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"not faked"}"#.into(),
    };
    (operation, "application/x-amz-json-1.0", json)
}

async fn fake_aws() -> FakeAws {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = calls.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut raw = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    // Headers, then as much body as Content-Length says.
                    let text = String::from_utf8_lossy(&raw).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text[..end]
                            .lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(':')?;
                                k.eq_ignore_ascii_case("content-length")
                                    .then(|| v.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        if raw.len() >= end + 4 + length {
                            let head = &text[..end];
                            let target = head
                                .lines()
                                .find_map(|l| {
                                    let (k, v) = l.split_once(':')?;
                                    k.eq_ignore_ascii_case("x-amz-target")
                                        .then(|| v.trim().to_owned())
                                })
                                .unwrap_or_default();
                            let (operation, kind, body) = answer(&target, &text[end + 4..]);
                            seen.lock().unwrap().push(operation);
                            let status = if body.contains("__type") {
                                "400 Bad Request"
                            } else {
                                "200 OK"
                            };
                            let response = format!(
                                "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n\
                                 x-amzn-requestid: fake\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            );
                            let _ = socket.write_all(response.as_bytes()).await;
                            let _ = socket.shutdown().await;
                            return;
                        }
                    }
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => raw.extend_from_slice(&buf[..n]),
                    }
                }
            });
        }
    });
    FakeAws { url, calls }
}

/// `binary` with `args`, configured for AWS as an operator's shell would be (credentials and a
/// region in the environment, no local endpoint), every AWS service at the fake.
async fn on_aws(fake: &FakeAws, binary: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(binary)
        .args(args)
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .env("AWS_ENDPOINT_URL", &fake.url)
        .env("AWS_REGION", "eu-west-1")
        .env("AWS_ACCESS_KEY_ID", "AKIDFAKE")
        .env("AWS_SECRET_ACCESS_KEY", "fake")
        .env("AWS_CONFIG_FILE", "/nonexistent")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .output()
        .await
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const RECONCILE: &str = env!("CARGO_BIN_EXE_reconcile");
const MIGRATE: &str = env!("CARGO_BIN_EXE_migrate");

#[tokio::test]
async fn a_repair_on_aws_names_account_and_table_and_refuses_without_confirmation() {
    let fake = fake_aws().await;
    let (code, out, err) = on_aws(&fake, RECONCILE, &["--table", "prod-table", "--repair"]).await;
    assert_eq!(code, 2, "refused: {out}{err}");
    for said in [
        "prod-table",
        ACCOUNT,
        "eu-west-1",
        "arn:aws:iam::123456789012:user/operator",
        &format!("--confirm {ACCOUNT}"),
    ] {
        assert!(err.contains(said), "{said:?} in {err}");
    }
    assert_eq!(
        *fake.calls.lock().unwrap(),
        ["GetCallerIdentity"],
        "nothing asked of DynamoDB"
    );
}

#[tokio::test]
async fn a_migration_on_aws_refuses_too_and_a_wrong_account_is_no_confirmation() {
    let fake = fake_aws().await;
    let (code, _, err) = on_aws(&fake, MIGRATE, &["--table", "prod-table"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("--confirm {ACCOUNT}")), "{err}");
    let (code, _, err) = on_aws(
        &fake,
        MIGRATE,
        &["--table", "prod-table", "--confirm", "999999999999"],
    )
    .await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("999999999999"), "{err}");
    assert_eq!(
        *fake.calls.lock().unwrap(),
        ["GetCallerIdentity", "GetCallerIdentity"]
    );
}

#[tokio::test]
async fn on_aws_a_table_or_a_stack_must_be_named() {
    let fake = fake_aws().await;
    let (code, _, err) = on_aws(&fake, RECONCILE, &[]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--table") && err.contains("--stack"), "{err}");
    assert!(fake.calls.lock().unwrap().is_empty());
}

/// A stack is resolved to its table by the tags CloudFormation puts on it; a report (no
/// write) needs no confirmation, and a confirmed repair goes ahead.
#[tokio::test]
async fn a_stack_is_resolved_to_its_table_and_a_confirmed_repair_goes_ahead() {
    let fake = fake_aws().await;
    let (code, out, err) = on_aws(&fake, RECONCILE, &["--stack", "shop"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains(STACK_TABLE) && err.contains(ACCOUNT), "{err}");
    assert!(out.contains("0 drifted"), "{out}");
    let (code, out, err) = on_aws(
        &fake,
        RECONCILE,
        &["--stack", "shop", "--repair", "--confirm", ACCOUNT],
    )
    .await;
    assert_eq!(code, 0, "{out}{err}");
    let calls = fake.calls.lock().unwrap().clone();
    assert!(
        calls.contains(&"ListTagsOfResource".to_owned()),
        "{calls:?}"
    );
    assert!(calls.contains(&"Scan".to_owned()), "{calls:?}");
    let (code, _, err) = on_aws(&fake, RECONCILE, &["--stack", "nothing-here"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing-here"), "{err}");
}

/// DynamoDB Local, by flag or by `AWS_ENDPOINT_URL_DYNAMODB`: no account, no confirmation, as
/// before; the tool says it is the local one.
#[tokio::test]
async fn local_runs_still_work_without_confirmation() {
    let table = devkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let local = |args: &[&str]| {
        let mut c = Command::new(RECONCILE);
        c.args(args)
            .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
            .env_remove("AWS_ENDPOINT_URL");
        c
    };
    let endpoint = devkit::endpoint();
    let flagged = ["--endpoint", &endpoint, "--table", table.name()];
    let out = local(&flagged).output().await.unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "drift: {stdout}{stderr}");
    assert!(stderr.contains(&endpoint), "{stderr}");
    // Two repairs: the seed's status behind its event first, then the sums (no stream here).
    for _ in 0..2 {
        let mut repair = local(&[&flagged[..], &["--repair", "--settle", "0"]].concat());
        let out = repair.output().await.unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The environment's endpoint, as `make` sets it, still chooses DynamoDB Local.
    let mut by_env = local(&["--table", table.name()]);
    let out = by_env
        .env("AWS_ENDPOINT_URL_DYNAMODB", &endpoint)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "healed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = Command::new(MIGRATE)
        .args(["--dry-run", "--table", table.name()])
        .env("AWS_ENDPOINT_URL_DYNAMODB", &endpoint)
        .output()
        .await
        .unwrap();
    assert!(out.status.success());
}
