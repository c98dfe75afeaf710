//! The local stack (`target/debug/local-stack`) as a child process, and a minimal HTTP client for
//! driving it. `make test` builds the binaries first (`cargo build --bins`).

use std::{
    path::{Path, PathBuf},
    process::Stdio,
    time::Duration,
};

use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    process::{Child, Command},
};

pub struct Stack {
    child: Child,
    pub port: u16,
    /// The stack's table in DynamoDB Local.
    pub table: String,
    /// The stack's own token issuer (its key in a directory of its own), read once it listens.
    issuer_dir: PathBuf,
    issuer: Option<local_stack::jwt::Issuer>,
    /// The scope the template's signed-in routes require.
    scope: String,
    /// Where each function's output is kept (`--log-dir`).
    log_dir: PathBuf,
}

impl Stack {
    /// An `authorization` header for `sub` in `groups`, signed by the stack's local issuer.
    pub fn bearer(&self, sub: &str, groups: &[&str]) -> String {
        let issuer = self.issuer.as_ref().expect("the stack's issuer");
        let token = issuer.access_token(sub, groups, &self.scope, time_now());
        format!("Bearer {token}")
    }

    /// A token with exactly `claims`, signed by `issuer` (the stack's own when `None`): for
    /// tests that need a token wrong in one way.
    pub fn signed(&self, claims: &Value, issuer: Option<&local_stack::jwt::Issuer>) -> String {
        let issuer = issuer.or(self.issuer.as_ref()).expect("the stack's issuer");
        format!("Bearer {}", issuer.sign(claims))
    }

    /// Everything `function` has printed so far (its logs and metrics documents), in order.
    pub fn function_output(&self, function: &str) -> String {
        std::fs::read_to_string(self.log_dir.join(format!("{function}.log"))).unwrap_or_default()
    }

    /// The scope the template's signed-in routes require.
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// The `authorization` of the caller a route lets in: the customer, cart owner or user the
    /// path names (`/customers/{id}`, `/carts/{id}`, `/users/{username}`,
    /// `/books/{isbn}/reviews/{username}`), and staff for every other path.
    pub fn bearer_for(&self, path: &str) -> String {
        let segments: Vec<&str> = path.split('?').next().unwrap_or(path).split('/').collect();
        let owner = match segments.as_slice() {
            ["", "customers" | "carts" | "users", id, ..] => Some(*id),
            ["", "books", _, "reviews", user, ..] => Some(*user),
            _ => None,
        };
        match owner {
            Some(id) => self.bearer(id, &[]),
            None => self.bearer("staff-1", &["staff"]),
        }
    }
}

impl Stack {
    /// Kills (SIGKILL) the stack's running instances of `function`, as a Lambda instance that
    /// dies mid-invocation: what it was doing is lost, the stack starts another when needed.
    /// Whether there was one to kill.
    pub fn kill_instances(&self, function: &str) -> bool {
        let Some(pid) = self.child.id() else {
            return false;
        };
        std::process::Command::new("pkill")
            .args(["-KILL", "-P", &pid.to_string(), "-f"])
            .arg(format!("/{function}$"))
            .status()
            .is_ok_and(|s| s.success())
    }
}

pub fn time_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SIGTERM lets the stack stop its function processes; kill_on_drop is the backstop.
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .arg(pid.to_string())
                .status();
        }
        let _ = std::fs::remove_dir_all(&self.issuer_dir);
        let _ = std::fs::remove_dir_all(&self.log_dir);
    }
}

/// A binary of the workspace's debug build: `target/debug/<name>` (under `CARGO_TARGET_DIR` when
/// it is set), which must have been built.
pub fn debug_binary(name: &str) -> PathBuf {
    let binary = devkit::debug_dir().join(name);
    assert!(
        binary.is_file(),
        "{} is missing: build the binaries first (cargo build --bins, as make test does)",
        binary.display()
    );
    binary
}

/// The test stack's cursor secret (the template's `CursorSigningKey`).
pub const CURSOR_KEY: &str = "e2e-cursor-signing-key-0123456789abcdef";

pub async fn start_stack() -> Stack {
    start_stack_in(ONE_TABLE).await
}

/// The values of the template's `TableLayout`: the end-to-end suites run in both.
pub use sam_template::layout::{ONE_TABLE, TABLE_PER_CONTEXT};

/// A stack deployed with `TableLayout` `layout`.
pub async fn start_stack_in(layout: &str) -> Stack {
    start_stack_with(&[(sam_template::layout::PARAMETER, layout)]).await
}

/// A stack deployed with these template parameters (and the test cursor key).
pub async fn start_stack_with(parameters: &[(&str, &str)]) -> Stack {
    devkit::reap_test_tables(&devkit::client(), testkit::TABLE_PREFIXES).await;
    start(&devkit::endpoint(), parameters).await
}

/// A stack whose functions and stream mappings use the DynamoDB (Local) at `endpoint`: a test's
/// own instance, which it may stop and start (`outage`).
pub async fn start_stack_on(endpoint: &str) -> Stack {
    start(endpoint, &[]).await
}

async fn start(endpoint: &str, parameters: &[(&str, &str)]) -> Stack {
    let root = sam_template::workspace_root();
    let binary = debug_binary("local-stack");
    let bin_dir = binary.parent().expect("target/debug").to_owned();
    match try_start(&root, &bin_dir, &binary, endpoint, parameters).await {
        Some(stack) => stack,
        None => panic!("the local stack exited before it listened"),
    }
}

/// A stack on a port the system picks, once it listens (it writes the port to a file then: a
/// port chosen here could be taken before the stack binds it, and a connection to it would
/// then reach another process); `None` if it exits before.
async fn try_start(
    root: &Path,
    bin_dir: &Path,
    binary: &Path,
    endpoint: &str,
    parameters: &[(&str, &str)],
) -> Option<Stack> {
    let table = devkit::test_table_name("e2e", &ulid::Ulid::new().to_string().to_lowercase());
    let issuer_dir = std::env::temp_dir().join(format!("issuer-{table}"));
    let log_dir = std::env::temp_dir().join(format!("logs-{table}"));
    let port_file = std::env::temp_dir().join(format!("port-{table}"));
    let mut child = Command::new(binary)
        .current_dir(root)
        .args(["--port", "0", "--table", &table])
        .args(["--port-file", &port_file.to_string_lossy()])
        .args(["--bin-dir", &bin_dir.to_string_lossy()])
        .args(["--issuer-dir", &issuer_dir.to_string_lossy()])
        .args(["--log-dir", &log_dir.to_string_lossy()])
        .args(["--param", &format!("CursorSigningKey={CURSOR_KEY}")])
        .args(
            parameters
                .iter()
                .flat_map(|(name, value)| ["--param".to_owned(), format!("{name}={value}")]),
        )
        .env("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("local-stack starts");
    let scope = sam_template::Template::workspace()
        .ok()
        .and_then(|t| t.api_auth)
        .and_then(|a| a.scopes.first().cloned())
        .unwrap_or_default();
    // Up to two minutes, for a loaded machine; a stack that exits is given up at once.
    for _ in 0..2400 {
        if let Ok(Some(_)) = child.try_wait() {
            return None;
        }
        if let Some(port) = std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|p| p.parse().ok())
        {
            // The stack made its issuer's key before it listened.
            let issuer = local_stack::jwt::Issuer::open(&issuer_dir).expect("the stack's issuer");
            return Some(Stack {
                child,
                port,
                table,
                issuer_dir,
                issuer: Some(issuer),
                scope,
                log_dir,
            });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the local stack did not listen within two minutes");
}

/// One HTTP/1.1 exchange (Connection: close), enough for a test client.
pub async fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, String, Value) {
    let body = body.unwrap_or("");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        req.push_str("content-type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    let (status, head, body) = exchange(port, &req).await;
    let json = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&body).unwrap_or(Value::String(body))
    };
    // Every answer of the API is one openapi.yaml documents (`/_local/` is the local stack's own).
    if !path.starts_with("/_local/") {
        crate::openapi::assert_answer(method, path, status, &json);
    }
    (status, head, json)
}

/// [`http`] as a client that follows docs/errors.md: a `PUT` or a `DELETE` answered 503 (a
/// throttle, or a database that did not answer within the function's attempt timeout, as
/// DynamoDB Local under the whole suite's load at times does not) is sent again as it was, after
/// the `Retry-After` it gives, up to three times. Any other request's 503 is its answer: a `POST`
/// is not resent blindly.
pub async fn http_as_client(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, String, Value) {
    let mut answer = http(port, method, path, body, headers).await;
    for _ in 0..3 {
        if answer.0 != 503 || !matches!(method, "PUT" | "DELETE") {
            break;
        }
        let wait = answer
            .1
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("retry-after")
                    .then(|| value.trim().parse::<u64>().ok())?
            })
            .unwrap_or(1);
        tokio::time::sleep(Duration::from_secs(wait)).await;
        answer = http(port, method, path, body, headers).await;
    }
    answer
}

/// Sends one HTTP/1.1 request as written (it asks `Connection: close`) and reads the answer to
/// its end: the status, the head, and the body (de-chunked).
pub async fn exchange(port: u16, request: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    s.write_all(request.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    (status, head.to_owned(), body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}
