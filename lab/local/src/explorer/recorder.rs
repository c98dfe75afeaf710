//! A recording proxy between the functions and DynamoDB Local, for the explorer: every function
//! reaches DynamoDB through it (its `AWS_ENDPOINT_URL_DYNAMODB`), signed with an access key id
//! that names it ([`key_id`]: DynamoDB Local runs with `-sharedDb`, so the key id selects
//! nothing), and it keeps the last requests with their answers: what an access pattern sent, what
//! it read, what DynamoDB reported it consumed.
//!
//! The proxy forwards bytes as they are, headers included (DynamoDB Local does not check the
//! signature's host), and never changes an answer.

use std::{
    collections::VecDeque,
    convert::Infallible,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Instant,
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{
    Request, Response, StatusCode, body::Incoming, server::conn::http1, service::service_fn,
};
use hyper_util::{
    client::legacy::{Client, connect::HttpConnector},
    rt::{TokioExecutor, TokioIo},
};
use serde::Serialize;
use serde_json::Value;
use tokio::net::TcpListener;

/// The access key id of a function is this prefix and its name in hex: DynamoDB Local accepts
/// key ids of letters and digits only.
const KEY_PREFIX: &str = "local";

/// The access key id that names `function` to the recorder.
pub fn key_id(function: &str) -> String {
    let hex: String = function.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{KEY_PREFIX}{hex}")
}

/// Exchanges kept: the explorer reads the newest; a warm stack must not grow without end.
const KEPT: usize = 1_000;

/// A body longer than this is kept as its first bytes only (a 1 MB Query page, a scan).
const KEPT_BODY_BYTES: usize = 256 * 1024;

/// One request to DynamoDB and its answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    /// Increasing from 1, in the order the requests arrived.
    pub seq: u64,
    /// The function that sent it, from its access key id (`None`: another client).
    pub function: Option<String>,
    /// `Query`, `TransactWriteItems`...
    pub operation: String,
    pub request: Value,
    pub status: u16,
    pub response: Value,
    pub ms: f64,
}

/// The kept exchanges.
#[derive(Debug, Default)]
pub struct Recorder {
    kept: Mutex<(u64, VecDeque<Exchange>)>,
}

impl Recorder {
    /// The sequence number the next exchange will get.
    pub fn next_seq(&self) -> u64 {
        self.kept.lock().expect("recorder lock").0 + 1
    }

    /// The kept exchanges from `seq` on, of `function` only if given.
    pub fn since(&self, seq: u64, function: Option<&str>) -> Vec<Exchange> {
        let kept = self.kept.lock().expect("recorder lock");
        kept.1
            .iter()
            .filter(|e| e.seq >= seq)
            .filter(|e| function.is_none_or(|f| e.function.as_deref() == Some(f)))
            .cloned()
            .collect()
    }

    fn push(&self, mut exchange: Exchange) {
        let mut kept = self.kept.lock().expect("recorder lock");
        kept.0 += 1;
        exchange.seq = kept.0;
        if kept.1.len() == KEPT {
            kept.1.pop_front();
        }
        kept.1.push_back(exchange);
    }
}

/// The function an `Authorization` header's credential names ([`key_id`]).
pub fn function_of(authorization: &str) -> Option<String> {
    let credential = authorization.split("Credential=").nth(1)?;
    let hex = credential.split('/').next()?.strip_prefix(KEY_PREFIX)?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// A body as JSON when it is, else as text (cut to [`KEPT_BODY_BYTES`]).
fn body_value(bytes: &[u8]) -> Value {
    if bytes.len() > KEPT_BODY_BYTES {
        let head = String::from_utf8_lossy(&bytes[..KEPT_BODY_BYTES]);
        return Value::String(format!("{head}… ({} bytes in all)", bytes.len()));
    }
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// Starts the proxy in front of `upstream` (`http://127.0.0.1:8000`); returns its URL and the
/// recorder.
pub async fn start(upstream: &str) -> std::io::Result<(String, Arc<Recorder>)> {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let url = format!("http://{}", listener.local_addr()?);
    let recorder = Arc::new(Recorder::default());
    let upstream: Arc<str> = upstream.trim_end_matches('/').into();
    let client: Client<HttpConnector, Full<Bytes>> =
        Client::builder(TokioExecutor::new()).build_http();
    let kept = recorder.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let (client, recorder, upstream) = (client.clone(), kept.clone(), upstream.clone());
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let (client, recorder, upstream) =
                        (client.clone(), recorder.clone(), upstream.clone());
                    async move { Ok::<_, Infallible>(forward(&client, &upstream, &recorder, req).await) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok((url, recorder))
}

async fn forward(
    client: &Client<HttpConnector, Full<Bytes>>,
    upstream: &str,
    recorder: &Recorder,
    req: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let Ok(body) = body.collect().await.map(|b| b.to_bytes()) else {
        return bad_gateway("the request body could not be read");
    };
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let function = header("authorization").and_then(function_of);
    let operation = header("x-amz-target")
        .and_then(|t| t.rsplit('.').next())
        .unwrap_or("?")
        .to_owned();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut out = Request::builder()
        .method(parts.method.clone())
        .uri(format!("{upstream}{path}"));
    for (name, value) in &parts.headers {
        out = out.header(name, value);
    }
    let Ok(out) = out.body(Full::new(body.clone())) else {
        return bad_gateway("the request could not be forwarded");
    };
    let response = match client.request(out).await {
        Ok(response) => response,
        Err(e) => return bad_gateway(&format!("DynamoDB Local: {e}")),
    };
    let (parts, answer) = response.into_parts();
    let Ok(answer) = answer.collect().await.map(|b| b.to_bytes()) else {
        return bad_gateway("DynamoDB Local's answer could not be read");
    };
    recorder.push(Exchange {
        seq: 0,
        function,
        operation,
        request: body_value(&body),
        status: parts.status.as_u16(),
        response: body_value(&answer),
        ms: started.elapsed().as_secs_f64() * 1000.0,
    });
    Response::from_parts(parts, Full::new(answer))
}

fn bad_gateway(why: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(why.to_owned())));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_function_is_the_credential_of_the_signature() {
        let id = key_id("get-customer");
        assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
        let auth = format!(
            "AWS4-HMAC-SHA256 Credential={id}/20261123/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=ab"
        );
        assert_eq!(function_of(&auth).as_deref(), Some("get-customer"));
        assert_eq!(function_of("AWS4-HMAC-SHA256 Credential=AKIA/x"), None);
        assert_eq!(function_of("Credential=localzz/x"), None);
        assert_eq!(function_of("garbage"), None);
    }

    #[test]
    fn the_recorder_keeps_the_newest_and_filters_by_function() {
        let r = Recorder::default();
        let exchange = |f: &str| Exchange {
            seq: 0,
            function: Some(f.into()),
            operation: "Query".into(),
            request: Value::Null,
            status: 200,
            response: Value::Null,
            ms: 1.0,
        };
        assert_eq!(r.next_seq(), 1);
        for i in 0..KEPT + 5 {
            r.push(exchange(if i % 2 == 0 { "a" } else { "b" }));
        }
        assert_eq!(r.next_seq(), KEPT as u64 + 6);
        let all = r.since(0, None);
        assert_eq!(all.len(), KEPT, "bounded");
        assert_eq!(all.first().unwrap().seq, 6, "the oldest went first");
        let newest_a = r.since(KEPT as u64, Some("a"));
        assert!(newest_a.iter().all(|e| e.function.as_deref() == Some("a")));
        assert_eq!(newest_a.len(), 3);
    }

    #[test]
    fn a_long_body_is_kept_as_its_head() {
        let long = vec![b'x'; KEPT_BODY_BYTES + 10];
        let kept = body_value(&long);
        assert!(
            kept.as_str()
                .unwrap()
                .ends_with(&format!("({} bytes in all)", long.len()))
        );
        assert_eq!(body_value(br#"{"a":1}"#), serde_json::json!({"a": 1}));
    }
}
