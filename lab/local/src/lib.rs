//! The local stack: template.yaml's functions run as local processes behind an emulated API
//! Gateway HTTP API, against DynamoDB Local. `sam local` needs Docker; this needs nothing but
//! the function binaries (`cargo build --bins`) and Java for DynamoDB Local.
//!
//! - [`apigw`]: HTTP in, payload 2.0 events out, routes as the template declares them, and the
//!   API's JWT authorizer.
//! - [`lambda`]: every function's pool of processes, each process talking to its own Lambda
//!   Runtime API emulator. [`Stack::invoke`] is the way in for any event source.
//! - [`streams`]: the table's DynamoDB stream feeding the functions with stream events, as
//!   Lambda's event source mappings do (event filtering in [`streams::filter`]).
//! - [`explorer`]: the item-collection explorer (`/_local/explorer`), and the functions' way to
//!   DynamoDB Local ([`explorer::recorder`]), which keeps what they send for it to show.

pub mod account;
pub mod apigw;
pub mod cli;
pub mod explorer;
pub mod lambda;
pub mod streams;
mod sync;

/// `local_stack::jwt`: the name the workspace's tests crate and the `token` binary use.
pub use apigw::jwt;
pub use lambda::{FunctionSpec, InvokeError, Stack, StackConfig, StackError};
