//! The floor of the benchmark: the smallest `lambda_http` function there is. Whatever a real
//! function costs above this is ours to explain.

use lambda_http::{Body, Error, Request, Response, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    run(service_fn(|_: Request| async {
        Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(Body::from(r#"{"hello":"world"}"#))
            .map_err(Error::from)
    }))
    .await
}
