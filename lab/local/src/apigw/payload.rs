//! API Gateway HTTP API payload format 2.0: the event built from an HTTP request, and the HTTP
//! response made from what the function returns.
//! <https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html>

use std::{collections::BTreeMap, net::IpAddr};

use base64::{Engine, engine::general_purpose::STANDARD as BASE64};
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Response, StatusCode, header, request};
use serde_json::{Map, Value, json};
use time::{OffsetDateTime, macros::format_description};

use super::routes::{Match, percent_decode};
use crate::account::{ACCOUNT_ID, API_ID};

/// What API Gateway knows about a request besides the request itself.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    pub source_ip: IpAddr,
    /// The port the gateway listens on (`x-forwarded-port`).
    pub port: u16,
    pub request_id: String,
    pub trace_id: String,
    pub time: OffsetDateTime,
}

/// The v2.0 event for a request that matched `route`.
pub fn build_event(
    parts: &request::Parts,
    body: &[u8],
    route: &Match<'_>,
    info: &RequestInfo,
) -> Value {
    let headers = event_headers(&parts.headers, info);
    let cookies: Vec<&str> = parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let raw_query = parts.uri.query().unwrap_or("");
    let domain_name = headers
        .get("host")
        .and_then(Value::as_str)
        .unwrap_or("127.0.0.1")
        .to_owned();
    let domain_prefix = domain_name
        .split(['.', ':'])
        .next()
        .unwrap_or(&domain_name)
        .to_owned();
    let user_agent = headers.get("user-agent").cloned().unwrap_or(json!(""));
    let route_key = route.route.route_key();
    let time = info
        .time
        .format(format_description!(
            "[day]/[month repr:short]/[year]:[hour]:[minute]:[second] +0000"
        ))
        .unwrap_or_default();

    let mut event = json!({
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": parts.uri.path(),
        "rawQueryString": raw_query,
        "headers": headers,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": API_ID,
            "domainName": domain_name,
            "domainPrefix": domain_prefix,
            "http": {
                "method": parts.method.as_str(),
                "path": parts.uri.path(),
                "protocol": protocol(parts.version),
                "sourceIp": info.source_ip.to_string(),
                "userAgent": user_agent,
            },
            "requestId": info.request_id,
            "routeKey": route_key,
            "stage": "$default",
            "time": time,
            "timeEpoch": (info.time.unix_timestamp_nanos() / 1_000_000) as i64,
        },
        "isBase64Encoded": false,
    });
    // API Gateway leaves out what is empty rather than sending `{}` or `[]`.
    if !cookies.is_empty() {
        event["cookies"] = json!(cookies);
    }
    let query = query_parameters(raw_query);
    if !query.is_empty() {
        event["queryStringParameters"] = json!(query);
    }
    if !route.path_parameters.is_empty() {
        event["pathParameters"] = json!(route.path_parameters);
    }
    if !body.is_empty() {
        match std::str::from_utf8(body) {
            Ok(text) => event["body"] = json!(text),
            Err(_) => {
                event["body"] = json!(BASE64.encode(body));
                event["isBase64Encoded"] = json!(true);
            }
        }
    }
    event
}

fn protocol(v: http::Version) -> &'static str {
    match v {
        http::Version::HTTP_10 => "HTTP/1.0",
        http::Version::HTTP_2 => "HTTP/2.0",
        _ => "HTTP/1.1",
    }
}

/// Lower-case names, repeated headers joined with commas, cookies moved out (to `cookies`), and
/// the headers API Gateway adds.
fn event_headers(headers: &HeaderMap, info: &RequestInfo) -> Map<String, Value> {
    let mut out = Map::new();
    for name in headers.keys() {
        if name == header::COOKIE {
            continue;
        }
        let joined = headers
            .get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect::<Vec<_>>()
            .join(",");
        // `HeaderName`s are already lower case.
        out.insert(name.as_str().to_owned(), json!(joined));
    }
    let forwarded_for = match out.get("x-forwarded-for").and_then(Value::as_str) {
        Some(chain) => format!("{chain}, {}", info.source_ip),
        None => info.source_ip.to_string(),
    };
    out.insert("x-forwarded-for".into(), json!(forwarded_for));
    out.insert("x-forwarded-port".into(), json!(info.port.to_string()));
    out.insert("x-forwarded-proto".into(), json!("http"));
    out.entry("x-amzn-trace-id")
        .or_insert_with(|| json!(info.trace_id));
    out.entry("host")
        .or_insert_with(|| json!(format!("127.0.0.1:{}", info.port)));
    out
}

/// `queryStringParameters`: decoded names and values, repeated names joined with commas.
fn query_parameters(raw: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value);
        out.entry(percent_decode(name))
            .and_modify(|v| {
                v.push(',');
                v.push_str(&value)
            })
            .or_insert(value);
    }
    out
}

/// A JSON error body as API Gateway writes them: `{"message":"..."}`.
pub fn error_response(status: StatusCode, message: &str) -> Response<Bytes> {
    json_response(status, &json!({ "message": message }))
}

pub fn json_response(status: StatusCode, body: &Value) -> Response<Bytes> {
    let mut response = Response::new(Bytes::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The HTTP response for what a function returned. A JSON object with a `statusCode` is a
/// response object; anything else is the body of a 200 JSON response, as API Gateway infers it.
/// `Err` is a malformed response object (API Gateway answers 500 to those).
pub fn http_response(value: Value) -> Result<Response<Bytes>, String> {
    let Some(object) = value.as_object().filter(|o| o.contains_key("statusCode")) else {
        let body = match value {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let mut response = Response::new(Bytes::from(body));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        return Ok(response);
    };

    let status = match &object["statusCode"] {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
    .and_then(|n| u16::try_from(n).ok())
    .and_then(|n| StatusCode::from_u16(n).ok())
    .ok_or_else(|| format!("invalid statusCode {}", object["statusCode"]))?;

    let mut headers = HeaderMap::new();
    if let Some(map) = object.get("headers").and_then(Value::as_object) {
        for (name, value) in map {
            headers.insert(header_name(name)?, header_value(name, value)?);
        }
    }
    // Not part of payload 2.0, but harmless to honour: some libraries still send it.
    if let Some(map) = object.get("multiValueHeaders").and_then(Value::as_object) {
        for (name, values) in map {
            let name = header_name(name)?;
            for value in values.as_array().into_iter().flatten() {
                headers.append(name.clone(), header_value(name.as_str(), value)?);
            }
        }
    }
    if let Some(cookies) = object.get("cookies").and_then(Value::as_array) {
        for cookie in cookies {
            headers.append(header::SET_COOKIE, header_value("cookies", cookie)?);
        }
    }

    let base64 = object
        .get("isBase64Encoded")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let body = match object.get("body") {
        None | Some(Value::Null) => Bytes::new(),
        Some(Value::String(s)) if base64 => BASE64
            .decode(s)
            .map(Bytes::from)
            .map_err(|e| format!("body is not valid base64: {e}"))?,
        Some(Value::String(s)) => Bytes::from(s.clone()),
        Some(other) => return Err(format!("body must be a string, got {other}")),
    };

    // The gateway frames the body itself: a function's framing headers would contradict it.
    for name in [
        header::CONTENT_LENGTH,
        header::TRANSFER_ENCODING,
        header::CONNECTION,
    ] {
        headers.remove(name);
    }
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    Ok(response)
}

fn header_name(name: &str) -> Result<HeaderName, String> {
    HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("invalid header name {name:?}"))
}

fn header_value(name: &str, value: &Value) -> Result<HeaderValue, String> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(_) | Value::Bool(_) => value.to_string(),
        other => {
            return Err(format!(
                "header {name}: value must be a string, got {other}"
            ));
        }
    };
    HeaderValue::from_str(&text).map_err(|_| format!("header {name}: invalid value {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apigw::routes::{RouteEntry, Router};
    use lambda_http::{Body, RequestExt, request::LambdaRequest};

    fn info() -> RequestInfo {
        RequestInfo {
            source_ip: "127.0.0.1".parse().unwrap(),
            port: 3000,
            request_id: "JKJaXmPLvHcESHA=".into(),
            trace_id: "Root=1-00000000-000000000000000000000000".into(),
            time: OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap(),
        }
    }

    fn event_for(request: http::Request<Vec<u8>>) -> Value {
        let router = Router::new(vec![
            RouteEntry::new("PUT", "/carts/{cartId}/items/{productId}", "put-cart-line"),
            RouteEntry::new("GET", "/customers/{customerId}", "get-customer"),
        ]);
        let (parts, body) = request.into_parts();
        let m = router
            .find(parts.method.as_str(), parts.uri.path())
            .unwrap();
        build_event(&parts, &body, &m, &info())
    }

    /// The event goes through lambda_http exactly as a function would receive it.
    fn as_lambda_http(event: &Value) -> lambda_http::Request {
        let parsed: LambdaRequest = serde_json::from_value(event.clone()).unwrap();
        assert!(
            matches!(parsed, LambdaRequest::ApiGatewayV2(_)),
            "not read as an HTTP API v2 event: {parsed:?}"
        );
        lambda_http::request::from_str(&event.to_string()).unwrap()
    }

    #[test]
    fn event_deserializes_in_lambda_http_with_params_query_and_body() {
        let request = http::Request::builder()
            .method("PUT")
            .uri("/carts/c%201/items/p9?x=1&tag=a&tag=b%26c&empty&q=caf%C3%A9")
            .header("Host", "localhost:3000")
            .header("Content-Type", "application/json")
            .header("X-Multi", "one")
            .header("X-Multi", "two")
            .header("Cookie", "a=1; b=2")
            .header("User-Agent", "curl/8")
            .body(br#"{"quantity":2}"#.to_vec())
            .unwrap();
        let event = event_for(request);
        assert_eq!(event["version"], "2.0");
        assert_eq!(event["routeKey"], "PUT /carts/{cartId}/items/{productId}");
        assert_eq!(event["rawPath"], "/carts/c%201/items/p9");
        assert_eq!(event["headers"]["x-multi"], "one,two");
        assert_eq!(event["headers"]["x-forwarded-port"], "3000");
        assert!(event["headers"].get("cookie").is_none());
        assert_eq!(event["cookies"], json!(["a=1", "b=2"]));
        assert_eq!(event["queryStringParameters"]["tag"], "a,b&c");
        assert_eq!(event["queryStringParameters"]["empty"], "");
        assert_eq!(event["requestContext"]["http"]["userAgent"], "curl/8");
        assert_eq!(
            event["requestContext"]["time"],
            "14/Nov/2023:22:13:20 +0000"
        );
        assert_eq!(event["requestContext"]["timeEpoch"], 1_700_000_000_000i64);

        let req = as_lambda_http(&event);
        assert_eq!(req.method(), "PUT");
        assert_eq!(req.uri().path(), "/carts/c%201/items/p9");
        let path = req.path_parameters();
        assert_eq!(path.first("cartId"), Some("c 1"));
        assert_eq!(path.first("productId"), Some("p9"));
        let query = req.query_string_parameters();
        assert_eq!(query.first("x"), Some("1"));
        assert_eq!(query.all("tag"), Some(vec!["a", "b&c"]));
        assert_eq!(query.first("q"), Some("café"));
        assert_eq!(req.headers()["content-type"], "application/json");
        assert_eq!(req.headers()["cookie"], "a=1; b=2");
        assert_eq!(req.body(), &Body::Text(r#"{"quantity":2}"#.into()));
        match req.request_context() {
            lambda_http::request::RequestContext::ApiGatewayV2(ctx) => {
                assert_eq!(ctx.stage.as_deref(), Some("$default"));
                assert_eq!(ctx.request_id.as_deref(), Some("JKJaXmPLvHcESHA="));
                assert_eq!(ctx.http.source_ip.as_deref(), Some("127.0.0.1"));
            }
            other => panic!("unexpected context {other:?}"),
        }
    }

    #[test]
    fn binary_body_is_base64_and_no_body_is_absent() {
        let request = http::Request::builder()
            .method("GET")
            .uri("/customers/1")
            .body(vec![0xff, 0x00, 0x01])
            .unwrap();
        let event = event_for(request);
        assert_eq!(event["isBase64Encoded"], true);
        let req = as_lambda_http(&event);
        assert_eq!(req.body(), &Body::Binary(vec![0xff, 0x00, 0x01]));

        let request = http::Request::builder()
            .uri("/customers/1")
            .body(Vec::new())
            .unwrap();
        let event = event_for(request);
        assert!(event.get("body").is_none());
        assert!(event.get("queryStringParameters").is_none());
        assert!(event.get("cookies").is_none());
        let req = as_lambda_http(&event);
        assert_eq!(req.body(), &Body::Empty);
        assert_eq!(req.path_parameters().first("customerId"), Some("1"));
    }

    #[test]
    fn response_object_becomes_the_http_response() {
        let response = http_response(json!({
            "statusCode": 201,
            "headers": { "content-type": "application/json", "x-n": 1, "content-length": "999" },
            "multiValueHeaders": { "x-m": ["a", "b"] },
            "cookies": ["s=1; Path=/", "t=2"],
            "body": "{\"ok\":true}",
            "isBase64Encoded": false,
        }))
        .unwrap();
        assert_eq!(response.status(), 201);
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_eq!(response.headers()["x-n"], "1");
        assert!(response.headers().get("content-length").is_none());
        let m: Vec<_> = response.headers().get_all("x-m").iter().collect();
        assert_eq!(m, ["a", "b"]);
        let c: Vec<_> = response.headers().get_all("set-cookie").iter().collect();
        assert_eq!(c, ["s=1; Path=/", "t=2"]);
        assert_eq!(response.body(), r#"{"ok":true}"#);
    }

    #[test]
    fn base64_body_is_decoded() {
        let response = http_response(json!({
            "statusCode": 200, "body": BASE64.encode([0u8, 1, 2]), "isBase64Encoded": true,
        }))
        .unwrap();
        assert_eq!(response.body().as_ref(), [0u8, 1, 2]);
        assert!(
            http_response(json!({"statusCode": 200, "body": "%%", "isBase64Encoded": true}))
                .is_err()
        );
    }

    #[test]
    fn a_plain_value_is_a_200_json_body() {
        let response = http_response(json!({"name": "Ann"})).unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_eq!(response.body(), r#"{"name":"Ann"}"#);
        assert_eq!(http_response(json!([1, 2])).unwrap().body(), "[1,2]");
    }

    #[test]
    fn malformed_response_objects_are_errors() {
        assert!(http_response(json!({"statusCode": "abc"})).is_err());
        assert!(http_response(json!({"statusCode": 99})).is_err());
        assert!(http_response(json!({"statusCode": 200, "body": {"a": 1}})).is_err());
        assert!(http_response(json!({"statusCode": 200, "headers": {"bad name": "x"}})).is_err());
        let empty = http_response(json!({"statusCode": 204})).unwrap();
        assert_eq!(empty.status(), 204);
        assert!(empty.body().is_empty());
    }

    /// The response type lambda_http serializes for a v2 request (empty `multiValueHeaders`,
    /// cookies apart, binary bodies in base64) converts back faithfully.
    #[test]
    fn lambda_http_response_type_round_trips() {
        use lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpResponse;
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("image/png"));
        let mut response = ApiGatewayV2httpResponse::default();
        response.status_code = 404;
        response.headers = headers;
        response.cookies = vec!["a=1".into()];
        response.body = Some(Body::Binary(vec![0x89, 0x50]));
        response.is_base64_encoded = true;
        let value = serde_json::to_value(&response).unwrap();
        let http = http_response(value).unwrap();
        assert_eq!(http.status(), 404);
        assert_eq!(http.headers()["content-type"], "image/png");
        assert_eq!(http.headers()["set-cookie"], "a=1");
        assert_eq!(http.body().as_ref(), [0x89, 0x50]);
    }
}
