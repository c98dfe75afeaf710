//! HTTP plumbing shared by the API functions.
//!
//! Every API function is a module of its context crate with one shape: `pub const FUNCTION:
//! api::Function` ([`function`]: its name, who may call it ([`Access`]), what it needs beyond the
//! table, its routes and the access patterns they serve) and `pub async fn handle(deps: &Deps,
//! req: Request) -> Result<Response<Body>, ApiError>`, which reads the request with the helpers
//! here, calls the store, and returns a typed error that [`respond`] turns into a JSON body
//! `{"code", "message"}` with the right status. Bad input is always a 4xx, never a 5xx, and is
//! rejected before anything is written. Its binary is a few lines around one call:
//! `api::serve(&function::FUNCTION, function::handle)`; a context crate declares its functions
//! once with [`functions!`].
//!
//! By concern:
//! - [`error`]: [`ApiError`], and how the store's errors map to it; [`refusal`]: what a function
//!   refuses, declared once per function ([`refusals!`]), and what any route may answer
//!   ([`Common`]);
//! - [`response`]: JSON responses ([`json`], [`no_content`], an item or its 404: [`found`]) and
//!   error responses ([`respond`]);
//! - [`parameters`]: path and query parameters and headers ([`path_id`], [`query`]...), and a
//!   paginated pattern's page, read through its cursor ([`paging`]; the pages are the store's:
//!   [`store::Paging`]);
//! - [`body`]: the JSON body ([`json_body`]) and its fields ([`field`]); [`number`]: a body's
//!   whole numbers within their field's range ([`Bounded`]), refused at the edge naming it;
//! - [`text`]: the text rule held to every parameter and every string of a body, before a
//!   handler reads them;
//! - [`serve`](mod@serve): a function's `main` ([`serve()`]) and one request's dispatch
//!   ([`dispatch`]), authorized first ([`auth`]); [`event`]: the raw API Gateway event made a
//!   request (a URI that cannot be built is a 400) and the answer made its response;
//! - [`function`], [`auth`], [`wire`]: declarations, access, and the shapes every context's
//!   response views share (each context's views and its own parameters are in its crate);
//!   [`contract`]: what `openapi.yaml` says of a route, from its request and answer types.
//!
//! Every item is re-exported here: `api::json`, `api::ApiError`, `api::serve`...

pub mod auth;
pub mod body;
pub mod contract;
pub mod error;
pub mod event;
pub mod function;
pub mod number;
pub mod parameters;
pub mod refusal;
pub mod response;
pub mod serve;
pub mod text;
pub mod wire;

pub use auth::{Access, Caller};

/// What every function module names, in one import: `use api::declare::*;`. Its declaration's
/// types, and those of its handler, `handle(deps: &Deps, req: Request) -> Result<Response<Body>,
/// ApiError>`.
pub mod declare {
    pub use crate::contract::{Contract, Query};
    pub use crate::function::{Example, Function, Index, Pattern, Route};
    pub use crate::refusal::{Common, Refusal};
    pub use crate::{Access, ApiError};
    pub use lambda_http::{Body, Request, Response};
    pub use schemars::{JsonSchema, json_schema};
    pub use store::{Deps, HR_TABLE, INDEX_DESIGN, Needs, REVIEWS_TABLE};
}
pub use body::{
    MAX_BODY_BYTES, field, invalid_field, json_body, json_body_keeping_lines, not_null, text_field,
};
pub use error::ApiError;
pub use function::{Function, Method, Page, Route};
pub use number::Bounded;
pub use parameters::{
    header, one_value_each, page_request, paging, path, path_id, path_param, query, query_date,
    query_parsed, query_u32,
};
pub use refusal::{Common, Refusal};
pub use response::{DERIVED_INCONSISTENT, error_response, found, json, no_content, respond};
pub use serve::{dispatch, serve};
/// For a handler serving several patterns: [`telemetry::count_as_pattern`].
pub use telemetry::count_as_pattern;
