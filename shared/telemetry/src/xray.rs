//! X-Ray subsegments for the calls a function makes, sent to the X-Ray daemon Lambda runs beside
//! it when the function's tracing is `Active` (`Tracing` in `template.yaml`).
//!
//! Lambda traces each invocation itself (the `AWS::Lambda::Function` segment) and tells the
//! runtime its trace header (`Lambda-Runtime-Trace-Id`). The invocation loop ([`crate::runtime`])
//! makes it the current invocation's ([`enter`]) for the length of the invocation; it is never put
//! in `_X_AMZN_TRACE_ID`, where `lambda_runtime` puts it, because writing the environment once per
//! invocation leaks memory ([docs/memory.md](../../../docs/memory.md)). Every AWS call carries it
//! as its `X-Amzn-Trace-Id` ([`current_header`]), as the AWS SDK does when it finds it in the
//! environment. A call made under a *sampled* header becomes a subsegment of that segment: one
//! UDP datagram to `AWS_XRAY_DAEMON_ADDRESS`, sent after the call, never waited on. That is all
//! the X-Ray SDKs do in Lambda; they are in maintenance, and a subsegment is a small JSON document.
//! Under an unsampled header, or with no daemon, nothing is sent.

use std::net::UdpSocket;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

/// What Lambda's trace header says about the current invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceHeader {
    /// `1-<8 hex: epoch seconds>-<24 hex>`.
    pub root: String,
    /// The id of the segment a subsegment belongs to (the function's, in Lambda).
    pub parent: String,
    pub sampled: bool,
}

impl TraceHeader {
    /// `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1` (other fields,
    /// such as `Lineage`, are ignored). `None` without a root or a parent.
    pub fn parse(header: &str) -> Option<TraceHeader> {
        let (mut root, mut parent, mut sampled) = (None, None, false);
        for field in header.split(';') {
            match field.trim().split_once('=') {
                Some(("Root", v)) => root = Some(v),
                Some(("Parent", v)) => parent = Some(v),
                Some(("Sampled", v)) => sampled = v == "1",
                _ => {}
            }
        }
        // Ids go into a JSON document unescaped: only the characters X-Ray's ids are made of.
        let id = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
        match (root, parent) {
            (Some(r), Some(p)) if id(r) && id(p) => Some(TraceHeader {
                root: r.to_owned(),
                parent: p.to_owned(),
                sampled,
            }),
            _ => None,
        }
    }

    /// The current invocation's header, when Lambda sampled it for tracing.
    pub fn sampled_now() -> Option<TraceHeader> {
        current()
            .as_deref()
            .and_then(TraceHeader::parse)
            .filter(|h| h.sampled)
    }
}

/// The current invocation's trace header, as the Runtime API gave it; `None` between invocations.
static CURRENT: Mutex<Option<String>> = Mutex::new(None);

fn current() -> MutexGuard<'static, Option<String>> {
    CURRENT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes `header` (the invocation context's `xray_trace_id`) the current invocation's trace header
/// until the returned guard is dropped.
pub fn enter(header: Option<&str>) -> Entered {
    *current() = header.map(str::to_owned);
    Entered(())
}

/// The current invocation's trace header while it lives ([`enter`]).
#[must_use = "the header is the current one only while this lives"]
pub struct Entered(());

impl Drop for Entered {
    fn drop(&mut self) {
        *current() = None;
    }
}

/// The current invocation's trace header as Lambda gave it, sampled or not: what an AWS call made
/// for the invocation sends as its `X-Amzn-Trace-Id`.
pub fn current_header() -> Option<String> {
    current().clone()
}

/// One AWS call, as X-Ray shows it (a node in the trace map, a bar in the timeline).
#[derive(Debug, Clone)]
pub struct Subsegment<'a> {
    /// The service: `DynamoDB`.
    pub name: &'a str,
    /// The operation: `Query`, `TransactWriteItems`...
    pub operation: &'a str,
    pub table: &'a str,
    pub region: &'a str,
    pub request_id: Option<&'a str>,
    /// HTTP status of the response; `None` when none came (a timeout, a dropped connection).
    pub status: Option<u16>,
    /// Which attempt of the call this was (0 = the first).
    pub retries: u32,
    pub start: SystemTime,
    pub end: SystemTime,
}

impl Subsegment<'_> {
    /// The daemon's datagram: its header line, then the subsegment of `trace`.
    pub fn datagram(&self, trace: &TraceHeader, id: u64) -> String {
        let seconds = |t: SystemTime| {
            t.duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0)
        };
        let mut aws = serde_json::json!({
            "operation": self.operation,
            "region": self.region,
            "table_name": self.table,
            "retries": self.retries,
        });
        if let Some(request_id) = self.request_id {
            aws["request_id"] = request_id.into();
        }
        let mut doc = serde_json::json!({
            "name": self.name,
            "id": format!("{id:016x}"),
            "trace_id": trace.root,
            "parent_id": trace.parent,
            "type": "subsegment",
            "namespace": "aws",
            "start_time": seconds(self.start),
            "end_time": seconds(self.end),
            "aws": aws,
        });
        match self.status {
            Some(status) => {
                doc["http"] = serde_json::json!({ "response": { "status": status } });
                // X-Ray's classes: 429 a throttle, other 4xx an error, 5xx a fault.
                match status {
                    429 => (doc["error"], doc["throttle"]) = (true.into(), true.into()),
                    400..=499 => doc["error"] = true.into(),
                    500.. => doc["fault"] = true.into(),
                    _ => {}
                }
            }
            None => doc["fault"] = true.into(),
        }
        format!("{{\"format\":\"json\",\"version\":1}}\n{doc}")
    }
}

/// The daemon Lambda runs for a traced function, at `AWS_XRAY_DAEMON_ADDRESS` (`host:port`).
pub struct Daemon {
    socket: UdpSocket,
}

impl Daemon {
    /// The process's daemon connection, made on first use; `None` when the variable is not set or
    /// no socket can be made (tracing is then off: a call never fails because of it).
    pub fn get() -> Option<&'static Daemon> {
        static DAEMON: OnceLock<Option<Daemon>> = OnceLock::new();
        DAEMON
            .get_or_init(|| {
                let address = std::env::var("AWS_XRAY_DAEMON_ADDRESS").ok()?;
                Daemon::connect(&address).ok()
            })
            .as_ref()
    }

    pub fn connect(address: &str) -> std::io::Result<Daemon> {
        let socket = UdpSocket::bind("127.0.0.1:0")?;
        socket.connect(address)?;
        socket.set_nonblocking(true)?;
        Ok(Daemon { socket })
    }

    /// Sends one subsegment; a full buffer or an absent daemon loses it, never the call.
    pub fn send(&self, trace: &TraceHeader, subsegment: &Subsegment) {
        let _ = self
            .socket
            .send(subsegment.datagram(trace, new_id()).as_bytes());
    }
}

/// A 64-bit id, unique within the trace: X-Ray asks for uniqueness, not secrecy.
fn new_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const HEADER: &str = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1;Lineage=a87bd80c:0";

    #[test]
    fn a_lambda_trace_header_is_read_and_a_strange_one_refused() {
        let h = TraceHeader::parse(HEADER).unwrap();
        assert_eq!(h.root, "1-5759e988-bd862e3fe1be46a994272793");
        assert_eq!(h.parent, "53995c3f42cd8ad8");
        assert!(h.sampled);
        let unsampled = HEADER.replace("Sampled=1", "Sampled=0");
        assert!(!TraceHeader::parse(&unsampled).unwrap().sampled);
        assert_eq!(TraceHeader::parse("Root=1-5759e988-bd86;Sampled=1"), None);
        assert_eq!(
            TraceHeader::parse("Root=1-57\"};Parent=53995c3f42cd8ad8;Sampled=1"),
            None
        );
    }

    #[test]
    fn a_subsegment_reaches_the_daemon_as_an_aws_call_of_the_invocation() {
        let daemon_side = UdpSocket::bind("127.0.0.1:0").unwrap();
        daemon_side
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let daemon = Daemon::connect(&daemon_side.local_addr().unwrap().to_string()).unwrap();
        let start = UNIX_EPOCH + Duration::from_millis(1_795_000_000_123);
        let trace = TraceHeader::parse(HEADER).unwrap();
        daemon.send(
            &trace,
            &Subsegment {
                name: "DynamoDB",
                operation: "Query",
                table: "app-Table",
                region: "eu-west-1",
                request_id: Some("RID1"),
                status: Some(400),
                retries: 1,
                start,
                end: start + Duration::from_millis(7),
            },
        );
        let mut buf = [0u8; 2048];
        let n = daemon_side.recv(&mut buf).unwrap();
        let text = std::str::from_utf8(&buf[..n]).unwrap();
        let (header, body) = text.split_once('\n').unwrap();
        assert_eq!(header, r#"{"format":"json","version":1}"#);
        let doc: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(doc["trace_id"], "1-5759e988-bd862e3fe1be46a994272793");
        assert_eq!(doc["parent_id"], "53995c3f42cd8ad8");
        assert_eq!(doc["type"], "subsegment");
        assert_eq!(doc["namespace"], "aws");
        assert_eq!(doc["name"], "DynamoDB");
        assert_eq!(doc["aws"]["operation"], "Query");
        assert_eq!(doc["aws"]["table_name"], "app-Table");
        assert_eq!(doc["aws"]["request_id"], "RID1");
        assert_eq!(doc["aws"]["retries"], 1);
        assert_eq!(doc["http"]["response"]["status"], 400);
        assert_eq!(doc["error"], true);
        assert!(doc.get("fault").is_none());
        let id = doc["id"].as_str().unwrap();
        assert!(id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()));
        let took = doc["end_time"].as_f64().unwrap() - doc["start_time"].as_f64().unwrap();
        assert!((took - 0.007).abs() < 1e-6, "{took}");
    }

    #[test]
    fn no_response_is_a_fault_and_a_429_a_throttle() {
        let trace = TraceHeader::parse(HEADER).unwrap();
        let at = SystemTime::now();
        let call = |status| Subsegment {
            name: "DynamoDB",
            operation: "PutItem",
            table: "t",
            region: "r",
            request_id: None,
            status,
            retries: 0,
            start: at,
            end: at,
        };
        let doc = |s: &Subsegment| -> serde_json::Value {
            serde_json::from_str(s.datagram(&trace, 1).split_once('\n').unwrap().1).unwrap()
        };
        assert_eq!(doc(&call(None))["fault"], true);
        assert_eq!(doc(&call(Some(429)))["throttle"], true);
        assert_eq!(doc(&call(Some(503)))["fault"], true);
        assert!(doc(&call(Some(200))).get("error").is_none());
    }
}
