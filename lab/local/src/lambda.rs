//! Lambda, emulated: the template's functions run as local processes, invoked as Lambda invokes
//! them.
//!
//! - [`stack`]: every function's pool of processes ([`instances`]), each process talking to its
//!   own Lambda Runtime API emulator ([`runtime_api`]). [`Stack::invoke`] is the way in for any
//!   event source.
//! - [`environment`]: a function's environment, the template's values resolved as
//!   CloudFormation would.

pub mod environment;
pub mod instances;
pub(crate) mod runtime_api;
pub mod stack;

pub use instances::{FunctionSpec, InvokeError};
pub use stack::{Stack, StackConfig, StackError};
