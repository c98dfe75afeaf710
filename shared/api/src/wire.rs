//! Wire formats: how records read from the table are shown to clients (camelCase JSON). Items
//! keep PascalCase attribute names (declared in `model`); the API speaks camelCase,
//! and this is its contract, kept apart from how items are stored. Each context shows its own
//! records (`functions/<context>/src/views.rs`); here are the shapes they share: a derived value
//! and its drift note, a counter kept on write shards.

use std::borrow::Cow;

use model::Derived;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;

/// Where a view notes the derived values it could not show (removed by [`crate::json`], which
/// names them in a header).
pub const DRIFT: &str = "_drift";

/// The drift note of a view: the derived values it could not show. A view's field
/// `#[serde(rename = "_drift", skip_serializing_if = "Vec::is_empty")] #[schemars(skip)]`, which
/// [`crate::json`] removes from the body and names in a header: never part of the contract.
pub type Drift = Vec<&'static str>;

/// A paginated route's answer, declared in one line: the fields that say what is listed, the
/// list, and `nextCursor` (added here, [`NextCursor`]), serialised camelCase, its schema inline
/// in the operation:
///
/// ```ignore
/// api::page! { /// A page of one owner's records.
///     Page { owner_id: keys::Id, records: Vec<view::Record> } }
/// ```
///
/// A page may borrow what it names: `Page<'a> { course_key: &'a str, .. }`.
#[macro_export]
macro_rules! page {
    ($(#[$meta:meta])* $name:ident $(<$lt:lifetime>)? { $($(#[$field_meta:meta])* $field:ident: $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        #[derive(serde::Serialize, schemars::JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(inline)]
        struct $name $(<$lt>)? {
            $($(#[$field_meta])* $field: $ty,)*
            #[schemars(with = "api::wire::NextCursor")]
            next_cursor: Option<String>,
        }
    };
}

/// A derived value as shown: the number, or `null` when it drifted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct DerivedInteger(pub Option<i64>);

impl JsonSchema for DerivedInteger {
    fn schema_name() -> Cow<'static, str> {
        "DerivedInteger".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A value the stream handlers derive (a count, or a sum in cents). `null` when what is stored cannot be right (negative, not an integer, a sum that overflows: drift after an incident); the answer then names the field in the `X-Derived-Inconsistent` header, and `make reconcile REPAIR=1` (or the next matching stream record) heals it.\n",
            "type": ["integer", "null"],
            "minimum": 0,
        })
    }
}

impl From<DerivedInteger> for Value {
    fn from(shown: DerivedInteger) -> Value {
        shown.0.map_or(Value::Null, Value::from)
    }
}

/// The `nextCursor` of a page, for a field's `#[schemars(with = "api::wire::NextCursor")]`.
pub struct NextCursor;

impl JsonSchema for NextCursor {
    fn schema_name() -> Cow<'static, str> {
        "NextCursor".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "the cursor of the next page, or null on the last",
            "type": ["string", "null"],
        })
    }
}

/// A derived value as shown: the number, or `null` when it drifted (noted in `drift` under `name`).
pub fn derived(value: &Derived, name: &'static str, drift: &mut Drift) -> DerivedInteger {
    let shown = value.value();
    if shown.is_none() {
        drift.push(name);
    }
    DerivedInteger(shown)
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
    let totals: Vec<_> = totals.iter().map(|(a, n)| (table, *a, *n)).collect();
    sharded_counter_across(shards, identity, &totals).await
}

/// The same, each total (table, attribute, name) read from its own table: with `TableLayout`
/// table-per-context a day's counts are kept in the table of each context whose consumer counts
/// them. One BatchGetItem per table, the tables' at once; one in all with one table.
pub async fn sharded_counter_across(
    shards: &[keys::PrimaryKey],
    identity: Value,
    totals: &[(&store::Table, &'static str, &'static str)],
) -> Result<Value, crate::ApiError> {
    let mut by_table: Vec<(&store::Table, Vec<&'static str>)> = Vec::new();
    for (table, attribute, _) in totals {
        match by_table.iter_mut().find(|(t, _)| t.name() == table.name()) {
            Some((_, attributes)) => attributes.push(attribute),
            None => by_table.push((table, vec![attribute])),
        }
    }
    let reads = by_table
        .iter()
        .map(|(table, attributes)| store::aggregate::sum_shards(table, shards, attributes));
    let mut sums = std::collections::BTreeMap::new();
    for read in futures::future::try_join_all(reads).await? {
        sums.extend(read);
    }
    let (mut view, mut drift) = (identity, Vec::new());
    for (_, attribute, name) in totals {
        view[*name] = derived(&sums[attribute], name, &mut drift).into();
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
