//! The Lambda Runtime API, emulated for one function instance: the `/2018-06-01/runtime/...`
//! endpoints a `lambda_runtime` program polls. Every instance (process) gets its own server on
//! an ephemeral port, so whatever arrives on a port comes from that one process.
//! <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html>

use std::{
    convert::Infallible,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::{
    net::TcpListener,
    sync::{mpsc, oneshot, watch},
};

use crate::sync::lock;

/// Lambda's limit on a synchronous invocation's event (and response).
pub const MAX_EVENT_BYTES: usize = 6 * 1024 * 1024;

/// One event for the process, and where its outcome goes.
pub(crate) struct Invocation {
    pub request_id: String,
    pub event: Bytes,
    pub trace_id: String,
    pub timeout: Duration,
    /// Told when the process takes the event: the function's timeout runs from then.
    pub started: oneshot::Sender<()>,
    pub reply: oneshot::Sender<Outcome>,
}

#[derive(Debug)]
pub(crate) enum Outcome {
    /// The JSON the function returned.
    Response(Bytes),
    Error {
        error_type: String,
        error_message: String,
    },
}

pub(crate) struct RuntimeApi {
    /// `function` or `function#N`, for log lines.
    label: String,
    arn: String,
    queue: tokio::sync::Mutex<mpsc::Receiver<Invocation>>,
    /// The invocation the process is working on: its request id and reply channel.
    current: Mutex<Option<(String, oneshot::Sender<Outcome>)>>,
    /// What the process reported at `/runtime/init/error`: its error type and message.
    init_error: Mutex<Option<(String, String)>>,
}

impl RuntimeApi {
    pub fn new(label: String, arn: String, queue: mpsc::Receiver<Invocation>) -> RuntimeApi {
        RuntimeApi {
            label,
            arn,
            queue: tokio::sync::Mutex::new(queue),
            current: Mutex::new(None),
            init_error: Mutex::new(None),
        }
    }

    /// The start-up failure the process reported, if it did.
    pub fn init_error(&self) -> Option<(String, String)> {
        lock(&self.init_error).clone()
    }

    /// `GET /runtime/invocation/next`: a long poll until the pool hands this instance an event.
    async fn next(&self) -> Response<Full<Bytes>> {
        // `recv` is cancel-safe: if the process hangs up while waiting, no event is lost.
        let Some(invocation) = self.queue.lock().await.recv().await else {
            return error(
                StatusCode::GONE,
                "InstanceRetired",
                "this instance is retired",
            );
        };
        let deadline = SystemTime::now() + invocation.timeout;
        let deadline_ms = deadline
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let _ = invocation.started.send(());
        *lock(&self.current) = Some((invocation.request_id.clone(), invocation.reply));
        Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .header("Lambda-Runtime-Aws-Request-Id", &invocation.request_id)
            .header("Lambda-Runtime-Deadline-Ms", deadline_ms.to_string())
            .header("Lambda-Runtime-Invoked-Function-Arn", &self.arn)
            .header("Lambda-Runtime-Trace-Id", &invocation.trace_id)
            .body(Full::new(invocation.event))
            .unwrap_or_else(|_| error(StatusCode::INTERNAL_SERVER_ERROR, "Internal", "bad header"))
    }

    /// `POST /runtime/invocation/{id}/response` and `.../error`.
    fn complete(&self, request_id: &str, outcome: Outcome) -> Response<Full<Bytes>> {
        let taken = {
            let mut current = lock(&self.current);
            match &*current {
                Some((id, _)) if id == request_id => current.take(),
                _ => None,
            }
        };
        match taken {
            Some((_, reply)) => {
                // The invoker may have given up (timeout): the outcome then goes nowhere.
                let _ = reply.send(outcome);
                accepted()
            }
            None => error(
                StatusCode::BAD_REQUEST,
                "InvalidRequestID",
                &format!("no invocation {request_id} in progress"),
            ),
        }
    }
}

/// Serves `api` on `listener` until `stop` holds a value (the process has exited).
pub(crate) async fn serve(
    listener: TcpListener,
    api: Arc<RuntimeApi>,
    mut stop: watch::Receiver<Option<String>>,
) {
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    eprintln!("[{}] runtime API: accept failed: {e}", api.label);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stopped(&mut stop) => return,
        };
        let api = api.clone();
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(api.clone(), req));
            let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
            // A dead process cannot close its side cleanly every time: drop the connection
            // (and any `next` poll pending on it) when the instance is gone.
            tokio::select! {
                _ = connection => {}
                _ = stopped(&mut stop) => {}
            }
        });
    }
}

/// Resolves once the instance's process has exited.
async fn stopped(stop: &mut watch::Receiver<Option<String>>) {
    // The guard `wait_for` returns is not `Send`: drop it here, not in a `select!`.
    let _ = stop.wait_for(Option::is_some).await;
}

async fn handle(
    api: Arc<RuntimeApi>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_owned();
    let Some(route) = path.strip_prefix("/2018-06-01/runtime/") else {
        return Ok(not_found(&path));
    };
    if req.method() == Method::GET && route == "invocation/next" {
        return Ok(api.next().await);
    }
    if req.method() != Method::POST {
        return Ok(not_found(&path));
    }
    let streaming = req
        .headers()
        .get("lambda-runtime-function-response-mode")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"streaming"));
    let body = match read_body(req.into_body()).await {
        Ok(body) => body,
        Err(response) => return Ok(response),
    };

    if route == "init/error" {
        let (error_type, error_message) = diagnostic(&body);
        eprintln!("[{}] init error: {error_type}: {error_message}", api.label);
        // As Lambda does, the invocation that started the instance fails with it.
        *lock(&api.init_error) = Some((error_type, error_message));
        return Ok(accepted());
    }
    let Some(rest) = route.strip_prefix("invocation/") else {
        return Ok(not_found(&path));
    };
    Ok(if let Some(id) = rest.strip_suffix("/response") {
        let outcome = if streaming {
            streamed_response(&body)
        } else if body.len() > MAX_EVENT_BYTES {
            Outcome::Error {
                error_type: "Function.ResponseSizeTooLarge".into(),
                error_message: format!(
                    "response payload size ({} bytes) exceeded the maximum allowed ({MAX_EVENT_BYTES} bytes)",
                    body.len()
                ),
            }
        } else {
            Outcome::Response(body)
        };
        api.complete(id, outcome)
    } else if let Some(id) = rest.strip_suffix("/error") {
        // Not logged here: the invoker reports the failure, with its context.
        let (error_type, error_message) = diagnostic(&body);
        api.complete(
            id,
            Outcome::Error {
                error_type,
                error_message,
            },
        )
    } else {
        not_found(&path)
    })
}

async fn read_body(body: Incoming) -> Result<Bytes, Response<Full<Bytes>>> {
    // Twice Lambda's limit: enough to read a too-large response and report it as such.
    match Limited::new(body, 2 * MAX_EVENT_BYTES).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) => Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "RequestEntityTooLarge",
            &e.to_string(),
        )),
    }
}

/// `errorType` and `errorMessage` of a Lambda diagnostic body, whatever shape it came in.
fn diagnostic(body: &[u8]) -> (String, String) {
    let value: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let field = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
    (
        field("errorType").unwrap_or_else(|| "Unknown".into()),
        field("errorMessage").unwrap_or_else(|| String::from_utf8_lossy(body).into_owned()),
    )
}

/// A streamed HTTP response (`lambda_http::run_with_streaming_response`): a JSON prelude
/// (status, headers, cookies), eight NUL bytes, then the body. Turned into the equivalent
/// buffered v2 response object so callers see one shape.
fn streamed_response(body: &[u8]) -> Outcome {
    const SEPARATOR: &[u8] = &[0; 8];
    let Some(at) = body.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) else {
        // Not an HTTP integration stream: the bytes are the whole payload.
        return Outcome::Response(Bytes::copy_from_slice(body));
    };
    let prelude: Value = serde_json::from_slice(&body[..at]).unwrap_or_else(|_| json!({}));
    use base64::Engine;
    let response = json!({
        "statusCode": prelude.get("statusCode").cloned().unwrap_or(json!(200)),
        "headers": prelude.get("headers").cloned().unwrap_or(json!({})),
        "cookies": prelude.get("cookies").cloned().unwrap_or(json!([])),
        "body": base64::engine::general_purpose::STANDARD.encode(&body[at + SEPARATOR.len()..]),
        "isBase64Encoded": true,
    });
    Outcome::Response(Bytes::from(response.to_string()))
}

fn accepted() -> Response<Full<Bytes>> {
    json_response(StatusCode::ACCEPTED, &json!({ "status": "OK" }))
}

fn error(status: StatusCode, error_type: &str, message: &str) -> Response<Full<Bytes>> {
    json_response(
        status,
        &json!({ "errorType": error_type, "errorMessage": message }),
    )
}

fn not_found(path: &str) -> Response<Full<Bytes>> {
    error(
        StatusCode::NOT_FOUND,
        "NotFound",
        &format!("no runtime API endpoint {path}"),
    )
}

fn json_response(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_read_leniently() {
        assert_eq!(
            diagnostic(br#"{"errorType":"E","errorMessage":"boom"}"#),
            ("E".into(), "boom".into())
        );
        assert_eq!(diagnostic(b"plain"), ("Unknown".into(), "plain".into()));
    }

    #[test]
    fn streamed_http_responses_become_response_objects() {
        let mut body = br#"{"statusCode":201,"headers":{"a":"b"},"cookies":[]}"#.to_vec();
        body.extend([0; 8]);
        body.extend(b"hello");
        let Outcome::Response(json) = streamed_response(&body) else {
            panic!("not a response")
        };
        let response =
            crate::apigw::payload::http_response(serde_json::from_slice(&json).unwrap()).unwrap();
        assert_eq!(response.status(), 201);
        assert_eq!(response.headers()["a"], "b");
        assert_eq!(response.body(), "hello");
    }
}
