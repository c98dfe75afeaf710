//! The Lambda Runtime API for one measured process, stamping the moments Lambda's own figures
//! come from: the first `GET /next` ends init (Lambda's "Init Duration"), an event handed out
//! starts an invocation, a `POST .../response` ends it. The local stack has a fuller emulator
//! (timeouts, pools, streaming); this one does only what a measurement needs, with no work on the
//! path between the process and the clock.

use std::{
    convert::Infallible,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Instant,
};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use tokio::{
    net::TcpListener,
    sync::{Mutex, mpsc},
};

/// What the process did, and when.
#[derive(Debug)]
pub enum Mark {
    /// It asked for an event (the first time: init is over).
    Next(Instant),
    /// It took the event it asked for.
    Handed(Instant),
    Response(Instant, Bytes),
    Error(String),
    InitError(String),
}

pub struct RuntimeApi {
    pub address: String,
    events: mpsc::Sender<Bytes>,
    marks: mpsc::UnboundedReceiver<Mark>,
    server: tokio::task::JoinHandle<()>,
}

/// The trace header of every invocation, as Lambda passes it: not sampled (the usual case with
/// `PassThrough`, or an unsampled `Active` invocation), or sampled under one trace.
pub const NOT_SAMPLED: &str = "Root=1-00000000-000000000000000000000000;Sampled=0";
pub const SAMPLED: &str =
    "Root=1-5f84c7a6-0123456789abcdef01234567;Parent=89abcdef01234567;Sampled=1;Lineage=bench:0";

struct Shared {
    trace: &'static str,
    events: Mutex<mpsc::Receiver<Bytes>>,
    marks: mpsc::UnboundedSender<Mark>,
    request_ids: AtomicU64,
}

impl RuntimeApi {
    pub async fn start(trace: &'static str) -> std::io::Result<RuntimeApi> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?.to_string();
        let (events, events_rx) = mpsc::channel(1);
        let (marks_tx, marks) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            trace,
            events: Mutex::new(events_rx),
            marks: marks_tx,
            request_ids: AtomicU64::new(0),
        });
        let server = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let shared = shared.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| handle(shared.clone(), req));
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(RuntimeApi {
            address,
            events,
            marks,
            server,
        })
    }

    /// The next thing the process did; `None` if it did nothing within `timeout`.
    pub async fn mark(&mut self, timeout: std::time::Duration) -> Option<Mark> {
        tokio::time::timeout(timeout, self.marks.recv())
            .await
            .ok()
            .flatten()
    }

    /// Offers an event; the process takes it with its next (or pending) `GET /next`.
    pub async fn offer(&self, event: Bytes) {
        let _ = self.events.send(event).await;
    }

    /// One invocation: offers `event`, then waits up to `timeout` for each thing the process
    /// does; returns when it took the event, when its response came, and the response.
    pub async fn invoke(
        &mut self,
        event: Bytes,
        timeout: std::time::Duration,
    ) -> Result<(Instant, Instant, Bytes), String> {
        self.offer(event).await;
        let mut handed = Instant::now();
        loop {
            match self.mark(timeout).await {
                Some(Mark::Next(_)) => continue,
                Some(Mark::Handed(at)) => handed = at,
                Some(Mark::Response(at, bytes)) => return Ok((handed, at, bytes)),
                Some(Mark::Error(e)) => return Err(format!("the function failed: {e}")),
                Some(Mark::InitError(e)) => return Err(format!("init failed: {e}")),
                None => return Err(format!("no response within {timeout:?}")),
            }
        }
    }
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn handle(
    shared: Arc<Shared>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_owned();
    let route = path.strip_prefix("/2018-06-01/runtime/").unwrap_or("");
    if req.method() == Method::GET && route == "invocation/next" {
        let _ = shared.marks.send(Mark::Next(Instant::now()));
        let Some(event) = shared.events.lock().await.recv().await else {
            return Ok(reply(StatusCode::GONE, Bytes::new(), None));
        };
        let _ = shared.marks.send(Mark::Handed(Instant::now()));
        let id = shared.request_ids.fetch_add(1, Ordering::Relaxed);
        return Ok(reply(StatusCode::OK, event, Some((id, shared.trace))));
    }
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let now = Instant::now();
    let mark = if route == "init/error" {
        Mark::InitError(String::from_utf8_lossy(&body).into_owned())
    } else if route.ends_with("/response") {
        Mark::Response(now, body)
    } else if route.ends_with("/error") {
        Mark::Error(String::from_utf8_lossy(&body).into_owned())
    } else {
        return Ok(reply(StatusCode::NOT_FOUND, Bytes::new(), None));
    };
    let _ = shared.marks.send(mark);
    Ok(reply(StatusCode::ACCEPTED, Bytes::new(), None))
}

/// A reply; an event's carries its request id and trace header.
fn reply(
    status: StatusCode,
    body: Bytes,
    invocation: Option<(u64, &str)>,
) -> Response<Full<Bytes>> {
    let mut response = Response::builder()
        .status(status)
        .header("content-type", "application/json");
    if let Some((id, trace)) = invocation {
        // A deadline far away: the benchmark never times a call out.
        let deadline_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis()
            + 900_000;
        response = response
            .header("lambda-runtime-aws-request-id", format!("bench-{id:08}"))
            .header("lambda-runtime-deadline-ms", deadline_ms.to_string())
            .header(
                "lambda-runtime-invoked-function-arn",
                "arn:aws:lambda:us-east-1:123456789012:function:bench",
            )
            .header("lambda-runtime-trace-id", trace);
    }
    response
        .body(Full::new(body))
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new())))
}
