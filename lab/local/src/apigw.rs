//! API Gateway, emulated: the template's HTTP API in front of the stack's functions.
//!
//! - [`gateway`]: the HTTP server: a request in, the function's answer out.
//! - [`payload`]: payload format 2.0: the event built from a request, and the response made
//!   from what the function returns.
//! - [`routes`]: the template's `HttpApi` routes, matched as API Gateway matches them.
//! - [`jwt`]: the API's JWT authorizer, and a local issuer whose tokens it accepts.

pub mod gateway;
pub mod jwt;
pub mod payload;
pub mod routes;

pub use gateway::{Gateway, LocalSite, RouteAuth};
