//! Start-up and dispatch: a function's whole `main` ([`serve`], and [`main!`](crate::main), its
//! binary's one line), one request as it answers it ([`dispatch`]), and the
//! [`functions!`](crate::functions) declaration of a context's functions.

use std::future::Future;

use lambda_http::{
    Body, LambdaEvent, Request, Response, aws_lambda_events::apigw::ApiGatewayV2httpRequest,
    service_fn,
};
use store::Deps;

use crate::{Access, ApiError, Function, auth, event, respond, text};

/// A function's whole `main`: logging and metrics ([`telemetry`], counted under `pattern` unless
/// the handler names another), its dependencies read once from the environment (a missing setting
/// stops it here, not at its first request), then API Gateway requests answered until the runtime
/// stops: each event made a request ([`event::request`]: one whose URI cannot be built is a 400
/// here, where `lambda_http` would panic), authorized ([`auth::authorize`]), then handled by
/// `handler` [`in_time`]. Typed errors become JSON error responses; a 5xx is logged.
pub async fn serve<F, Fut>(
    function: &'static Function,
    handler: F,
) -> Result<(), lambda_http::Error>
where
    F: Fn(&'static Deps, Request) -> Fut,
    Fut: Future<Output = Result<Response<Body>, ApiError>> + Send,
{
    let (needs, access) = (function.needs, function.access);
    let metrics = telemetry::init(function.metrics_pattern().leak())?;
    // Made once and kept for the life of the process, as Lambda keeps a warm instance; a
    // configuration it cannot use is reported to Lambda as the reason the instance failed.
    let deps = telemetry::startup::checked(Deps::from_env(needs).await).await?;
    let deps: &'static Deps = Box::leak(Box::new(deps));
    let handler = &handler;
    let service = service_fn(move |invocation: LambdaEvent<ApiGatewayV2httpRequest>| {
        let deadline = store::deadline::ahead_of(invocation.context.deadline);
        let answer = event::request(invocation.payload, invocation.context)
            .map(|req| dispatch(deps, access, handler, req));
        // Boxed: the handler's future inside this one would otherwise make a type too deep
        // for the compiler to lay out (put-user's `main`).
        Box::pin(async move {
            let answer = match answer {
                Ok(dispatched) => in_time(deadline, dispatched).await,
                Err(unbuildable) => respond(Err(unbuildable)),
            };
            Ok::<_, lambda_http::Error>(event::response(answer))
        })
    });
    // `lambda_http::run` without its request conversion's panics, in the loop that does not leak
    // a trace header per invocation, with each invocation's metrics document written when it ends.
    telemetry::runtime::run(metrics, service).await
}

/// A request's answer, made within its `deadline` ([`store::deadline`]): every DynamoDB call the
/// handler makes ends by then (a call still waiting is a 503 `unavailable`), and should the
/// handler still be busy at that moment, the answer is that 503 too, so that the client hears it
/// from the function, with `Retry-After`, rather than API Gateway's 500 when Lambda stops it.
pub async fn in_time(
    deadline: store::deadline::Instant,
    answer: impl Future<Output = Response<Body>>,
) -> Response<Body> {
    let finished = store::deadline::finished_by(deadline, answer).await;
    finished.unwrap_or_else(|| {
        let late = store::StoreError::Unavailable("the invocation's deadline passed".into());
        respond(Err(late.into()))
    })
}

/// A function's binary, whole: `api::main!(commerce::get_customer);` in
/// `functions/commerce/src/bin/get-customer.rs` is the `main` that [`serve`]s the module's
/// `FUNCTION` with its `handle`. The context's [`functions!`](crate::functions) list is derived
/// from these lines (`functions/build.rs`), so the module is named here and nowhere else.
#[macro_export]
macro_rules! main {
    ($context:ident :: $function:ident) => {
        #[tokio::main(flavor = "current_thread")]
        async fn main() -> Result<(), lambda_http::Error> {
            $crate::serve(&$context::$function::FUNCTION, $context::$function::handle).await
        }
    };
}

/// One request, as [`serve`] answers it: its parameters held to the text rule first
/// ([`text::parameters`]: authorization reads them too), then authorized (a refused request never
/// reaches the handler), its query parameters given once each
/// ([`crate::parameters::one_value_each`]), then handled and rendered.
pub fn dispatch<'d, F, Fut>(
    deps: &'d Deps,
    access: Access,
    handler: F,
    req: Request,
) -> impl Future<Output = Response<Body>> + use<'d, F, Fut>
where
    F: FnOnce(&'d Deps, Request) -> Fut,
    Fut: Future<Output = Result<Response<Body>, ApiError>>,
{
    let answer = text::parameters(&req)
        .and_then(|()| auth::authorize(access, &req))
        .and_then(|_| crate::parameters::one_value_each(&req))
        .map(|_| handler(deps, req));
    async move {
        match answer {
            Ok(handled) => respond(handled.await),
            Err(refused) => respond(Err(refused)),
        }
    }
}

/// A context crate's API functions: `functions![get_customer, put_customer]`, written by
/// `functions/build.rs` from the binaries that call [`main!`](crate::main), makes each a public
/// module (its `FUNCTION` and `handle`), the list [`FUNCTIONS`] in that order (the binaries'
/// names'), and [`handle`], which answers a request as the named function's `main` would (for
/// tests and tools that run handlers in process).
#[macro_export]
macro_rules! functions {
    ($($function:ident),* $(,)?) => {
        $(pub mod $function;)*

        /// This context's API functions.
        pub const FUNCTIONS: &[&$crate::Function] = &[$(&$function::FUNCTION),*];

        /// Their routes' contracts, in the order of [`FUNCTIONS`] (each module's `CONTRACTS`,
        /// one per route): what `openapi.yaml` is generated from. No binary reads them.
        pub const CONTRACTS: &[&[$crate::contract::Contract]] = &[$($function::CONTRACTS),*];

        /// The answer of the function named `function` to `req`, authorized as it declares,
        /// with `deps` (made for its needs); `None` when no function of this context has the
        /// name.
        pub async fn handle(
            function: &str,
            deps: &store::Deps,
            req: lambda_http::Request,
        ) -> Option<lambda_http::Response<lambda_http::Body>> {
            $(if function == $function::FUNCTION.name {
                return Some(
                    Box::pin($crate::dispatch(deps, $function::FUNCTION.access, $function::handle, req))
                        .await,
                );
            })*
            None
        }
    };
}
