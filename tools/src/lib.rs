//! Maintenance commands of the Makefile: the seeds' example data (`make seed`), the drift
//! report of the derived data (`make reconcile`) and the certificate migration (`make migrate`).

pub mod migrate;
pub mod reconcile;
pub mod seed;
