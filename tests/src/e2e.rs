//! End to end: the local stack (`target/debug/local-stack`) running the real function binaries,
//! driven over HTTP. `make test` builds the binaries first (`cargo build --bins`).

use std::{path::PathBuf, process::Stdio, time::Duration};

use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    process::{Child, Command},
};

struct Stack {
    child: Child,
    port: u16,
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SIGTERM lets the stack stop its function processes; kill_on_drop is the backstop.
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .arg(pid.to_string())
                .status();
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

async fn start_stack() -> Stack {
    let root = template::workspace_root();
    let bin_dir: PathBuf = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("debug");
    let binary = bin_dir.join("local-stack");
    assert!(
        binary.is_file(),
        "{} is missing: build the binaries first (cargo build --bins, as make test does)",
        binary.display()
    );
    let port = free_port();
    let table = format!("e2e-{}", ulid::Ulid::new().to_string().to_lowercase());
    let child = Command::new(&binary)
        .current_dir(&root)
        .args(["--port", &port.to_string(), "--table", &table])
        .args(["--bin-dir", &bin_dir.to_string_lossy()])
        .args([
            "--param",
            "CursorSigningKey=e2e-cursor-signing-key-0123456789abcdef",
        ])
        .env("AWS_ENDPOINT_URL_DYNAMODB", dev::endpoint())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("local-stack starts");
    let stack = Stack { child, port };
    for _ in 0..300 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return stack;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the local stack did not listen on port {port}");
}

/// One HTTP/1.1 exchange (Connection: close), enough for a test client.
async fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, String, Value) {
    let mut s = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
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
    s.write_all(req.as_bytes()).await.expect("write");
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
    let json = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&body).unwrap_or(Value::String(body))
    };
    (status, head.to_owned(), json)
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

#[tokio::test]
async fn the_commerce_patterns_over_http_through_the_real_binaries() {
    let stack = start_stack().await;
    let p = stack.port;

    let (s, _, c) = http(
        p,
        "PUT",
        "/customers/e2e-1",
        Some(r#"{"name":"Ann","email":"ann@example.com"}"#),
        &[],
    )
    .await;
    assert_eq!((s, c["customerId"].as_str()), (201, Some("e2e-1")), "{c}");

    let order = r#"{"items":[{"sku":1001,"quantity":2,"unitPrice":1250},{"sku":42,"quantity":1,"unitPrice":499}]}"#;
    let (s, head, placed) = http(
        p,
        "POST",
        "/customers/e2e-1/orders",
        Some(order),
        &[("Idempotency-Key", "e2e-key")],
    )
    .await;
    assert_eq!(s, 201, "{placed}");
    let id = placed["orderId"].as_str().unwrap().to_owned();
    assert!(
        head.to_ascii_lowercase()
            .contains(&format!("location: /orders/{}", id.to_ascii_lowercase()))
    );
    let (s, _, again) = http(
        p,
        "POST",
        "/customers/e2e-1/orders",
        Some(order),
        &[("Idempotency-Key", "e2e-key")],
    )
    .await;
    assert_eq!(
        (s, &again),
        (201, &placed),
        "a retry answers the same order"
    );

    let (s, _, ev) = http(
        p,
        "POST",
        &format!("/orders/{id}/events"),
        Some(r#"{"status":"SHIPPED"}"#),
        &[],
    )
    .await;
    assert_eq!(s, 201, "{ev}");

    let (s, _, page) = http(p, "GET", &format!("/orders/{id}"), None, &[]).await;
    assert_eq!(s, 200);
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    assert_eq!(page["events"][0]["status"], "SHIPPED");

    let (s, _, got) = http(p, "GET", "/customers/e2e-1?orders=5", None, &[]).await;
    assert_eq!((s, got["orders"].as_array().unwrap().len()), (200, 1));
    assert_eq!(got["orders"][0]["orderId"], json!(id));

    let (s, _, list) = http(
        p,
        "GET",
        "/customers/e2e-1/orders?from=2020-01-01&limit=10",
        None,
        &[],
    )
    .await;
    assert_eq!(
        (s, list["orders"][0]["orderId"].as_str()),
        (200, Some(id.as_str()))
    );

    assert_eq!(
        http(
            p,
            "PUT",
            "/carts/e2e-cart/items/coffee",
            Some(r#"{"quantity":2}"#),
            &[]
        )
        .await
        .0,
        200
    );
    assert_eq!(
        http(
            p,
            "PUT",
            "/carts/e2e-cart/items/tea",
            Some(r#"{"quantity":1}"#),
            &[]
        )
        .await
        .0,
        200
    );
    assert_eq!(
        http(p, "DELETE", "/carts/e2e-cart/items/tea", None, &[])
            .await
            .0,
        204
    );
    let (s, _, cart) = http(p, "GET", "/carts/e2e-cart", None, &[]).await;
    assert_eq!((s, cart["items"].as_array().unwrap().len()), (200, 1));

    // Errors: 4xx with a code, never a 5xx.
    for (method, path, body, status, code) in [
        ("GET", "/nowhere", None, 404, "route_not_found"),
        ("PATCH", "/customers/e2e-1", None, 404, "route_not_found"),
        ("GET", "/customers/ghost", None, 404, "customer_not_found"),
        ("GET", "/customers/a%23b", None, 400, "invalid_parameter"),
        ("PUT", "/customers/e2e-2", Some("{"), 400, "invalid_json"),
        (
            "POST",
            "/customers/ghost/orders",
            Some(order),
            404,
            "customer_not_found",
        ),
        ("GET", "/orders/not-an-id", None, 400, "invalid_parameter"),
        (
            "GET",
            "/customers/e2e-1/orders?cursor=forged",
            None,
            400,
            "invalid_cursor",
        ),
    ] {
        let (s, _, b) = http(p, method, path, body, &[]).await;
        assert_eq!(
            (s, b["code"].as_str().unwrap_or_default()),
            (status, code),
            "{method} {path}: {b}"
        );
    }
}
