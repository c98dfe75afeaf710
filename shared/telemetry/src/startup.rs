//! A start-up that fails is reported to Lambda before the process exits, as the Runtime API asks
//! of a runtime (`POST /runtime/init/error`): the invocation that started the instance then fails
//! with the cause (`TABLE_NAME is not set`) instead of Lambda's "Runtime exited with error", and
//! the function's log says the same. Every start-up failure here comes from the function's
//! environment (a variable missing or unusable, a trust bundle it cannot read).

/// The error type Lambda is given: AWS's own name for a runtime's configuration problem.
pub const CONFIG_INVALID: &str = "Runtime.ConfigInvalid";

const INIT_ERROR_PATH: &str = "/2018-06-01/runtime/init/error";

/// A start-up step's result; its failure is logged and reported to the Runtime API (when there is
/// one: `AWS_LAMBDA_RUNTIME_API`), then returned for `main` to return.
pub async fn checked<T, E: std::fmt::Display>(
    result: Result<T, E>,
) -> Result<T, lambda_runtime::Error> {
    match result {
        Ok(value) => Ok(value),
        Err(e) => Err(failed(e).await),
    }
}

async fn failed(error: impl std::fmt::Display) -> lambda_runtime::Error {
    let message = error.to_string();
    tracing::error!(error = %message, "start-up failed");
    if let Some(api) = std::env::var("AWS_LAMBDA_RUNTIME_API")
        .ok()
        .filter(|a| !a.is_empty())
        && let Err(e) = report(&api, &message).await
    {
        tracing::error!(error = %e, runtime_api = %api, "the start-up failure could not be reported");
    }
    message.into()
}

async fn report(api: &str, message: &str) -> Result<(), lambda_runtime::Error> {
    let client = lambda_runtime_api_client::Client::builder()
        .with_endpoint(endpoint(api).parse()?)
        .build()?;
    let body = serde_json::json!({ "errorType": CONFIG_INVALID, "errorMessage": message });
    let request = lambda_runtime_api_client::build_request()
        .method(http::Method::POST)
        .uri(INIT_ERROR_PATH)
        .header("lambda-runtime-function-error-type", CONFIG_INVALID)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body.to_string().into())?;
    let status = client.call(request).await?.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("{INIT_ERROR_PATH} answered {status}").into())
    }
}

/// The Runtime API's base URL: Lambda gives `host:port`; emulators such as `cargo lambda watch`
/// give a URL with a path (`http://[::]:9000/.rt/<function>`).
fn endpoint(api: &str) -> String {
    if api.contains("://") {
        api.to_owned()
    } else {
        format!("http://{api}")
    }
}

#[cfg(test)]
mod tests {
    use super::endpoint;

    #[test]
    fn the_runtime_api_is_read_as_lambda_and_emulators_give_it() {
        assert_eq!(endpoint("127.0.0.1:9001"), "http://127.0.0.1:9001");
        assert_eq!(
            endpoint("http://[::]:9000/.rt/get-customer"),
            "http://[::]:9000/.rt/get-customer"
        );
    }
}
