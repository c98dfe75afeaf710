//! A function whose configuration is unusable fails its start-up with the reason, reported to the
//! Runtime API (`/runtime/init/error`), so the invocation that started it fails with that reason
//! rather than "the process exited": the real binaries, through the local stack's Runtime API.

use std::time::Duration;

use local_stack::{FunctionSpec, InvokeError, Stack};
use serde_json::json;

fn spec(name: &str, environment: &[(&str, &str)]) -> FunctionSpec {
    FunctionSpec {
        name: name.into(),
        binary: crate::stack::debug_binary(name),
        environment: environment
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        timeout: Duration::from_secs(10),
        memory_mb: 128,
        log_file: None,
    }
}

#[tokio::test]
async fn an_unusable_configuration_is_the_invocations_error() {
    let cases = [
        // An HTTP function without its table, or with an empty name.
        (spec("get-customer", &[]), "TABLE_NAME is not set"),
        (
            spec("get-customer", &[("TABLE_NAME", "")]),
            "TABLE_NAME is not set",
        ),
        // A trust bundle that is not there (this used to be a panic).
        (
            spec(
                "put-customer",
                &[
                    ("TABLE_NAME", "t"),
                    ("AWS_CA_BUNDLE", "/nonexistent/ca.pem"),
                ],
            ),
            "AWS_CA_BUNDLE=/nonexistent/ca.pem",
        ),
        // A read of either order-status key design without its design, or with one that is not.
        (
            spec(
                "list-rep-orders",
                &[
                    ("TABLE_NAME", "t"),
                    ("CURSOR_SIGNING_KEY", testkit::TEST_CURSOR_KEY),
                ],
            ),
            "ORDER_STATUS_KEYS is not set",
        ),
        (
            spec(
                "list-customer-orders",
                &[
                    ("TABLE_NAME", "t"),
                    ("CURSOR_SIGNING_KEY", testkit::TEST_CURSOR_KEY),
                    ("ORDER_STATUS_KEYS", "gsi1"),
                ],
            ),
            "ORDER_STATUS_KEYS must be one of concatenated, moving-1, moving-2, multi-attribute, not \"gsi1\"",
        ),
        // O5's shards out of range, and not a number.
        (
            spec(
                "place-order",
                &[("TABLE_NAME", "t"), ("ORDER_STATUS_SHARDS", "0")],
            ),
            "ORDER_STATUS_SHARDS must be 1..=",
        ),
        (
            spec(
                "list-orders",
                &[
                    ("TABLE_NAME", "t"),
                    ("CURSOR_SIGNING_KEY", testkit::TEST_CURSOR_KEY),
                    ("ORDER_STATUS_SHARDS", "many"),
                ],
            ),
            "ORDER_STATUS_SHARDS is not a number: \"many\"",
        ),
        // A stream handler whose failure destination is neither a queue nor a file.
        (
            spec(
                "aggregate-reviews",
                &[
                    ("TABLE_NAME", "t"),
                    ("AGGREGATE_SHARDS", "4"),
                    ("FAILURE_QUEUE_URL", "ftp://queue"),
                ],
            ),
            "FAILURE_QUEUE_URL is neither a queue URL nor file://",
        ),
    ];
    for (spec, reason) in cases {
        let name = spec.name.clone();
        let stack = Stack::start(vec![spec], 1);
        match stack.invoke(&name, &json!({})).await {
            Err(InvokeError::Function {
                error_type,
                error_message,
            }) => {
                assert_eq!(error_type, telemetry::startup::CONFIG_INVALID, "{name}");
                assert!(
                    error_message.contains(reason),
                    "{name}: {error_message:?} names {reason:?}"
                );
            }
            other => panic!("{name}: {other:?}"),
        }
        stack.shutdown().await;
    }
}
