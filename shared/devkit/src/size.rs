//! DynamoDB's own size and capacity arithmetic, so a test or a benchmark can state the minimum a
//! read should cost and compare it with what DynamoDB reports.

use aws_sdk_dynamodb::types::AttributeValue;
use model::Item;

/// The size DynamoDB bills for an item: the UTF-8 length of each attribute name plus its value's
/// size (strings: UTF-8 length; numbers: about 1 byte per 2 significant digits + 1; booleans and
/// nulls: 1; lists and maps: 3 + their elements, names included for maps, 1 byte per element).
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// The size of `item`'s entry in `index` of `table` (as the template declares them): the whole
/// item where the index projects `ALL`; the table's key attributes and the index's where it
/// projects `KEYS_ONLY`, and its `NonKeyAttributes` too with `INCLUDE`. AWS adds 100 bytes of
/// overhead per entry, not counted here.
pub fn index_entry_size(
    item: &Item,
    table: &sam_template::Table,
    index: &sam_template::Index,
) -> usize {
    if index.projection == "ALL" {
        return item_size(item);
    }
    projected_size(item, &table.key.attributes().collect::<Vec<_>>(), index)
}

/// Whether `index` holds attribute `name` of its items beside `table_key`: its key attributes
/// and, with `INCLUDE`, its `NonKeyAttributes` (every attribute with `ALL`).
fn projects(index: &sam_template::Index, table_key: &[&str], name: &str) -> bool {
    index.projection == "ALL"
        || table_key.contains(&name)
        || index.key.attributes().any(|a| a == name)
        || index.non_key_attributes.iter().any(|a| a == name)
}

/// The size of the attributes of `item` that `index` projects ([`projects`]).
fn projected_size(item: &Item, table_key: &[&str], index: &sam_template::Index) -> usize {
    item.iter()
        .filter(|(a, _)| projects(index, table_key, a))
        .map(|(k, v)| k.len() + value_size(v))
        .sum()
}

/// The attributes of `item` that `index` projects, by name: what its entry holds, to tell an
/// entry rewritten unchanged from one that changed.
fn projected<'i>(
    item: &'i Item,
    table_key: &[&str],
    index: &sam_template::Index,
) -> std::collections::BTreeMap<&'i str, &'i AttributeValue> {
    item.iter()
        .filter(|(a, _)| projects(index, table_key, a))
        .map(|(a, v)| (a.as_str(), v))
        .collect()
}

fn value_size(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(l) => l.iter().map(String::len).sum(),
        AttributeValue::Ns(l) => l.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(l) => l.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(l) => 3 + l.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| k.len() + value_size(v) + 1)
                .sum::<usize>()
        }
        _ => 0,
    }
}

fn number_size(n: &str) -> usize {
    let digits: String = n
        .trim_start_matches('-')
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    let negative = usize::from(n.starts_with('-'));
    significant.len().div_ceil(2) + 1 + negative
}

/// Read units a Query (or Scan) costs for the items it reads: their sizes summed, then rounded up
/// to the next 4 KB (Naylor's post), half a unit per 4 KB when eventually consistent (DynamoDB's
/// pricing; the post does not say it). Reading
/// nothing still costs the minimum.
pub fn query_read_units(items: &[Item], consistent: bool) -> f64 {
    read_units(items.iter().map(item_size).sum(), consistent)
}

/// Read units of `bytes` read in one request (a GetItem's item, a Query's items summed): 1 per
/// 4 KB rounded up, at least 1, half that when eventually consistent.
pub fn read_units(bytes: usize, consistent: bool) -> f64 {
    let blocks = bytes.div_ceil(4096).max(1) as f64;
    if consistent { blocks } else { blocks / 2.0 }
}

/// Write units of a transaction's ConditionCheck of an item of `bytes` (0: no such item): a
/// write action of the transaction, on the table only ([`write_units`]).
pub fn check_units(bytes: usize) -> f64 {
    2.0 * kb(bytes)
}

/// The global indexes of `template.yaml`'s default deployment: what a write is billed for, by
/// the cost tests and the capacity planner alike.
pub fn deployed_indexes() -> &'static [sam_template::Index] {
    static INDEXES: std::sync::OnceLock<Vec<sam_template::Index>> = std::sync::OnceLock::new();
    INDEXES.get_or_init(|| {
        sam_template::Template::workspace()
            .expect("template.yaml")
            .table
            .global_indexes
    })
}

/// `template.yaml` deployed with `IndexDesign` = `design` (its other parameters at their
/// defaults), read once a process.
pub fn template_in(design: keys::indexes::IndexDesign) -> &'static sam_template::Template {
    use keys::indexes::IndexDesign;
    static TEMPLATES: std::sync::OnceLock<Vec<sam_template::Template>> = std::sync::OnceLock::new();
    let all = TEMPLATES.get_or_init(|| {
        IndexDesign::ALL
            .iter()
            .map(|d| {
                sam_template::Template::workspace_with(&[(IndexDesign::PARAMETER, d.as_str())])
                    .expect("template.yaml")
            })
            .collect()
    });
    of_design(all, design)
}

/// `design`'s entry of `per_design`, which holds one for each of `IndexDesign::ALL`, in order.
pub fn of_design<T>(per_design: &[T], design: keys::indexes::IndexDesign) -> &T {
    let i = keys::indexes::IndexDesign::ALL
        .iter()
        .position(|d| *d == design)
        .expect("a design of IndexDesign::ALL");
    &per_design[i]
}

/// The global indexes of the table in [`template_in`] `design`: what a write is billed for in
/// that design.
pub fn deployed_indexes_in(design: keys::indexes::IndexDesign) -> &'static [sam_template::Index] {
    &template_in(design).table.global_indexes
}

/// Write units DynamoDB bills for one write request, from the items it touched
/// (`store::Table::recording_touched`), not from what DynamoDB Local reports (which counts a
/// transaction of 1 item and of 100 alike):
///
/// - on the table, each item `ceil(size / 1 KB)` units (at least 1), its size the larger of
///   before and after (a delete: the item deleted; DynamoDB's rule for PutItem and UpdateItem);
/// - on each global secondary index the item stands in before or after (it carries the
///   index's key attributes): a put, a delete, or both when its index key changed, each sized
///   as the index's entry of the item: the whole item where the index projects `ALL`, else the
///   table's keys, the index's keys and (`INCLUDE`) its `NonKeyAttributes`; nothing when the
///   entry is unchanged (an attribute the index does not project changed, or nothing did);
/// - in a transaction, twice all that, and a ConditionCheck as a write of the item checked (on
///   the table only): AWS bills 2 units per KB of every item of TransactWriteItems (a prepare
///   and a commit), and a ConditionCheck was measured on DynamoDB billed so. Whether a
///   transactional item's index copies are doubled AWS does not say; DynamoDB Local doubles
///   them, and a cost guard wants the upper bound, so they are.
pub fn write_units(request: &store::Request, indexes: &[sam_template::Index]) -> f64 {
    let transactional = request.operation == "TransactWriteItems";
    request
        .touched
        .iter()
        .flat_map(|t| touched_write_units(t, transactional, indexes))
        .map(|(_, units)| units)
        .sum()
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
            out.push((Some(index.name.as_str()), factor * units));
        }
    }
    out
}

/// Units of 1 KB a write of `bytes` takes: at least one.
fn kb(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned())))
            .collect()
    }

    fn gsi1() -> sam_template::Index {
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
        }
    }

    /// An entry holds what its index projects: the whole item (`ALL`), the table's and the
    /// index's keys (`KEYS_ONLY`), and with `INCLUDE` its `NonKeyAttributes` too.
    #[test]
    fn an_index_entry_holds_what_its_index_projects() {
        let table = sam_template::Table {
            key: sam_template::KeySchema {
                hash: "PK".into(),
                range: Some("SK".into()),
                partition: vec!["PK".into()],
                sort: vec!["SK".into()],
            },
            ..Default::default()
        };
        let line = item(&[
            ("PK", "ORDER#1"),
            ("SK", "ITEM#7"),
            ("GSI1PK", "P#7"),
            ("GSI1SK", "O#1"),
            ("Quantity", "2"),
            ("Note", "a long note"),
        ]);
        let mut index = gsi1();
        assert_eq!(index_entry_size(&line, &table, &index), item_size(&line));
        index.projection = "KEYS_ONLY".into();
        let keys = 2 + 7 + 2 + 6 + 6 + 3 + 6 + 3;
        assert_eq!(index_entry_size(&line, &table, &index), keys);
        index.projection = "INCLUDE".into();
        index.non_key_attributes = vec!["Quantity".into()];
        assert_eq!(index_entry_size(&line, &table, &index), keys + 8 + 1);
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
        // A delete removes the entry; in a transaction, twice.
        assert_eq!(
            item_write_units(Some(&more), None, false, true, &[index.clone()]),
            [(None, 6.0), (Some("OrderLinesByProduct"), 2.0)]
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
    fn writes_are_billed_per_item_per_kb_per_copy_and_doubled_in_transactions() {
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
        // Three items in a transaction: each copy doubled, the index's too.
        let txn = request(
            "TransactWriteItems",
            vec![put(small.clone()), put(big.clone()), put(indexed.clone())],
        );
        assert_eq!(write_units(&txn, &ix), 2.0 + 4.0 + 2.0 + 2.0);
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
