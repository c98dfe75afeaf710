//! A poison record sent to the failure queue goes with its invocation's trace header
//! (`X-Amzn-Trace-Id`), as every AWS call of an invocation does (`telemetry::xray`): SQS keeps it
//! on the message (`AWSTraceHeader`), so X-Ray links the message to the invocation. Against a
//! stand-in SQS endpoint that keeps the request it receives. (A file of its own: the endpoint is
//! set in the process's environment.)

use std::io::{BufRead, BufReader, Read, Write};

use stream_handler::{BatchResponse, DeadLetters, Event, Poison};

const HEADER: &str = "Root=1-5f84c7a6-0123456789abcdef01234567;Parent=89abcdef01234567;Sampled=0";

/// Answers one request with an accepted `SendMessage`; returns the request's head, lowercased.
fn stand_in_sqs(listener: std::net::TcpListener) -> String {
    let (stream, _) = listener.accept().unwrap();
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        if reader.read_line(&mut head).unwrap() == 0 {
            break;
        }
    }
    let head = head.to_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |n| n.trim().parse().unwrap());
    reader.read_exact(&mut vec![0; length]).unwrap();
    let body = r#"{"MessageId":"5fea7756-0ea4-451a-a703-a558b933e274"}"#;
    let answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    reader.get_mut().write_all(answer.as_bytes()).unwrap();
    head
}

#[tokio::test]
async fn a_poison_record_goes_to_the_queue_with_its_invocations_trace_header() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let sqs = std::thread::spawn(move || stand_in_sqs(listener));
    // SAFETY: the only test of this process, before any other thread reads the environment.
    unsafe {
        std::env::set_var("AWS_ENDPOINT_URL_SQS", endpoint);
        std::env::set_var("AWS_REGION", "us-east-1");
        std::env::set_var("AWS_ACCESS_KEY_ID", "local");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "local");
    }
    let queue = DeadLetters::at("https://sqs.us-east-1.amazonaws.com/123456789012/failures")
        .await
        .unwrap();
    let event: Event = serde_json::from_str(r#"{"Records":[]}"#).unwrap();
    let poison = BatchResponse::default().with_poison(vec![Poison {
        index: 0,
        reason: "does not decode".into(),
    }]);

    let _invocation = telemetry::xray::enter(Some(HEADER));
    queue.settle(&event, poison).await;
    let head = sqs.join().unwrap();
    assert!(
        head.contains("sendmessage"),
        "the poison record was not sent: {head}"
    );
    assert!(
        head.contains(&format!("x-amzn-trace-id: {}", HEADER.to_lowercase())),
        "{head}"
    );
}
