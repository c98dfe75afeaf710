//! Learning: course occurrences and certificates.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, the one line that serves the module. Beside them, what the context does with the table
//! and shows of it: [`data`] (its reads and writes), [`views`] (its records as clients read them),
//! [`params`] (its own request parameters), and [`fixtures`] (the entities its tests, the seeds and
//! the tools start from).

// One public module per function and stream consumer, and the context's lists of them
// (`FUNCTIONS`, `CONSUMERS`): `functions/build.rs` derives them from `src/bin/`, where each
// binary's one line names its module (`cargo::rerun-if-changed=src/bin`).
include!(concat!(env!("OUT_DIR"), "/functions.rs"));
modules_of_the_binaries!();

pub mod data;
pub mod fixtures;
pub mod params;
pub mod refusals;
pub mod views;
