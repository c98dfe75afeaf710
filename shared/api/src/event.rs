//! The API Gateway HTTP API (v2) event as Lambda delivers it, turned into a [`Request`] only when
//! one can be built, and the answer turned back into the event's response.
//!
//! `lambda_http` builds a request's URI from the `Host` header (or the domain name), the
//! `X-Forwarded-Proto` header, the path and the raw query string, and panics when the URI is not
//! one `url` and `http` accept (`Url::parse(..).unwrap()`, `.expect("failed to build request")`
//! in its `into_api_gateway_v2_request`). API Gateway passes raw `"`, `<`, `>` and spaces of a
//! query string on as they came, and any `Host` locally: a panic any client could cause, answered
//! 500 and counted by the 5xx alarm. [`request`] makes the same URI first and refuses what would
//! not build with a 400 `invalid_request`; what it accepts, `lambda_http` converts as before.

use crate::Common;
use lambda_http::{
    Body, Context, Request, RequestExt, Response,
    aws_lambda_events::apigw::{ApiGatewayV2httpRequest, ApiGatewayV2httpResponse},
    http::{HeaderValue, Uri, header::HOST},
    request::LambdaRequest,
};

use crate::ApiError;

/// The request of `event`, as `lambda_http` makes it (with the invocation's context and its
/// X-Ray trace header), or a 400 `invalid_request` when its URI cannot be built.
pub fn request(event: ApiGatewayV2httpRequest, context: Context) -> Result<Request, ApiError> {
    if let Some(why) = unbuildable(&event) {
        return Err(Common::InvalidRequest.because(why));
    }
    let mut req: Request = LambdaRequest::ApiGatewayV2(event).into();
    if let Some(trace) = context
        .xray_trace_id
        .as_deref()
        .and_then(|t| HeaderValue::from_str(t).ok())
    {
        req.headers_mut().insert("x-amzn-trace-id", trace);
    }
    Ok(req.with_lambda_context(context))
}

/// The event's response to `response`: its status, headers and body (text as it is, binary in
/// base64). The functions set no cookies, so `cookies` stays empty.
pub fn response(response: Response<Body>) -> ApiGatewayV2httpResponse {
    let (parts, body) = response.into_parts();
    let mut answer = ApiGatewayV2httpResponse::default();
    answer.status_code = i64::from(parts.status.as_u16());
    answer.headers = parts.headers;
    (answer.is_base64_encoded, answer.body) = match body {
        Body::Empty => (false, None),
        text @ Body::Text(_) => (false, Some(text)),
        binary @ Body::Binary(_) => (true, Some(binary)),
        _ => (false, None),
    };
    answer
}

/// Why `lambda_http` could not build the URI of `event` (it would panic), or `None` when it can:
/// the URI it makes, made the same way and checked as it is checked.
fn unbuildable(event: &ApiGatewayV2httpRequest) -> Option<&'static str> {
    const HOST_WHY: &str = "The Host header (with X-Forwarded-Proto) does not make a URL.";
    let host = event
        .headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .or(event.request_context.domain_name.as_deref());
    let path = path_with_stage(
        event.request_context.stage.as_deref(),
        event.raw_path.as_deref().unwrap_or_default(),
    );
    let url = match host {
        None => url::Url::parse(&format!("http://localhost{path}")).map(|u| u.path().to_owned()),
        Some(host) => {
            let scheme = event
                .headers
                .get("x-forwarded-proto")
                .and_then(|s| s.to_str().ok())
                .unwrap_or("https");
            url::Url::parse(&format!("{scheme}://{host}{path}")).map(|u| u.to_string())
        }
    };
    let Ok(mut uri) = url else {
        return Some(HOST_WHY);
    };
    if Uri::try_from(uri.as_str()).is_err() {
        return Some(HOST_WHY);
    }
    match event.raw_query_string.as_deref() {
        Some(query) if !query.is_empty() => {
            uri.push('?');
            uri.push_str(query);
            Uri::try_from(uri).err().map(|_| {
                "The query string has characters a URL must percent-encode (a space, \", <, >...)."
            })
        }
        _ => None,
    }
}

/// The path `lambda_http` puts in the URI: the raw path, under the stage unless it is
/// `$default`, already there, or `AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH` is set.
fn path_with_stage(stage: Option<&str>, path: &str) -> String {
    match stage {
        Some(stage)
            if stage != "$default"
                && !path.starts_with(&format!("/{stage}/"))
                && std::env::var_os("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH").is_none() =>
        {
            format!("/{stage}{path}")
        }
        _ => path.to_owned(),
    }
}
