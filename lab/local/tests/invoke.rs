//! The process side of the stack (Runtime API emulator, pool, gateway) against a function written
//! in shell, as in AWS's custom runtime tutorial: no Lambda crate to build. Needs `sh` and `curl`;
//! skipped without them.

use std::{
    collections::HashSet,
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use local_stack::{
    FunctionSpec, InvokeError, Stack,
    apigw::{
        Gateway,
        routes::{RouteEntry, Router},
    },
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

const FUNCTION: &str = r#"#!/bin/sh
api="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
if [ -z "$TABLE_NAME" ]; then
  curl -sS -o /dev/null -X POST "$api/init/error" \
    -d '{"errorType":"Runtime.ConfigInvalid","errorMessage":"TABLE_NAME is not set"}'
  exit 1
fi
while true; do
  hdr=$(mktemp)
  event=$(curl -sS -D "$hdr" "$api/invocation/next") || exit 1
  id=$(grep -i '^lambda-runtime-aws-request-id:' "$hdr" | cut -d' ' -f2 | tr -d '\r\n')
  rm -f "$hdr"
  case "$event" in
    *'"fail"'*) curl -sS -o /dev/null -X POST "$api/invocation/$id/error" \
                  -d '{"errorType":"Boom","errorMessage":"failed on purpose"}' ;;
    *'"crash"'*) echo "crashing"; exit 3 ;;
    *'"hang"'*) exec sleep 30 ;;
    *'"sleep"'*) sleep 0.5
                 curl -sS -o /dev/null -X POST "$api/invocation/$id/response" -d "{\"pid\":$$}" ;;
    *) curl -sS -o /dev/null -X POST "$api/invocation/$id/response" \
         -d "{\"pid\":$$,\"table\":\"$TABLE_NAME\",\"fn\":\"$AWS_LAMBDA_FUNCTION_NAME\",\"event\":$event}" ;;
  esac
done
"#;

fn tools_available() -> bool {
    let ok = |cmd: &str| {
        std::process::Command::new(cmd)
            .arg("--version")
            .output()
            .is_ok()
    };
    let available = ok("curl") && std::path::Path::new("/bin/sh").exists();
    if !available {
        eprintln!("skipped: needs sh and curl");
    }
    available
}

/// Writes the shell function to a fresh directory and returns its spec.
fn shell_function(name: &str, timeout: Duration) -> FunctionSpec {
    let dir = test_dir(name);
    std::fs::create_dir_all(&dir).unwrap();
    let binary: PathBuf = dir.join(name);
    std::fs::write(&binary, FUNCTION).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    FunctionSpec {
        name: name.into(),
        binary,
        environment: vec![("TABLE_NAME".into(), "t1".into())],
        timeout,
        memory_mb: 128,
        log_file: None,
    }
}

fn test_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("local-stack-test-{}-{name}", std::process::id()))
}

fn pid(v: &Value) -> u64 {
    v["pid"].as_u64().unwrap()
}

#[tokio::test]
async fn invoke_returns_the_functions_json_with_its_environment() {
    if !tools_available() {
        return;
    }
    let stack = Stack::start(vec![shell_function("echo", Duration::from_secs(3))], 2);
    let out = stack
        .invoke("echo", &json!({"hello": [1, 2]}))
        .await
        .unwrap();
    assert_eq!(out["event"], json!({"hello": [1, 2]}));
    assert_eq!(out["table"], "t1");
    assert_eq!(out["fn"], "echo");
    // A warm instance is reused.
    let again = stack.invoke("echo", &json!({})).await.unwrap();
    assert_eq!(pid(&out), pid(&again));

    assert!(matches!(
        stack.invoke("nope", &json!({})).await,
        Err(InvokeError::UnknownFunction(_))
    ));
    stack.shutdown().await;
    let _ = std::fs::remove_dir_all(test_dir("echo"));
}

#[tokio::test]
async fn errors_crashes_and_timeouts() {
    if !tools_available() {
        return;
    }
    let stack = Stack::start(vec![shell_function("flaky", Duration::from_secs(1))], 2);
    match stack.invoke("flaky", &json!({"do": "fail"})).await {
        Err(InvokeError::Function {
            error_type,
            error_message,
        }) => {
            assert_eq!(error_type, "Boom");
            assert_eq!(error_message, "failed on purpose");
        }
        other => panic!("{other:?}"),
    }

    let before = pid(&stack.invoke("flaky", &json!({})).await.unwrap());
    match stack.invoke("flaky", &json!({"do": "crash"})).await {
        Err(InvokeError::Died(reason)) => assert!(reason.contains("exit status: 3"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // The dead instance is replaced on next use.
    let after = pid(&stack.invoke("flaky", &json!({})).await.unwrap());
    assert_ne!(before, after);

    let started = Instant::now();
    assert!(matches!(
        stack.invoke("flaky", &json!({"do": "hang"})).await,
        Err(InvokeError::Timeout(_))
    ));
    assert!(started.elapsed() < Duration::from_secs(3));
    // Killed on timeout, replaced on next use.
    let replaced = pid(&stack.invoke("flaky", &json!({})).await.unwrap());
    assert_ne!(replaced, after);
    stack.shutdown().await;
    let _ = std::fs::remove_dir_all(test_dir("flaky"));
}

/// A process that reports a start-up failure and exits fails the invocation with that error, as
/// Lambda answers it; the next invocation starts a new process, which fails the same way.
#[tokio::test]
async fn a_reported_start_up_failure_is_the_invocations_error() {
    if !tools_available() {
        return;
    }
    let mut spec = shell_function("unconfigured", Duration::from_secs(1));
    spec.environment.clear();
    let stack = Stack::start(vec![spec], 1);
    for _ in 0..2 {
        match stack.invoke("unconfigured", &json!({})).await {
            Err(InvokeError::Function {
                error_type,
                error_message,
            }) => {
                assert_eq!(error_type, "Runtime.ConfigInvalid");
                assert_eq!(error_message, "TABLE_NAME is not set");
            }
            other => panic!("{other:?}"),
        }
    }
    stack.shutdown().await;
    let _ = std::fs::remove_dir_all(test_dir("unconfigured"));
}

#[tokio::test]
async fn scales_to_max_instances_then_queues() {
    if !tools_available() {
        return;
    }
    let stack = Arc::new(Stack::start(
        vec![shell_function("slow", Duration::from_secs(5))],
        2,
    ));
    let started = Instant::now();
    let calls: Vec<_> = (0..4)
        .map(|_| {
            let stack = stack.clone();
            tokio::spawn(async move { stack.invoke("slow", &json!({"do": "sleep"})).await })
        })
        .collect();
    let mut pids = HashSet::new();
    for call in calls {
        pids.insert(pid(&call.await.unwrap().unwrap()));
    }
    // Two instances, each ran two 0.5 s invocations one after the other.
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert!(started.elapsed() >= Duration::from_millis(1000));
    stack.shutdown().await;
    let _ = std::fs::remove_dir_all(test_dir("slow"));
    assert!(matches!(
        stack.invoke("slow", &json!({})).await,
        Err(InvokeError::ShuttingDown)
    ));
}

#[tokio::test]
async fn a_missing_binary_fails_the_invocation() {
    let mut spec = shell_function("missing", Duration::from_secs(1));
    spec.binary = spec.binary.with_file_name("does-not-exist");
    let stack = Stack::start(vec![spec], 1);
    assert!(matches!(
        stack.invoke("missing", &json!({})).await,
        Err(InvokeError::Start { .. })
    ));
    let _ = std::fs::remove_dir_all(test_dir("missing"));
}

/// One HTTP/1.1 request over a fresh connection; returns the status line and the body.
async fn http(port: u16, request: &str) -> (String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_owned(), body.to_owned())
}

#[tokio::test]
async fn gateway_routes_requests_to_the_function() {
    if !tools_available() {
        return;
    }
    let stack = Arc::new(Stack::start(
        vec![shell_function("items", Duration::from_secs(3))],
        2,
    ));
    let router = Router::new(vec![RouteEntry::new("POST", "/items/{id}", "items")]);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(Gateway::new(router, stack.clone()).serve(listener));

    let body = r#"{"n":1}"#;
    let (status, response) = http(
        port,
        &format!(
            "POST /items/a%2Fb?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await;
    // The shell function returns a plain JSON value: API Gateway makes it a 200 JSON body.
    assert_eq!(status, "HTTP/1.1 200 OK");
    let out: Value = serde_json::from_str(&response).unwrap();
    let event = &out["event"];
    assert_eq!(event["routeKey"], "POST /items/{id}");
    assert_eq!(event["pathParameters"]["id"], "a/b");
    assert_eq!(event["queryStringParameters"]["q"], "1");
    assert_eq!(event["body"], body);

    let (status, response) = http(
        port,
        "GET /items/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, "HTTP/1.1 404 Not Found");
    assert_eq!(
        serde_json::from_str::<Value>(&response).unwrap(),
        json!({"message": "Not Found"}),
        "as API Gateway answers an unmatched route"
    );

    server.abort();
    stack.shutdown().await;
    let _ = std::fs::remove_dir_all(test_dir("items"));
}
