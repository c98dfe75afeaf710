//! Maintenance commands of the Makefile: the seeds' example data (`make seed`) and the drift
//! report of the derived data (`make reconcile`).

pub mod reconcile;
pub mod seed;
