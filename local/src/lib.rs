//! The local stack: template.yaml's functions run as local processes behind an emulated API
//! Gateway HTTP API, against DynamoDB Local. `sam local` needs Docker; this needs nothing but
//! the function binaries (`cargo build --bins`) and Java for DynamoDB Local.
//!
//! - [`gateway`]: HTTP in, payload 2.0 events out ([`apigw`]), routes as the template declares
//!   them ([`routes`]).
//! - [`stack`]: every function's pool of processes ([`instances`]), each process talking to its
//!   own Lambda Runtime API emulator ([`runtime_api`]). [`Stack::invoke`] is the way in for any
//!   event source.
//! - [`streams`]: the table's DynamoDB stream feeding the functions with stream events, as
//!   Lambda's event source mappings do (event filtering in [`filter`]).
//! - [`recorder`]: the functions' way to DynamoDB Local, keeping what they send, which the
//!   item-collection [`explorer`] (`/_local/explorer`) shows.

pub mod account;
pub mod apigw;
pub mod cli;
pub mod environment;
pub mod explorer;
pub mod filter;
pub mod gateway;
pub mod instances;
pub mod jwt;
pub mod recorder;
pub mod routes;
mod runtime_api;
pub mod stack;
pub mod streams;

pub use instances::{FunctionSpec, InvokeError};
pub use stack::{Stack, StackConfig, StackError};

/// Locks a std mutex, ignoring poisoning: the state it guards stays consistent at every await-free
/// step, so a panic elsewhere does not make it unusable.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
