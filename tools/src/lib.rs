//! Maintenance commands of the Makefile, and the seeds' example data they load.

pub mod seed;
