//! The local stack: template.yaml's functions run as local processes behind an emulated API
//! Gateway HTTP API, against DynamoDB Local. `sam local` needs Docker; this needs nothing but
//! the function binaries (`cargo build --bins`) and Java for DynamoDB Local.
//!
//! - [`gateway`]: HTTP in, payload 2.0 events out ([`apigw`]), routes as the template declares
//!   them ([`routes`]).
//! - [`lambda`]: every function's pool of processes, each process talking to its own Lambda
//!   Runtime API emulator. [`Stack::invoke`] is the way in for any event source.
//! - [`streams`]: the table's DynamoDB stream feeding the functions with stream events, as
//!   Lambda's event source mappings do (event filtering in [`streams::filter`]).
//! - [`explorer`]: the item-collection explorer (`/_local/explorer`), and the functions' way to
//!   DynamoDB Local ([`explorer::recorder`]), which keeps what they send for it to show.

pub mod account;
// For one commit: the next makes apigw.rs the root of apigw/.
#[path = "apigw/payload.rs"]
pub mod apigw;
pub mod cli;
pub mod explorer;
pub mod gateway;
pub mod jwt;
pub mod lambda;
pub mod routes;
pub mod streams;
mod sync;

pub use lambda::{FunctionSpec, InvokeError, Stack, StackConfig, StackError};
