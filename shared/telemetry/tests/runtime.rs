//! The invocation loop (`telemetry::runtime::run`) against a stand-in Runtime API: an answer goes
//! to `/response`, an event that does not decode, a handler's error and a handler's panic each go
//! to `/error` as a diagnostic and the loop goes on; the invocation id comes back with the
//! answer; the handler sees its invocation's trace header, and nothing is left of it afterwards,
//! in the environment least of all. (A file of its own: the runtime's variables are the
//! process's.)

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
};

use lambda_runtime::{Error, LambdaEvent, service_fn};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Ask {
    n: u32,
}

/// What the loop posted: path, `lambda-runtime-function-error-type`,
/// `lambda-runtime-invocation-id`, body.
type Post = (String, Option<String>, Option<String>, Value);

/// One request off a kept-alive connection (header names lowercased).
struct Received {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn request(reader: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let Some((name, value)) = line.trim_end().split_once(':') else {
            break;
        };
        headers.push((name.to_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received {
        method,
        path,
        headers,
        body,
    })
}

fn reply(stream: &mut TcpStream, status: u16, headers: &[(&str, String)], body: &str) {
    let mut text = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    stream.write_all(text.as_bytes()).unwrap();
}

/// Hands out `events` in order, each with its request id (`r<n>`), invocation id (`i<n>`) and
/// trace header; then answers `/next` with a 500, which ends the loop. Every post is kept.
fn stand_in_runtime_api(
    listener: TcpListener,
    events: Vec<&'static str>,
    posts: Arc<Mutex<Vec<Post>>>,
) {
    let mut handed = 0;
    for stream in listener.incoming() {
        let mut stream = stream.unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        while let Some(Received {
            method,
            path,
            headers,
            body,
        }) = request(&mut reader)
        {
            if method == "GET" && path == "/2018-06-01/runtime/invocation/next" {
                let Some(event) = events.get(handed) else {
                    reply(&mut stream, 500, &[], "{}");
                    return;
                };
                let trace = format!("lambda-runtime-trace-id-{handed}");
                reply(
                    &mut stream,
                    200,
                    &[
                        ("lambda-runtime-aws-request-id", format!("r{handed}")),
                        ("lambda-runtime-invocation-id", format!("i{handed}")),
                        ("lambda-runtime-deadline-ms", "4102444800000".into()),
                        ("lambda-runtime-trace-id", trace),
                    ],
                    event,
                );
                handed += 1;
                continue;
            }
            let get = |name: &str| {
                headers
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            };
            posts.lock().unwrap().push((
                path,
                get("lambda-runtime-function-error-type"),
                get("lambda-runtime-invocation-id"),
                serde_json::from_slice(&body).unwrap_or(Value::Null),
            ));
            reply(&mut stream, 202, &[], "{}");
        }
    }
}

#[tokio::test]
async fn answers_and_failures_reach_the_runtime_api_and_the_loop_goes_on() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    // SAFETY: the only test of this process, before any other thread reads the environment.
    unsafe {
        std::env::set_var(
            "AWS_LAMBDA_RUNTIME_API",
            listener.local_addr().unwrap().to_string(),
        );
        std::env::set_var("AWS_LAMBDA_FUNCTION_NAME", "loop");
        std::env::set_var("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128");
        std::env::set_var("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST");
    }
    let posts = Arc::new(Mutex::new(Vec::new()));
    let api = {
        let posts = posts.clone();
        let events = vec![
            r#"{"n":1}"#,
            r#"{"n":"one"}"#,
            r#"{"n":2}"#,
            r#"{"n":3}"#,
            r#"{"n":4}"#,
        ];
        std::thread::spawn(move || stand_in_runtime_api(listener, events, posts))
    };
    let handler = service_fn(|event: LambdaEvent<Ask>| async move {
        match event.payload.n {
            2 => Err(Error::from("two is refused")),
            3 => panic!("three"),
            n => Ok(json!({ "n": n, "trace": telemetry::xray::current_header() })),
        }
    });
    let metrics = Box::leak(Box::new(telemetry::Documents::new("ns", "loop", "P")));

    let ended = telemetry::runtime::run(metrics, handler).await;
    api.join().unwrap();
    assert!(ended.is_err(), "the loop ends when the Runtime API fails");
    let posts = posts.lock().unwrap();
    let at = |i: usize| -> (&str, Option<&str>, Option<&str>, &Value) {
        let (path, error_type, invocation, body) = &posts[i];
        (path, error_type.as_deref(), invocation.as_deref(), body)
    };
    assert_eq!(posts.len(), 5, "{posts:?}");
    assert_eq!(
        at(0),
        (
            "/2018-06-01/runtime/invocation/r0/response",
            None,
            Some("i0"),
            &json!({ "n": 1, "trace": "lambda-runtime-trace-id-0" })
        )
    );
    // The handler's own error keeps the type name `lambda_runtime` gives it.
    for (i, error_type, says) in [
        (1, Some("Runtime.UnmarshalError"), "invalid type"),
        (2, None, "two is refused"),
        (3, Some("Runtime.HandlerPanicked"), "three"),
    ] {
        let (path, kind, invocation, body) = at(i);
        assert_eq!(path, format!("/2018-06-01/runtime/invocation/r{i}/error"));
        assert_eq!(kind, Some("unhandled"));
        assert_eq!(invocation, Some(format!("i{i}").as_str()));
        let named = body["errorType"].as_str().unwrap();
        assert!(error_type.is_none_or(|t| t == named), "{body}");
        let message = body["errorMessage"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    }
    assert_eq!(
        at(4).3,
        &json!({ "n": 4, "trace": "lambda-runtime-trace-id-4" })
    );
    assert_eq!(telemetry::xray::current_header(), None);
    assert!(std::env::var_os("_X_AMZN_TRACE_ID").is_none());
}
