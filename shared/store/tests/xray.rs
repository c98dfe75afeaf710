//! Tracing through the real client against DynamoDB Local: with the variable Lambda sets for a
//! traced function and the invocation's trace header as the invocation loop makes it current
//! (`telemetry::xray::enter`), each call reaches the X-Ray daemon as a subsegment of the
//! invocation's segment; an unsampled invocation sends nothing. (A file of its own: the variables
//! are the process's.)

use std::{net::UdpSocket, time::Duration};

use store::{Condition, Table, Update};

const SAMPLED: &str =
    "Root=1-5f84c7a6-0123456789abcdef01234567;Parent=89abcdef01234567;Sampled=1;Lineage=t:0";

fn subsegment(daemon: &UdpSocket) -> Option<serde_json::Value> {
    let mut buf = [0u8; 8192];
    let n = daemon.recv(&mut buf).ok()?;
    let (header, doc) = std::str::from_utf8(&buf[..n]).ok()?.split_once('\n')?;
    assert_eq!(header, r#"{"format":"json","version":1}"#);
    Some(serde_json::from_str(doc).expect("a JSON subsegment"))
}

#[tokio::test]
async fn each_call_of_a_sampled_invocation_reaches_the_daemon_and_nothing_else_does() {
    let daemon = UdpSocket::bind("127.0.0.1:0").unwrap();
    daemon
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let name = devkit::test_table_name("xray", "calls");
    devkit::create_workspace_table(&devkit::client(), &name)
        .await
        .unwrap();
    // SAFETY: the only test of this process, before any thread reads the environment.
    unsafe {
        for (k, v) in devkit::local_aws_env() {
            std::env::set_var(k, v);
        }
        std::env::set_var("TABLE_NAME", &name);
        std::env::set_var(
            "AWS_XRAY_DAEMON_ADDRESS",
            daemon.local_addr().unwrap().to_string(),
        );
    }
    let _invocation = telemetry::xray::enter(Some(SAMPLED));
    let table = Table::from_env().await.unwrap();
    let key = keys::derived::daily_stats(
        keys::Date::parse_iso("2026-01-01").unwrap(),
        keys::Shard::new(0, 1).unwrap(),
    );

    assert!(!table.exists(&key).await.unwrap());
    let got = subsegment(&daemon).expect("a subsegment for the GetItem");
    assert_eq!(got["type"], "subsegment");
    assert_eq!(got["namespace"], "aws");
    assert_eq!(got["name"], "DynamoDB");
    assert_eq!(got["trace_id"], "1-5f84c7a6-0123456789abcdef01234567");
    assert_eq!(got["parent_id"], "89abcdef01234567");
    assert_eq!(got["aws"]["operation"], "GetItem");
    assert_eq!(got["aws"]["table_name"], name.as_str());
    assert_eq!(got["aws"]["region"], "us-east-1");
    assert_eq!(got["aws"]["retries"], 0);
    assert!(!got["aws"]["request_id"].as_str().unwrap_or("").is_empty());
    assert_eq!(got["http"]["response"]["status"], 200);
    assert!(got["end_time"].as_f64() >= got["start_time"].as_f64());
    assert!(got.get("error").is_none() && got.get("fault").is_none());

    // A refused condition is DynamoDB's 400: an error in the trace (the caller's, not a fault).
    let update = Update::new().set("Name", model::s("Ann"));
    assert!(
        table
            .update(&key, &update, Some(Condition::Exists))
            .await
            .is_err()
    );
    let refused = subsegment(&daemon).expect("a subsegment for the UpdateItem");
    assert_eq!(refused["aws"]["operation"], "UpdateItem");
    assert_eq!(refused["http"]["response"]["status"], 400);
    assert_eq!(refused["error"], true);

    // An invocation Lambda did not sample: its calls send nothing.
    let _invocation = telemetry::xray::enter(Some(&SAMPLED.replace("Sampled=1", "Sampled=0")));
    assert!(!table.exists(&key).await.unwrap());
    assert!(
        subsegment(&daemon).is_none(),
        "an unsampled call was traced"
    );
}
