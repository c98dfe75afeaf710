//! Wire formats: how records read from the table are shown to clients (camelCase JSON). Items
//! keep the seeds' PascalCase attribute names (declared in `model`); the API speaks camelCase,
//! and this is its contract, kept apart from how items are stored. Each context shows its own
//! records (`functions/<context>/src/views.rs`); here are the shapes they share: a derived value
//! and its drift note, a counter kept on write shards.

use model::Derived;
use serde_json::Value;

/// Where a view notes the derived values it could not show (removed by [`crate::json`], which
/// names them in a header).
pub const DRIFT: &str = "_drift";

/// A derived value as shown: the number, or `null` when it drifted (noted in `drift` under `name`).
pub fn derived(value: &Derived, name: &'static str, drift: &mut Vec<&'static str>) -> Value {
    match value.value() {
        Some(n) => n.into(),
        None => {
            drift.push(name);
            Value::Null
        }
    }
}

/// Adds a view's drift note to its object (nothing when nothing drifted).
pub fn with_drift(mut view: Value, drift: Vec<&'static str>) -> Value {
    if !drift.is_empty() {
        view[DRIFT] = drift.into();
    }
    view
}

/// A counter kept on write shards, as shown: `identity` (its `date`, its `productId`) and each of
/// `totals` (attribute, name) summed over `shards` in one BatchGetItem
/// ([`store::aggregate::sum_shards`]), a drifted one `null` and noted as [`derived`] notes it.
pub async fn sharded_counter(
    table: &store::Table,
    shards: &[keys::PrimaryKey],
    identity: Value,
    totals: &[(&'static str, &'static str)],
) -> Result<Value, crate::ApiError> {
    let attributes: Vec<&'static str> = totals.iter().map(|(attribute, _)| *attribute).collect();
    let sums = store::aggregate::sum_shards(table, shards, &attributes).await?;
    let (mut view, mut drift) = (identity, Vec::new());
    for (attribute, name) in totals {
        view[*name] = derived(&sums[attribute], name, &mut drift);
    }
    Ok(with_drift(view, drift))
}

/// Removes every drift note from a response body, collecting the names.
pub fn take_drift(value: &mut Value, names: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(found)) = map.remove(DRIFT) {
                names.extend(
                    found
                        .into_iter()
                        .filter_map(|v| v.as_str().map(str::to_owned)),
                );
            }
            map.values_mut().for_each(|v| take_drift(v, names));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| take_drift(v, names)),
        _ => {}
    }
}
