//! Maintenance commands of the Makefile: the seeds' example data (`make seed`), the drift
//! report of the derived data (`make reconcile`) and the certificate migration (`make migrate`).

pub mod migrate;
pub mod org;
pub mod reconcile;
pub mod seed;
pub mod workbench;

/// The table a command works on: `--table NAME`, or the local stack's `local-table`.
pub fn table_from_args(args: &[String]) -> store::Table {
    let name = args
        .iter()
        .position(|a| a == "--table")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "local-table".into());
    store::Table::new(dev::client(), name)
}
