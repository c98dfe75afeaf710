//! What DynamoDB bills a request: one meter, by DynamoDB's rules, for every figure the project
//! states (the cost tables and the cost guard, the capacity planner's profiles and model, the
//! stream fan-out). `docs/billing.md` gives each rule its source, and says where the sources
//! conflict or AWS is silent and which reading is followed here; `tests/live_measurements.rs`
//! holds the meter to units measured on DynamoDB itself. DynamoDB Local's `ConsumedCapacity` is an
//! emulation (a transaction of one, two or three writes reported as 2 units, a BatchGetItem's
//! missing keys as free): it is shown beside, as a cross-check, never used.
//!
//! The meter bills what a request touched, as a recording table saw it ([`store::Request`]):
//! the items a read read (whole, whatever its projection) and the items a write changed, before
//! and after.

use aws_sdk_dynamodb::types::AttributeValue;
use model::Item;

use crate::size::{item_size, projected, projected_size};

/// Read and write units of one request.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Billed {
    pub read: f64,
    pub write: f64,
}

/// What DynamoDB bills `request`, its writes on `indexes` (the table's global indexes).
pub fn billed(request: &store::Request, indexes: &[sam_template::Index]) -> Billed {
    Billed {
        read: request_read_units(request),
        write: write_units(request, indexes),
    }
}

/// Blocks of 4 KB a read of `bytes` is billed: rounded up, at least one (a key that found
/// nothing, a Query that found nothing).
fn read_blocks(bytes: usize) -> f64 {
    bytes.div_ceil(4096).max(1) as f64
}

/// Read units of `bytes` read in one request (a GetItem's item, a Query's items summed): 1 per
/// 4 KB rounded up, at least 1, half that when eventually consistent.
pub fn read_units(bytes: usize, consistent: bool) -> f64 {
    let blocks = read_blocks(bytes);
    if consistent { blocks } else { blocks / 2.0 }
}

/// Read units a Query (or Scan) costs for the items it evaluated: their sizes summed, then
/// rounded up to 4 KB (nothing found: the minimum).
pub fn query_read_units(items: &[Item], consistent: bool) -> f64 {
    read_units(items.iter().map(item_size).sum(), consistent)
}

/// Read units of a read request, from what it read ([`store::Request::read`]):
///
/// - GetItem, BatchGetItem: each item on its own, rounded up to 4 KB; a key that found nothing,
///   the minimum;
/// - Query, Scan: the items' sizes summed, then rounded up to 4 KB; nothing found, the minimum;
/// - TransactGetItems: 2 units per 4 KB of each item, a missing one 2;
/// - a TransactWriteItems DynamoDB answered as a replay of one it had applied (the same
///   `ClientRequestToken`): reads, 2 units per 4 KB of each item's larger image.
///
/// Half a unit per 4 KB when eventually consistent (not in a transaction). A write bills none.
pub fn request_read_units(r: &store::Request) -> f64 {
    let size = |item: &Option<Item>| item.as_ref().map_or(0, item_size);
    match r.operation {
        "GetItem" | "BatchGetItem" => r
            .read
            .iter()
            .map(|item| read_units(size(item), r.consistent))
            .sum(),
        "Query" | "Scan" => read_units(r.read.iter().map(size).sum(), r.consistent),
        "TransactGetItems" => r
            .read
            .iter()
            .map(|item| 2.0 * read_blocks(size(item)))
            .sum(),
        "TransactWriteItems" if r.replayed => r
            .touched
            .iter()
            .map(|t| 2.0 * read_blocks(size(&t.before).max(size(&t.after))))
            .sum(),
        _ => 0.0,
    }
}

/// Write units of a transaction's ConditionCheck of an item of `bytes` (0: no such item): a
/// transactional write of the item checked, on the table only.
pub fn check_units(bytes: usize) -> f64 {
    2.0 * kb(bytes)
}

/// Write units DynamoDB bills for one write request, from the items it touched
/// (`store::Table::recording_touched`):
///
/// - on the table, each item `ceil(size / 1 KB)` units (at least 1), its size the larger of
///   before and after (a delete: the item deleted);
/// - on each global secondary index the item stands in before or after (it carries the
///   index's key attributes): a put, a delete, or both when its index key changed, each sized
///   as the index's entry of the item; the larger of the two when the key stayed and the entry
///   changed; nothing when the entry is unchanged;
/// - in a transaction, the table's write twice (a prepare and a commit), its index entries as
///   outside one; a ConditionCheck a transactional write of the item checked, on the table only;
/// - a transaction DynamoDB answered as a replay: no write ([`request_read_units`]);
/// - a single-item write its condition refused: the table's write of the larger of the stored
///   item and the one sent (the item as it is, for an update or a delete), no index's.
pub fn write_units(request: &store::Request, indexes: &[sam_template::Index]) -> f64 {
    request
        .touched
        .iter()
        .flat_map(|t| request_touched_units(request, t, indexes))
        .map(|(_, units)| units)
        .sum()
}

/// [`write_units`] of one item `request` touched, where they fall (as
/// [`touched_write_units`]): what a replay or a refused write makes of it included.
pub fn request_touched_units<'a>(
    request: &store::Request,
    t: &store::Touched,
    indexes: &'a [sam_template::Index],
) -> Vec<(Option<&'a str>, f64)> {
    let transactional = request.operation == "TransactWriteItems";
    if transactional && request.replayed {
        return Vec::new();
    }
    if request.refused {
        let size = |i: &Option<Item>| i.as_ref().map_or(0, item_size);
        return vec![(None, kb(size(&t.before).max(size(&t.after))))];
    }
    touched_write_units(t, transactional, indexes)
}

/// [`write_units`] of one item written, where they fall: on the table (`None`) and on each index
/// it stands in (`Some(name)`), none listed with 0. The capacity planner bills its model's
/// writes with this same rule.
pub fn touched_write_units<'a>(
    t: &store::Touched,
    transactional: bool,
    indexes: &'a [sam_template::Index],
) -> Vec<(Option<&'a str>, f64)> {
    item_write_units(
        t.before.as_ref(),
        t.after.as_ref(),
        t.checked,
        transactional,
        indexes,
    )
}

/// [`touched_write_units`] of an item as it was (`before`) and is (`after`), borrowed: what the
/// capacity planner bills each write of its model with, millions of times a plan.
pub fn item_write_units<'a>(
    before: Option<&Item>,
    after: Option<&Item>,
    checked: bool,
    transactional: bool,
    indexes: &'a [sam_template::Index],
) -> Vec<(Option<&'a str>, f64)> {
    // A transaction writes the table's item twice (a prepare and a commit); its index entries
    // once, as outside one (measured on DynamoDB: docs/billing.md).
    let factor = if transactional { 2.0 } else { 1.0 };
    let (old, new) = (before.map_or(0, item_size), after.map_or(0, item_size));
    let bytes = old.max(new);
    if checked {
        return vec![(None, check_units(bytes))];
    }
    let mut out = vec![(None, factor * kb(bytes))];
    let same = before == after;
    let table_key = [keys::attr::PK, keys::attr::SK];
    for index in indexes {
        fn key<'i>(
            index: &sam_template::Index,
            image: Option<&'i Item>,
        ) -> Option<Vec<&'i AttributeValue>> {
            let item = image?;
            index.key.attributes().map(|a| item.get(a)).collect()
        }
        let key = |image| key(index, image);
        let (old_key, new_key) = (key(before), key(after));
        if old_key.is_none() && new_key.is_none() {
            continue;
        }
        // Each image's entry in the index: the whole item, or what the index projects of it.
        let (old_entry, new_entry, unchanged) = if index.projection == "ALL" {
            (old, new, same)
        } else {
            let size =
                |image: Option<&Item>| image.map_or(0, |i| projected_size(i, &table_key, index));
            let unchanged = before.map(|i| projected(i, &table_key, index))
                == after.map(|i| projected(i, &table_key, index));
            (size(before), size(after), unchanged)
        };
        let units = match (old_key, new_key) {
            (None, None) => 0.0,
            (None, Some(_)) => kb(new_entry),
            (Some(_), None) => kb(old_entry),
            (Some(_), Some(_)) if unchanged => 0.0,
            (Some(o), Some(n)) if o == n => kb(old_entry).max(kb(new_entry)),
            (Some(_), Some(_)) => kb(old_entry) + kb(new_entry),
        };
        if units > 0.0 {
            out.push((Some(index.name.as_str()), units));
        }
    }
    out
}

/// Units of 1 KB a write of `bytes` takes: at least one.
fn kb(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn item(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned())))
            .collect()
    }

    pub(crate) fn gsi1() -> sam_template::Index {
        sam_template::Index {
            name: "GSI1".into(),
            key: sam_template::KeySchema {
                hash: "GSI1PK".into(),
                range: Some("GSI1SK".into()),
                partition: vec!["GSI1PK".into()],
                sort: vec!["GSI1SK".into()],
            },
            projection: "ALL".into(),
            non_key_attributes: Vec::new(),
            warm: None,
        }
    }

    /// An index that does not project `ALL` is written its entry (the table's keys, its keys and
    /// its `INCLUDE` attributes), not the item; a write that leaves the entry as it was costs it
    /// nothing, one that changes a projected attribute rewrites it.
    #[test]
    fn an_index_of_keys_or_a_few_attributes_is_billed_for_its_entry() {
        let line = |quantity: &str, note: &str| {
            item(&[
                ("PK", "ORDER#1"),
                ("SK", "ITEM#7"),
                ("Sku", "7"),
                ("OrderId", "1"),
                ("Quantity", quantity),
                ("Note", note),
            ])
        };
        let mut index = sam_template::Index {
            name: "OrderLinesByProduct".into(),
            key: sam_template::KeySchema {
                hash: "Sku".into(),
                range: Some("OrderId".into()),
                partition: vec!["Sku".into()],
                sort: vec!["OrderId".into()],
            },
            projection: "INCLUDE".into(),
            non_key_attributes: vec!["Quantity".into()],
            warm: None,
        };
        // A 3 KB note: 3 units on the table, the entry's 1 on the index.
        let (big, bigger) = (line("2", &"x".repeat(3000)), line("2", &"y".repeat(3000)));
        let on = |before: Option<&Item>, after: Option<&Item>, index: &sam_template::Index| {
            item_write_units(before, after, false, false, std::slice::from_ref(index))
                .into_iter()
                .map(|(i, u)| (i.map(str::to_owned), u))
                .collect::<Vec<_>>()
        };
        let ix = |units: f64| (Some("OrderLinesByProduct".to_owned()), units);
        assert_eq!(on(None, Some(&big), &index), [(None, 3.0), ix(1.0)]);
        // The note changed, the entry did not: the table only.
        assert_eq!(on(Some(&big), Some(&bigger), &index), [(None, 3.0)]);
        // The quantity is projected: the entry is rewritten.
        let more = line("3", &"y".repeat(3000));
        assert_eq!(
            on(Some(&bigger), Some(&more), &index),
            [(None, 3.0), ix(1.0)]
        );
        // Keys only: the quantity is not projected either.
        index.projection = "KEYS_ONLY".into();
        index.non_key_attributes.clear();
        assert_eq!(on(Some(&bigger), Some(&more), &index), [(None, 3.0)]);
        // A delete removes the entry; in a transaction, the table's write twice, the entry's
        // once.
        assert_eq!(
            item_write_units(Some(&more), None, false, true, &[index.clone()]),
            [(None, 6.0), (Some("OrderLinesByProduct"), 1.0)]
        );
        // The same writes through an index that projects ALL: the item, every time.
        index.projection = "ALL".into();
        assert_eq!(
            on(Some(&bigger), Some(&more), &index),
            [(None, 3.0), ix(3.0)]
        );
        assert_eq!(
            on(Some(&big), Some(&bigger), &index),
            [(None, 3.0), ix(3.0)]
        );
    }

    fn request(operation: &'static str, touched: Vec<store::Touched>) -> store::Request {
        store::Request {
            items: touched.len(),
            touched,
            ..store::Request::new(operation)
        }
    }

    fn put(after: Item) -> store::Touched {
        store::Touched {
            before: None,
            after: Some(after),
            checked: false,
        }
    }

    #[test]
    fn writes_are_billed_per_item_per_kb_per_copy_the_tables_doubled_in_transactions() {
        let small = item(&[("PK", "A"), ("SK", "1")]);
        let big = item(&[("PK", "A"), ("SK", "2"), ("Text", &"x".repeat(2000))]);
        let indexed = item(&[("PK", "A"), ("SK", "3"), ("GSI1PK", "G"), ("GSI1SK", "1")]);
        let moved = item(&[("PK", "A"), ("SK", "3"), ("GSI1PK", "H"), ("GSI1SK", "1")]);
        let ix = [gsi1()];
        // 1 KB on the table; 2 KB (2,015 bytes) on the table; the table and GSI1.
        assert_eq!(
            write_units(&request("PutItem", vec![put(small.clone())]), &ix),
            1.0
        );
        assert_eq!(
            write_units(&request("PutItem", vec![put(big.clone())]), &ix),
            2.0
        );
        assert_eq!(
            write_units(&request("PutItem", vec![put(indexed.clone())]), &ix),
            2.0
        );
        // Three items in a transaction: each item's table write doubled, its index entry not.
        let txn = request(
            "TransactWriteItems",
            vec![put(small.clone()), put(big.clone()), put(indexed.clone())],
        );
        assert_eq!(write_units(&txn, &ix), 2.0 + 4.0 + 2.0 + 1.0);
        // A ConditionCheck: a transactional write of the item checked, never an index's.
        let check = store::Touched {
            before: Some(indexed.clone()),
            after: Some(indexed.clone()),
            checked: true,
        };
        assert_eq!(
            write_units(&request("TransactWriteItems", vec![check]), &ix),
            2.0
        );
        // The index key moves: a delete and a put in the index; the item leaves it: a delete.
        let update = |before: &Item, after: Option<&Item>| store::Touched {
            before: Some(before.clone()),
            after: after.cloned(),
            checked: false,
        };
        assert_eq!(
            write_units(
                &request("UpdateItem", vec![update(&indexed, Some(&moved))]),
                &ix
            ),
            3.0
        );
        assert_eq!(
            write_units(&request("DeleteItem", vec![update(&indexed, None)]), &ix),
            2.0
        );
        // Rewritten unchanged: the table is billed, the index is not written.
        assert_eq!(
            write_units(
                &request("PutItem", vec![update(&indexed, Some(&indexed))]),
                &ix
            ),
            1.0
        );
        // Shrunk from 2 KB to 1 KB: billed at the larger.
        assert_eq!(
            write_units(&request("PutItem", vec![update(&big, Some(&small))]), &ix),
            2.0
        );
        // A delete of nothing still costs the minimum.
        let nothing = store::Touched {
            before: None,
            after: None,
            checked: false,
        };
        assert_eq!(write_units(&request("DeleteItem", vec![nothing]), &ix), 1.0);
    }
}
