//! What every check of `make reconcile` compares: values by a readable name. Its own module, so
//! that the checks beside reconcile (`copies`, `counts`) and reconcile itself, which runs them,
//! share it without importing each other.

use std::collections::BTreeMap;

/// Every derived value, by a readable name (`customer 123 OrderCount`), as text.
pub type Values = BTreeMap<String, String>;
