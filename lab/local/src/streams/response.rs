//! What an invocation's result means for the batch, by Lambda's rules for stream sources,
//! including `ReportBatchItemFailures`:
//! <https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html>

use serde_json::Value;

use super::queue::Failure;
use crate::lambda::InvokeError;

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Success,
    /// Reported item failures: `checkpoint` is the index of the first failed record, `failed`
    /// the indexes of all of them.
    Partial {
        checkpoint: usize,
        failed: Vec<usize>,
    },
    /// The whole batch failed.
    Failed {
        reason: String,
        failure: Failure,
    },
    /// The function was never reached (its binary cannot start...): retried, but not counted,
    /// as Lambda does not count throttles and service errors.
    NotInvoked(String),
    ShuttingDown,
}

const UNHANDLED: &str = "Unhandled";

/// `sequence_numbers` are those of the batch, in order.
pub fn outcome(
    result: Result<Value, InvokeError>,
    report_item_failures: bool,
    sequence_numbers: &[String],
) -> Outcome {
    let failed = |reason: String, status_code: u16, function_error: Option<&str>| Outcome::Failed {
        reason,
        failure: Failure {
            status_code,
            function_error: function_error.map(str::to_owned),
        },
    };
    match result {
        Ok(_) if !report_item_failures => Outcome::Success,
        Ok(response) => match item_failures(&response, sequence_numbers) {
            Ok(failed) if failed.is_empty() => Outcome::Success,
            Ok(failed) => Outcome::Partial {
                checkpoint: failed[0],
                failed,
            },
            Err(e) => failed(
                format!("invalid batchItemFailures response: {e}"),
                200,
                None,
            ),
        },
        // Lambda does not read the response unless asked for item failures.
        Err(InvokeError::BadResponse(_)) if !report_item_failures => Outcome::Success,
        Err(e @ InvokeError::BadResponse(_)) => failed(e.to_string(), 200, None),
        Err(
            e @ (InvokeError::Function { .. } | InvokeError::Timeout(_) | InvokeError::Died(_)),
        ) => failed(e.to_string(), 200, Some(UNHANDLED)),
        Err(e @ InvokeError::EventTooLarge(_)) => failed(e.to_string(), 413, None),
        Err(InvokeError::ShuttingDown) => Outcome::ShuttingDown,
        Err(e @ (InvokeError::UnknownFunction(_) | InvokeError::Start { .. })) => {
            Outcome::NotInvoked(e.to_string())
        }
    }
}

/// The indexes in the batch of the reported failures, sorted; empty for a complete success.
/// Anything Lambda would not accept is an error: the whole batch then failed.
fn item_failures(response: &Value, sequence_numbers: &[String]) -> Result<Vec<usize>, String> {
    let list = match response {
        Value::Null => return Ok(Vec::new()),
        Value::Object(o) => match o.get("batchItemFailures") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(list)) => list,
            Some(other) => return Err(format!("batchItemFailures is {other}, not a list")),
        },
        other => return Err(format!("the response is {other}, not an object")),
    };
    let mut failed = Vec::new();
    for item in list {
        let id = match item.get("itemIdentifier") {
            Some(Value::String(id)) if !id.is_empty() => id,
            _ => return Err(format!("{item} has no itemIdentifier")),
        };
        let index = sequence_numbers
            .iter()
            .position(|s| s == id)
            .ok_or_else(|| format!("{id} is not a sequence number of the batch"))?;
        failed.push(index);
    }
    failed.sort_unstable();
    failed.dedup();
    Ok(failed)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    fn seqs() -> Vec<String> {
        ["100", "200", "300"].map(String::from).to_vec()
    }

    fn report(response: Value) -> Outcome {
        outcome(Ok(response), true, &seqs())
    }

    #[test]
    fn complete_successes() {
        for response in [
            json!(null),
            json!({}),
            json!({"batchItemFailures": null}),
            json!({"batchItemFailures": []}),
        ] {
            assert_eq!(report(response.clone()), Outcome::Success, "{response}");
        }
        // Without ReportBatchItemFailures any answer completes the batch.
        assert_eq!(
            outcome(Ok(json!({"batchItemFailures": "x"})), false, &seqs()),
            Outcome::Success
        );
        let not_json = InvokeError::BadResponse("x".into());
        assert_eq!(
            outcome(Err(not_json.clone()), false, &seqs()),
            Outcome::Success
        );
        assert!(matches!(
            outcome(Err(not_json), true, &seqs()),
            Outcome::Failed { .. }
        ));
    }

    #[test]
    fn the_lowest_reported_record_is_the_checkpoint() {
        let response = json!({"batchItemFailures": [
            {"itemIdentifier": "300"}, {"itemIdentifier": "200"}, {"itemIdentifier": "300"}
        ]});
        assert_eq!(
            report(response),
            Outcome::Partial {
                checkpoint: 1,
                failed: vec![1, 2]
            }
        );
    }

    #[test]
    fn invalid_responses_fail_the_whole_batch() {
        for response in [
            json!("ok"),
            json!([]),
            json!({"batchItemFailures": {}}),
            json!({"batchItemFailures": [{"itemIdentifier": "999"}]}),
            json!({"batchItemFailures": [{"itemIdentifier": ""}]}),
            json!({"batchItemFailures": [{"itemIdentifier": null}]}),
            json!({"batchItemFailures": [{"id": "100"}]}),
        ] {
            match report(response.clone()) {
                Outcome::Failed { failure, .. } => assert_eq!(failure.function_error, None),
                other => panic!("{response}: {other:?}"),
            }
        }
    }

    #[test]
    fn errors() {
        let function = InvokeError::Function {
            error_type: "Boom".into(),
            error_message: "no".into(),
        };
        for e in [
            function,
            InvokeError::Timeout(Duration::from_secs(3)),
            InvokeError::Died("x".into()),
        ] {
            match outcome(Err(e), true, &seqs()) {
                Outcome::Failed { failure, .. } => {
                    assert_eq!(failure.function_error.as_deref(), Some("Unhandled"))
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(matches!(
            outcome(
                Err(InvokeError::UnknownFunction("f".into())),
                false,
                &seqs()
            ),
            Outcome::NotInvoked(_)
        ));
        assert_eq!(
            outcome(Err(InvokeError::ShuttingDown), false, &seqs()),
            Outcome::ShuttingDown
        );
    }
}
