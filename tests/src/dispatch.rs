//! Every function's handler and needs by name, read from the catalogue (each function's own
//! declaration): the "every route has a handler" half of the contract. A function of the
//! template that no context declares fails the tests.

use api::Access;
use lambda_http::{Body, Request, Response};
use store::{Needs, Table};

/// An API function's answer to `req` as its `main` gives it: authorized as it declares, with
/// exactly the dependencies it declares.
pub async fn handle(function: &str, table: &Table, req: Request) -> Option<Response<Body>> {
    let deps = testkit::deps(table.clone(), catalogue::function(function)?.needs);
    catalogue::handle(function, &deps, req).await
}

/// Who may call an API function.
pub fn access(function: &str) -> Option<Access> {
    catalogue::function(function).map(|f| f.access)
}

/// A stream handler's answer to `event`, with exactly the dependencies it declares.
pub async fn handle_stream(
    function: &str,
    table: &Table,
    event: &stream_handler::Event,
) -> Option<stream_handler::BatchResponse> {
    let deps = testkit::deps(table.clone(), catalogue::consumer(function)?.needs);
    catalogue::handle_batch(function, &deps, event.clone()).await
}

/// What a function declares it needs from its environment.
pub fn needs(function: &str) -> Option<Needs> {
    catalogue::function(function)
        .map(|f| f.needs)
        .or_else(|| catalogue::consumer(function).map(|c| c.needs))
}
