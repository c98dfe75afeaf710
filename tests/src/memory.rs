//! A warm function's memory stays flat however many requests it answers: the real `get-cart`
//! binary, run as Lambda runs it, answers tens of thousands of requests in a row through a
//! Runtime API of this test's own, each invocation with a trace header of its own as Lambda gives
//! them, and its resident memory (`VmRSS`) is read as it goes. A leak of a hundred bytes per
//! invocation is megabytes here; [docs/memory.md](../../docs/memory.md) has the one this test
//! was written for.
//!
//! The question is the process's memory, not the table server's time: DynamoDB Local answers the
//! first call, and [`Replay`] gives that answer to the same request again (10,000 calls to
//! DynamoDB Local took 339 s of the suite's critical path, each a Query the server ran anew).

use std::{
    convert::Infallible,
    future::Future,
    net::SocketAddr,
    process::Stdio,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, Response, body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use tokio::{net::TcpListener, process::Command, sync::Notify, task::JoinHandle};

/// Invocations of one warm process.
const INVOCATIONS: usize = 10_000;
/// Its resident memory is read every this many invocations.
const SAMPLE_EVERY: usize = 500;
/// The most its resident memory may grow from the end of the first quarter of the invocations to
/// the last. The heap settles within the first thousand (get-cart then grew by 28 KB over 18,000
/// more); the leak of `lambda_runtime` 1.5.0's loop grew it by about 175 bytes per invocation,
/// 1.3 MB over these 7,500.
const PLATEAU_BYTES: u64 = 256 * 1024;

/// The Runtime API of one process: it hands out the same event `invocations` times, each under a
/// new request id and trace header, and reads the process's memory every `SAMPLE_EVERY`.
struct RuntimeApi {
    event: Bytes,
    invocations: usize,
    /// The trace header of invocation `n`.
    trace: fn(usize) -> String,
    /// Whether an answer is the one expected.
    expected: fn(&serde_json::Value) -> bool,
    pid: OnceLock<u32>,
    handed: AtomicUsize,
    /// (invocations answered, `VmRSS` in bytes).
    samples: Mutex<Vec<(usize, u64)>>,
    /// The first answer that was not a 200, or an error the process reported.
    failure: Mutex<Option<String>>,
    done: Notify,
}

impl RuntimeApi {
    fn fail(&self, why: String) {
        self.failure.lock().unwrap().get_or_insert(why);
        self.done.notify_one();
    }

    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let path = req.uri().path().to_owned();
        let route = path.strip_prefix("/2018-06-01/runtime/").unwrap_or(&path);
        if req.method() == Method::GET && route == "invocation/next" {
            return self.next().await;
        }
        let body = req
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        if route.ends_with("/response") {
            let answer: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            if !(self.expected)(&answer) {
                self.fail(format!("{route}: {answer}"));
            }
        } else {
            self.fail(format!("{route}: {}", String::from_utf8_lossy(&body)));
        }
        Response::builder()
            .status(202)
            .body(Full::new(Bytes::from_static(b"{}")))
            .unwrap()
    }

    async fn next(&self) -> Response<Full<Bytes>> {
        let n = self.handed.fetch_add(1, Ordering::SeqCst);
        if n.is_multiple_of(SAMPLE_EVERY) {
            let pid = *self.pid.get().expect("the process's pid");
            self.samples.lock().unwrap().push((n, resident_bytes(pid)));
        }
        if n == self.invocations {
            self.done.notify_one();
            // The process waits for an event that never comes, as a warm instance does.
            std::future::pending::<()>().await;
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        Response::builder()
            .header("content-type", "application/json")
            .header("lambda-runtime-aws-request-id", format!("memory-{n}"))
            .header(
                "lambda-runtime-deadline-ms",
                (now.as_millis() + 10_000).to_string(),
            )
            .header(
                "lambda-runtime-invoked-function-arn",
                "arn:aws:lambda:us-east-1:123456789012:function:memory",
            )
            .header("lambda-runtime-trace-id", (self.trace)(n))
            .body(Full::new(self.event.clone()))
            .unwrap()
    }
}

/// An HTTP/1.1 server on an ephemeral port of 127.0.0.1, answering every request with `answer`.
async fn http_server<F, Fut>(answer: F) -> (SocketAddr, JoinHandle<()>)
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let answer = answer.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let answered = answer(req);
                    async move { Ok::<_, Infallible>(answered.await) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (address, server)
}

/// DynamoDB for a process that sends one request again and again: the first is sent on to
/// DynamoDB Local and its answer kept, and every later request, checked to be the same one (its
/// operation, and its body as JSON: the SDK writes maps in no fixed order), gets that answer
/// again. The process does all of its own work as against DynamoDB Local (the request built,
/// signed and sent; the same answer read), in a fraction of the time.
struct Replay {
    upstream: u16,
    recorded: tokio::sync::OnceCell<Recorded>,
    /// The first request that was not the recorded one.
    other: Mutex<Option<String>>,
}

/// The first request and DynamoDB Local's answer to it.
struct Recorded {
    /// `X-Amz-Target`: the operation.
    target: String,
    request: serde_json::Value,
    status: u16,
    /// The headers the SDK reads (the type, the request id, the CRC32 of the body).
    headers: Vec<(String, String)>,
    answer: String,
}

impl Replay {
    /// Serves on an ephemeral port of 127.0.0.1, in front of the DynamoDB Local of
    /// `AWS_ENDPOINT_URL_DYNAMODB`.
    async fn start() -> (Arc<Replay>, SocketAddr, JoinHandle<()>) {
        let replay = Arc::new(Replay {
            upstream: devkit::endpoint_port(),
            recorded: tokio::sync::OnceCell::new(),
            other: Mutex::new(None),
        });
        let (address, server) = {
            let replay = replay.clone();
            http_server(move |req| {
                let replay = replay.clone();
                async move { replay.answer(req).await }
            })
            .await
        };
        (replay, address, server)
    }

    async fn answer(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let (parts, body) = req.into_parts();
        let body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let target = parts
            .headers
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let recorded = self
            .recorded
            .get_or_init(|| async {
                let mut raw = format!("{} {} HTTP/1.1\r\n", parts.method, parts.uri);
                for (name, value) in &parts.headers {
                    if !["host", "connection", "content-length"].contains(&name.as_str()) {
                        let value = value.to_str().expect("an ASCII header");
                        raw.push_str(&format!("{name}: {value}\r\n"));
                    }
                }
                raw.push_str(&format!(
                    "Host: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    self.upstream,
                    body.len()
                ));
                raw.push_str(std::str::from_utf8(&body).expect("a JSON request"));
                let (status, head, answer) = crate::stack::exchange(self.upstream, &raw).await;
                let kept = head
                    .lines()
                    .skip(1)
                    .filter_map(|l| l.split_once(':'))
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .filter(|(n, _)| {
                        ["content-type", "x-amzn-requestid", "x-amz-crc32"].contains(&n.as_str())
                    })
                    .collect();
                Recorded {
                    target: target.clone(),
                    request: request.clone(),
                    status,
                    headers: kept,
                    answer,
                }
            })
            .await;
        if (&recorded.target, &recorded.request) != (&target, &request) {
            self.other.lock().unwrap().get_or_insert_with(|| {
                format!(
                    "{target} {request} after {} {}",
                    recorded.target, recorded.request
                )
            });
            return Response::builder()
                .status(500)
                .body(Full::new(Bytes::new()))
                .unwrap();
        }
        let mut response = Response::builder().status(recorded.status);
        for (name, value) in &recorded.headers {
            response = response.header(name, value);
        }
        response
            .body(Full::new(Bytes::from(recorded.answer.clone())))
            .unwrap()
    }
}

/// `VmRSS` of process `pid`, in bytes.
fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .expect("VmRSS in /proc status");
    kb * 1024
}

/// How long a warm instance may take for its invocations before the test calls it hung.
const HANG: Duration = Duration::from_secs(900);

/// Runs `binary` (a function of `target/debug`) as a warm Lambda instance with `environment`,
/// hands it `event` `invocations` times, invocation `n` under the trace header `trace(n)`, checks
/// every answer with `expected`, and returns its resident memory as it went.
async fn warm_invocations(
    binary: &str,
    environment: &[(&str, &str)],
    event: &serde_json::Value,
    invocations: usize,
    trace: fn(usize) -> String,
    expected: fn(&serde_json::Value) -> bool,
) -> Vec<(usize, u64)> {
    let binary = crate::stack::debug_binary(binary);
    let api = Arc::new(RuntimeApi {
        event: Bytes::from(event.to_string()),
        invocations,
        trace,
        expected,
        pid: OnceLock::new(),
        handed: AtomicUsize::new(0),
        samples: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        done: Notify::new(),
    });
    let (address, server) = {
        let api = api.clone();
        http_server(move |req| {
            let api = api.clone();
            async move { api.handle(req).await }
        })
        .await
    };
    let mut child = Command::new(&binary)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(devkit::local_aws_env())
        .envs(environment.iter().copied())
        .env("AWS_LAMBDA_RUNTIME_API", address.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", "memory")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/memory")
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "memory")
        .stdin(Stdio::null())
        // Its metrics documents, one per invocation.
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    api.pid.set(child.id().expect("a running process")).unwrap();
    let started = Instant::now();
    tokio::select! {
        _ = api.done.notified() => {}
        status = child.wait() => panic!("{} exited: {status:?}", binary.display()),
        // A guard against a hang, not a speed test: 10,000 calls take 45 s alone, and several
        // times that while the suite's other tests (two of them with a DynamoDB Local of their
        // own) share the machine and the table server.
        _ = tokio::time::sleep(HANG) => panic!(
            "{} answered {} of {invocations} invocations in {HANG:?}",
            binary.display(),
            api.handed.load(Ordering::SeqCst)
        ),
    }
    let _ = child.kill().await;
    server.abort();
    if let Some(failure) = api.failure.lock().unwrap().take() {
        panic!("{}: {failure}", binary.display());
    }
    let samples = api.samples.lock().unwrap().clone();
    eprintln!(
        "{}: {invocations} invocations in {:.1} s; VmRSS (invocations, bytes): {samples:?}",
        binary.display(),
        started.elapsed().as_secs_f64()
    );
    samples
}

#[tokio::test]
async fn a_warm_api_function_does_not_grow_with_the_requests_it_answers() {
    let table = testkit::table().await;
    for product in ["coffee", "veggies", "chocolates"] {
        let line = model::commerce::CartLine {
            cart_id: commerce::fixtures::id("petes-cart"),
            product_id: commerce::fixtures::id(product),
            quantity: 1,
            updated_at: commerce::fixtures::at(1_671_062_400_000),
            version: 0,
        };
        commerce::fixtures::put_cart_line(&table, &line)
            .await
            .unwrap();
    }
    let (replay, dynamodb, server) = Replay::start().await;
    let samples = warm_invocations(
        "get-cart",
        &[
            ("TABLE_NAME", table.name()),
            ("AWS_ENDPOINT_URL_DYNAMODB", &format!("http://{dynamodb}")),
        ],
        &testkit::sample_event("get-cart.json"),
        INVOCATIONS,
        new_trace_header,
        // The cart of three lines, as DynamoDB Local gave it.
        |answer| {
            answer["statusCode"] == 200
                && serde_json::from_str::<serde_json::Value>(answer["body"].as_str().unwrap_or(""))
                    .is_ok_and(|cart| cart["items"].as_array().is_some_and(|l| l.len() == 3))
        },
    )
    .await;
    server.abort();
    if let Some(other) = replay.other.lock().unwrap().take() {
        panic!("get-cart sent another request: {other}");
    }
    assert_plateau("get-cart", &samples);
}

#[tokio::test]
async fn a_warm_stream_consumer_does_not_grow_with_the_batches_it_answers() {
    let table = testkit::table().await;
    // An empty batch: the stream binary's loop and its per-batch path without DynamoDB's time
    // (its sample batch, applied again and again, took 13 ms an invocation here, and leaked as
    // much: 162 bytes an invocation with the old loop).
    let failures = std::env::temp_dir().join(format!("memory-failures-{}.jsonl", table.name()));
    let samples = warm_invocations(
        "aggregate-reviews",
        &[
            ("TABLE_NAME", table.name()),
            ("AGGREGATE_SHARDS", &testkit::TEST_SHARDS.to_string()),
            (
                "FAILURE_QUEUE_URL",
                &format!("file://{}", failures.display()),
            ),
        ],
        &serde_json::json!({ "Records": [] }),
        INVOCATIONS,
        new_trace_header,
        |answer| answer["batchItemFailures"] == serde_json::json!([]),
    )
    .await;
    assert_plateau("aggregate-reviews", &samples);
}

/// A new trace header per invocation, as Lambda sends them.
fn new_trace_header(_: usize) -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    local_stack::account::trace_id(now.as_secs())
}

/// Fails unless the resident memory grew by less than `PLATEAU_BYTES` from the end of the first
/// quarter of the invocations to the last.
fn assert_plateau(function: &str, samples: &[(usize, u64)]) {
    let at = |n: usize| {
        let sample = samples.iter().find(|(i, _)| *i == n);
        sample
            .unwrap_or_else(|| panic!("no sample at {n}: {samples:?}"))
            .1
    };
    let growth = at(INVOCATIONS).saturating_sub(at(INVOCATIONS / 4));
    let invocations = INVOCATIONS - INVOCATIONS / 4;
    assert!(
        growth < PLATEAU_BYTES,
        "{function}'s resident memory grew by {growth} bytes over its last {invocations} \
         invocations ({:.0} bytes each): {samples:?}",
        growth as f64 / invocations as f64
    );
}

/// The trace header of invocation `n`: the first two sampled, the others not.
fn sampled_first_two(n: usize) -> String {
    let sampled = u8::from(n < 2);
    format!("Root=1-5f84c7a6-{n:024x};Parent=89abcdef0123456{n};Sampled={sampled}")
}

#[tokio::test]
async fn each_invocations_trace_header_goes_with_its_aws_calls_and_to_x_ray() {
    // DynamoDB as get-cart's Query sees it: an empty cart; the trace header of every request kept.
    let seen: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let (dynamodb, server) = {
        let seen = seen.clone();
        http_server(move |req: Request<Incoming>| {
            let header = req.headers().get("x-amzn-trace-id");
            let header = header.and_then(|v| v.to_str().ok()).map(str::to_owned);
            seen.lock().unwrap().push(header);
            async {
                Response::builder()
                    .header("content-type", "application/x-amz-json-1.0")
                    .body(Full::new(Bytes::from_static(
                        br#"{"Count":0,"Items":[],"ScannedCount":0}"#,
                    )))
                    .unwrap()
            }
        })
        .await
    };
    let daemon = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    daemon
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    warm_invocations(
        "get-cart",
        &[
            ("TABLE_NAME", "traced"),
            ("AWS_ENDPOINT_URL_DYNAMODB", &format!("http://{dynamodb}")),
            (
                "AWS_XRAY_DAEMON_ADDRESS",
                &daemon.local_addr().unwrap().to_string(),
            ),
        ],
        &testkit::sample_event("get-cart.json"),
        3,
        sampled_first_two,
        |answer| answer["statusCode"] == 200,
    )
    .await;
    server.abort();

    // Sampled or not, each invocation's call carried its header.
    let expected: Vec<_> = (0..3).map(|n| Some(sampled_first_two(n))).collect();
    assert_eq!(*seen.lock().unwrap(), expected);
    // The sampled ones' calls reached X-Ray, each in its own trace; the unsampled one's did not.
    let mut buf = [0u8; 8192];
    let mut traces = Vec::new();
    while let Ok(n) = daemon.recv(&mut buf) {
        let text = std::str::from_utf8(&buf[..n]).unwrap();
        let (_, doc) = text
            .split_once('\n')
            .expect("a header line, then the subsegment");
        let doc: serde_json::Value = serde_json::from_str(doc).unwrap();
        assert_eq!(doc["aws"]["operation"], "Query", "{doc}");
        traces.push(doc["trace_id"].as_str().unwrap().to_owned());
        daemon
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
    }
    assert_eq!(
        traces,
        [
            "1-5f84c7a6-000000000000000000000000",
            "1-5f84c7a6-000000000000000000000001"
        ]
    );
}
