//! The size DynamoDB gives an item and its index entries (what [`crate::bill`] bills by), and
//! the indexes a deployment of the template has.

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
pub(crate) fn projected_size(
    item: &Item,
    table_key: &[&str],
    index: &sam_template::Index,
) -> usize {
    item.iter()
        .filter(|(a, _)| projects(index, table_key, a))
        .map(|(k, v)| k.len() + value_size(v))
        .sum()
}

/// The attributes of `item` that `index` projects, by name: what its entry holds, to tell an
/// entry rewritten unchanged from one that changed.
pub(crate) fn projected<'i>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bill::tests::{gsi1, item};

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
}
