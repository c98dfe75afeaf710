//! The invocation loop every function runs ([`run`]): `lambda_runtime::Runtime::run`'s loop, on
//! the crate's own pieces, less one step that leaked memory.
//!
//! `lambda_runtime` 1.5 puts each invocation's trace header in the process environment
//! (`_X_AMZN_TRACE_ID`, `amzn_trace_env` in its `runtime.rs`) before calling the handler. Every
//! invocation has a header of its own, and glibc's `setenv` never frees the string it replaces,
//! so a warm instance grew by about 150 bytes per invocation, without end
//! ([docs/memory.md](../../../docs/memory.md)). Here the header goes from the invocation's
//! [`Context`] to [`xray::enter`], where the X-Ray subsegments and the trace header of the
//! function's AWS calls read it; the environment is never written after start-up.
//!
//! One invocation: `GET /runtime/invocation/next`; its `Context` (`Context::new`, as the runtime
//! makes it); the handler called inside the runtime's own span (`request_span`: the request id
//! in every log line); its answer posted to `/response`, or to `/error` as a [`Diagnostic`] when
//! the event does not decode, the handler fails or it panics; then the invocation's metrics
//! document ([`Documents`]). The Runtime API's answer to a post is logged when it is not a
//! success and the loop goes on, as the runtime's does.

use std::{fmt::Debug, panic::AssertUnwindSafe, sync::Arc};

use futures::FutureExt;
use http::{HeaderMap, Method, Request};
use http_body_util::BodyExt;
use lambda_runtime::{
    Config, Context, Diagnostic, Error, LambdaEvent, layers::trace::request_span, tower::Service,
};
use lambda_runtime_api_client::{PooledClient, body::Body, build_request};
use serde::{Serialize, de::DeserializeOwned};
use tracing::Instrument;

use crate::{Documents, Metric, xray};

const NEXT: &str = "/2018-06-01/runtime/invocation/next";
/// The Runtime API's id of an invocation, echoed on its answer so that a late answer to an
/// invocation that timed out is refused.
const INVOCATION_ID: &str = "lambda-runtime-invocation-id";

/// Answers, with `handler`, every invocation Lambda gives this process, one at a time, until the
/// Runtime API fails; `metrics` writes each one's document. Lambda's variables
/// (`AWS_LAMBDA_RUNTIME_API`, `AWS_LAMBDA_FUNCTION_NAME`...) are read once, as
/// `lambda_runtime::Runtime::new` reads them.
pub async fn run<S, E>(metrics: &'static Documents, mut handler: S) -> Result<(), Error>
where
    S: Service<LambdaEvent<E>>,
    S::Response: Serialize,
    S::Error: Into<Diagnostic> + Debug,
    E: DeserializeOwned,
{
    let config = Arc::new(Config::from_env());
    let client = PooledClient::builder().build();
    let mut cold = true;
    loop {
        let next = build_request()
            .method(Method::GET)
            .uri(NEXT)
            .body(Body::empty())?;
        let (parts, body) = client.call(next).await?.into_parts();
        let body = body.collect().await?.to_bytes();
        let request_id = header(&parts.headers, "lambda-runtime-aws-request-id")
            .ok_or("the Runtime API gave an event without a request id")?
            .to_owned();
        let context = Context::new(&request_id, config.clone(), &parts.headers)?;
        let span = request_span(&context);
        let invocation = async {
            if std::mem::take(&mut cold) {
                Metric::ColdStart.add(1.0);
            }
            let _trace = xray::enter(context.xray_trace_id.as_deref());
            let reply = match answer(&mut handler, &body, context).await {
                Ok(json) => post(&request_id, "response", None, json),
                Err(diagnostic) => post(
                    &request_id,
                    "error",
                    Some("unhandled"),
                    serde_json::to_vec(&diagnostic)?,
                ),
            };
            let mut reply = reply?;
            if let Some(id) = parts.headers.get(INVOCATION_ID) {
                reply.headers_mut().insert(INVOCATION_ID, id.clone());
            }
            let status = client.call(reply).await?.status();
            if !status.is_success() {
                tracing::error!(%status, "the Runtime API refused the invocation's answer");
            }
            metrics.write(&request_id);
            Ok::<_, Error>(())
        };
        invocation.instrument(span).await?;
    }
}

/// The handler's answer to one event, as JSON, or what the Runtime API is told instead.
async fn answer<S, E>(
    handler: &mut S,
    event: &[u8],
    context: Context,
) -> Result<Vec<u8>, Diagnostic>
where
    S: Service<LambdaEvent<E>>,
    S::Response: Serialize,
    S::Error: Into<Diagnostic> + Debug,
    E: DeserializeOwned,
{
    let event: E = serde_json::from_slice(event).map_err(|e| {
        tracing::error!(error = %e, "the event does not decode: the handler is not called");
        Diagnostic {
            error_type: "Runtime.UnmarshalError".into(),
            error_message: format!("the event does not decode: {e}"),
        }
    })?;
    std::future::poll_fn(|cx| handler.poll_ready(cx))
        .await
        .map_err(Into::into)?;
    let called = std::panic::catch_unwind(AssertUnwindSafe(|| {
        handler.call(LambdaEvent::new(event, context))
    }));
    let done = match called {
        Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
        Err(panic) => Err(panic),
    };
    match done {
        Ok(Ok(response)) => serde_json::to_vec(&response).map_err(|e| Diagnostic {
            error_type: "Runtime.SerializationError".into(),
            error_message: e.to_string(),
        }),
        Ok(Err(error)) => {
            tracing::error!(?error, "the handler failed");
            Err(error.into())
        }
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(%message, "the handler panicked");
            Err(Diagnostic {
                error_type: "Runtime.HandlerPanicked".into(),
                error_message: format!("the handler panicked: {message}"),
            })
        }
    }
}

/// `POST /runtime/invocation/<id>/<outcome>` with `json`.
fn post(
    request_id: &str,
    outcome: &str,
    error_type: Option<&str>,
    json: Vec<u8>,
) -> Result<Request<Body>, Error> {
    let mut request = build_request()
        .method(Method::POST)
        .uri(format!(
            "/2018-06-01/runtime/invocation/{request_id}/{outcome}"
        ))
        .header(http::header::CONTENT_TYPE, "application/json");
    if let Some(error_type) = error_type {
        request = request.header("lambda-runtime-function-error-type", error_type);
    }
    Ok(request.body(Body::from(json))?)
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}
