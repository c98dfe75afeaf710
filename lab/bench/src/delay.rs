//! DynamoDB's latency in front of DynamoDB Local. On this machine DynamoDB Local answers a
//! request in well under a millisecond; DynamoDB, seen from a Lambda function in its region,
//! answers in a few. A design that sends one request after another looks free locally and is
//! not. This proxy holds each request for the time DynamoDB would take before it forwards it,
//! each request on its own (requests sent concurrently wait concurrently, as on DynamoDB), and
//! counts what went through: requests per operation, and the capacity units DynamoDB Local
//! reported for them.

use std::{
    collections::BTreeMap,
    convert::Infallible,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::{
    client::legacy::{Client, connect::HttpConnector},
    rt::{TokioExecutor, TokioIo},
};
use tokio::net::TcpListener;

/// How long DynamoDB takes to answer, by kind of request.
#[derive(Debug, Clone, Copy)]
pub struct Latency {
    /// A request on items (GetItem, PutItem, UpdateItem, Query, a batch).
    pub request: Duration,
    /// A transaction (TransactWriteItems, TransactGetItems): two rounds, prepare and commit.
    pub transaction: Duration,
}

impl Latency {
    fn of(&self, operation: &str) -> Duration {
        if operation.starts_with("Transact") {
            self.transaction
        } else {
            self.request
        }
    }
}

/// What went through the proxy.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Requests per operation (`PutItem`, `TransactWriteItems`...).
    pub requests: BTreeMap<String, u64>,
    /// Capacity units DynamoDB Local reported for reads and for writes (the requests ask for
    /// them: `store` always sends `ReturnConsumedCapacity`).
    pub read_units: f64,
    pub write_units: f64,
    /// Each request as it went through: the latency it was given, when it came in and when its
    /// answer went out.
    pub log: Vec<(Duration, Instant, Instant)>,
}

impl Counts {
    /// Adds another count (its log too).
    pub fn add(&mut self, other: Counts) {
        for (operation, n) in other.requests {
            *self.requests.entry(operation).or_default() += n;
        }
        self.read_units += other.read_units;
        self.write_units += other.write_units;
        self.log.extend(other.log);
    }

    pub fn total_requests(&self) -> u64 {
        self.requests.values().sum()
    }

    /// The longest chain of requests of the log in which each one was sent after the one before
    /// it was answered, weighted by their latencies: the time DynamoDB's latency adds to the
    /// work the log covers, however many requests went alongside. An engine that answers
    /// everything within its latency (DynamoDB) takes no longer.
    pub fn critical_path(&self) -> Duration {
        let mut requests = self.log.clone();
        requests.sort_by_key(|(_, _, end)| *end);
        let mut longest: Vec<Duration> = Vec::with_capacity(requests.len());
        for (j, (latency, start, _)) in requests.iter().enumerate() {
            let before = requests[..j]
                .iter()
                .zip(&longest)
                .filter(|((_, _, end), _)| end <= start)
                .map(|(_, l)| *l)
                .max()
                .unwrap_or_default();
            longest.push(before + *latency);
        }
        longest.into_iter().max().unwrap_or_default()
    }
}

pub struct Delay {
    pub endpoint: String,
    counts: Arc<Mutex<Counts>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Delay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Delay {
    /// Serves on an ephemeral port of 127.0.0.1, forwarding to `upstream` (plain HTTP).
    pub async fn start(upstream: SocketAddr, latency: Latency) -> std::io::Result<Delay> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        let counts = Arc::new(Mutex::new(Counts::default()));
        let client: Client<HttpConnector, Full<Bytes>> =
            Client::builder(TokioExecutor::new()).build_http();
        let shared = counts.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let _ = stream.set_nodelay(true);
                let (client, counts) = (client.clone(), shared.clone());
                tokio::spawn(async move {
                    let service = service_fn(move |req| {
                        forward(client.clone(), counts.clone(), upstream, latency, req)
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Delay {
            endpoint,
            counts,
            task,
        })
    }

    /// What went through since the last call, and starts counting again.
    pub fn take(&self) -> Counts {
        std::mem::take(&mut *self.counts.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

async fn forward(
    client: Client<HttpConnector, Full<Bytes>>,
    counts: Arc<Mutex<Counts>>,
    upstream: SocketAddr,
    latency: Latency,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let operation = req
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit('.').next())
        .unwrap_or("")
        .to_owned();
    let came = Instant::now();
    let (mut parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    parts.uri = match format!("http://{upstream}{path}").parse() {
        Ok(uri) => uri,
        Err(_) => return Ok(error(StatusCode::BAD_REQUEST)),
    };
    tokio::time::sleep(latency.of(&operation)).await;
    let answer = match client
        .request(Request::from_parts(parts, Full::new(body)))
        .await
    {
        Ok(answer) => answer,
        Err(_) => return Ok(error(StatusCode::BAD_GATEWAY)),
    };
    let (parts, body) = answer.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let units = consumed_units(&body);
    {
        let mut counts = counts.lock().unwrap_or_else(|e| e.into_inner());
        *counts.requests.entry(operation.clone()).or_default() += 1;
        counts
            .log
            .push((latency.of(&operation), came, Instant::now()));
        if is_write(&operation) {
            counts.write_units += units;
        } else {
            counts.read_units += units;
        }
    }
    Ok(Response::from_parts(parts, Full::new(body)))
}

fn error(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

fn is_write(operation: &str) -> bool {
    matches!(
        operation,
        "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems"
    )
}

/// The `CapacityUnits` of a response's `ConsumedCapacity` (one object, or one per table).
fn consumed_units(body: &[u8]) -> f64 {
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(body) else {
        return 0.0;
    };
    let units = |c: &serde_json::Value| c["CapacityUnits"].as_f64().unwrap_or(0.0);
    match &answer["ConsumedCapacity"] {
        serde_json::Value::Array(all) => all.iter().map(units).sum(),
        one @ serde_json::Value::Object(_) => units(one),
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_read_from_one_table_or_many() {
        assert_eq!(
            consumed_units(br#"{"ConsumedCapacity":{"TableName":"t","CapacityUnits":2.0}}"#),
            2.0
        );
        assert_eq!(
            consumed_units(
                br#"{"ConsumedCapacity":[{"CapacityUnits":1.5},{"CapacityUnits":4.0}]}"#
            ),
            5.5
        );
        assert_eq!(consumed_units(b"{}"), 0.0);
        // Two requests side by side, then one after both: two latencies, not three.
        let t = Instant::now();
        let ms = Duration::from_millis;
        let counts = Counts {
            log: vec![
                (ms(5), t, t + ms(6)),
                (ms(5), t + ms(1), t + ms(7)),
                (ms(10), t + ms(8), t + ms(19)),
            ],
            ..Counts::default()
        };
        assert_eq!(counts.critical_path(), ms(15));
        assert_eq!(
            Latency {
                request: Duration::from_millis(5),
                transaction: Duration::from_millis(10)
            }
            .of("TransactWriteItems"),
            Duration::from_millis(10)
        );
    }
}
