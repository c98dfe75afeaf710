//! The HTTP side: an API Gateway HTTP API in front of the stack's functions.

use std::{
    convert::Infallible,
    future::Future,
    net::SocketAddr,
    pin::Pin,
    sync::Arc,
    time::{Duration, Instant},
};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use serde_json::json;
use time::OffsetDateTime;
use tokio::net::TcpListener;

use super::{
    jwt::{Authorizer, Refused},
    payload::{self, RequestInfo},
    routes::Router,
};
use crate::{
    account,
    lambda::{InvokeError, Stack},
    streams::StreamsHandle,
};

/// API Gateway's limit on a request body.
pub const MAX_BODY_BYTES: u64 = 10 * 1024 * 1024;
/// The stream mappings' status (see [`StreamsHandle::status`]): a local-only path, answered
/// before routing, that none of the template's routes uses.
pub const STREAMS_STATUS_PATH: &str = "/_local/streams";

pub struct Gateway {
    router: Router,
    stack: Arc<Stack>,
    streams: Option<StreamsHandle>,
    auth: Option<RouteAuth>,
    site: Option<Box<dyn LocalSite>>,
}

/// The API's JWT authorizer and the scopes its routes require (template: `Auth` of the HttpApi).
pub struct RouteAuth {
    pub authorizer: Authorizer,
    pub scopes: Vec<String>,
}

/// A local-only site the gateway serves ahead of the API's routes: the item-collection explorer.
pub trait LocalSite: Send + Sync {
    /// The answer to a request for one of the site's paths; `None` for any other path.
    fn answer<'a>(
        &'a self,
        method: &'a Method,
        path: &'a str,
        query: Option<&'a str>,
        headers: &'a HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Option<Response<Bytes>>> + Send + 'a>>;
}

impl Gateway {
    pub fn new(router: Router, stack: Arc<Stack>) -> Arc<Gateway> {
        Gateway::with_streams(router, stack, None)
    }

    /// A gateway that also answers `GET /_local/streams` with `streams`' status (or, without
    /// streams, `{"drained": true}`).
    pub fn with_streams(
        router: Router,
        stack: Arc<Stack>,
        streams: Option<StreamsHandle>,
    ) -> Arc<Gateway> {
        Arc::new(Gateway {
            router,
            stack,
            streams,
            auth: None,
            site: None,
        })
    }

    /// A gateway whose routes, except the public ones, need a token `auth` accepts (when there
    /// is one), and that also serves `explorer`, the item-collection explorer, ahead of them.
    pub fn with_explorer(
        router: Router,
        stack: Arc<Stack>,
        streams: Option<StreamsHandle>,
        auth: Option<RouteAuth>,
        explorer: Option<impl LocalSite + 'static>,
    ) -> Arc<Gateway> {
        Arc::new(Gateway {
            router,
            stack,
            streams,
            auth,
            site: explorer.map(|e| Box::new(e) as Box<dyn LocalSite>),
        })
    }

    /// Whether routes need a token.
    pub fn signs_in(&self) -> bool {
        self.auth.is_some()
    }

    pub fn router(&self) -> &Router {
        &self.router
    }

    /// Serves HTTP/1.1 on `listener` until the future is dropped.
    pub async fn serve(self: Arc<Self>, listener: TcpListener) {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    eprintln!("gateway: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let local = stream.local_addr().unwrap_or(peer);
            let gateway = self.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let gateway = gateway.clone();
                    async move { Ok::<_, Infallible>(gateway.handle(req, peer, local).await) }
                });
                // Errors here are clients hanging up mid-request: nothing to report.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    }

    async fn handle(
        &self,
        req: Request<Incoming>,
        peer: SocketAddr,
        local: SocketAddr,
    ) -> Response<Full<Bytes>> {
        // Not logged: tests poll it.
        if req.method() == http::Method::GET && req.uri().path() == STREAMS_STATUS_PATH {
            let status = match &self.streams {
                Some(streams) => streams.status().await,
                None => json!({ "drained": true }),
            };
            return payload::json_response(StatusCode::OK, &status).map(Full::new);
        }
        if let Some(site) = &self.site {
            let (method, uri) = (req.method().clone(), req.uri().clone());
            if let Some(response) = site
                .answer(&method, uri.path(), uri.query(), req.headers())
                .await
            {
                return response.map(Full::new);
            }
        }
        let started = Instant::now();
        let now = OffsetDateTime::now_utc();
        let info = RequestInfo {
            source_ip: peer.ip(),
            port: local.port(),
            request_id: account::apigw_request_id(),
            trace_id: account::trace_id(now.unix_timestamp() as u64),
            time: now,
        };
        let line = format!("{} {}", req.method(), req.uri());
        let (response, function) = self.respond(req, &info).await;
        eprintln!(
            "{line} -> {} {} ({} ms)",
            function.unwrap_or("(no route)"),
            response.status().as_u16(),
            started.elapsed().as_millis()
        );
        let (mut parts, body) = response.into_parts();
        if let Ok(id) = HeaderValue::from_str(&info.request_id) {
            parts.headers.insert("apigw-requestid", id);
        }
        Response::from_parts(parts, Full::new(body))
    }

    /// The response, and the function that made it (if the request got that far).
    async fn respond(
        &self,
        req: Request<Incoming>,
        info: &RequestInfo,
    ) -> (Response<Bytes>, Option<&str>) {
        let (parts, body) = req.into_parts();
        let Some(route) = self.router.find(parts.method.as_str(), parts.uri.path()) else {
            // What API Gateway answers for a path and method no route matches.
            return (
                payload::error_response(StatusCode::NOT_FOUND, "Not Found"),
                None,
            );
        };
        let function = Some(route.route.function.as_str());

        // The authorizer runs before the body is read and the function is invoked.
        let authorizer = match (&self.auth, route.route.public) {
            (Some(auth), false) => {
                let token = parts
                    .headers
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok());
                let now = info.time.unix_timestamp();
                match auth.authorizer.check(token, &auth.scopes, now) {
                    Ok(accepted) => Some(accepted),
                    Err(refused) => return (unauthorized(&refused, &auth.scopes), function),
                }
            }
            _ => None,
        };

        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
            return (too_large(), function);
        }
        let body = match Limited::new(body, MAX_BODY_BYTES as usize).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.is::<LengthLimitError>() => return (too_large(), function),
            Err(_) => {
                let response = payload::error_response(StatusCode::BAD_REQUEST, "Bad Request");
                return (response, function);
            }
        };

        let mut event = payload::build_event(&parts, &body, &route, info);
        if let Some(accepted) = authorizer {
            event["requestContext"]["authorizer"] = json!({
                "jwt": { "claims": accepted.claims, "scopes": accepted.scopes }
            });
        }
        let response = match self.stack.invoke(&route.route.function, &event).await {
            Ok(value) => payload::http_response(value).unwrap_or_else(|e| {
                eprintln!("[{}] malformed response: {e}", route.route.function);
                internal_error()
            }),
            Err(e) => {
                eprintln!("[{}] invocation failed: {e}", route.route.function);
                error_response(&e)
            }
        };
        (response, function)
    }
}

/// What an HTTP API answers when the invocation fails: Lambda reports a function that timed
/// out, exited mid-invocation (`Runtime.ExitError`) or returned an error as a function error,
/// which an HTTP API answers 500 `{"message":"Internal Server Error"}`, with no `Retry-After`.
/// (Its 503 `Service Unavailable` is the integration's own 30 s timeout, which no function of
/// this template reaches: theirs is 10 s.) The functions answer a DynamoDB that does not answer
/// themselves, before their timeout (`store::deadline`), so this 500 means a process that died
/// or a bug, never a DynamoDB outage.
fn error_response(e: &InvokeError) -> Response<Bytes> {
    match e {
        // Lambda refuses the invocation; API Gateway passes that on as 413.
        InvokeError::EventTooLarge(_) => too_large(),
        _ => internal_error(),
    }
}

/// API Gateway's answer to a refused token: 401, `{"message":"Unauthorized"}`, and the reason in
/// `www-authenticate`.
fn unauthorized(refused: &Refused, scopes: &[String]) -> Response<Bytes> {
    let mut response = payload::error_response(StatusCode::UNAUTHORIZED, "Unauthorized");
    let challenge = format!(
        "Bearer scope=\"{}\" error=\"invalid_token\" error_description=\"{refused}\"",
        scopes.join(" ")
    );
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

fn internal_error() -> Response<Bytes> {
    payload::error_response(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error")
}

fn too_large() -> Response<Bytes> {
    payload::error_response(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_that_timed_out_or_died_is_the_http_apis_500() {
        for failed in [
            InvokeError::Timeout(Duration::from_secs(10)),
            InvokeError::Died("was killed".into()),
            InvokeError::Function {
                error_type: "Runtime.ExitError".into(),
                error_message: "exited".into(),
            },
        ] {
            let answer = error_response(&failed);
            assert_eq!(
                answer.status(),
                StatusCode::INTERNAL_SERVER_ERROR,
                "{failed}"
            );
            assert_eq!(
                answer.body().as_ref(),
                br#"{"message":"Internal Server Error"}"#,
                "{failed}"
            );
            assert!(!answer.headers().contains_key(header::RETRY_AFTER));
        }
        let refused = error_response(&InvokeError::EventTooLarge(7_000_000));
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }
}
