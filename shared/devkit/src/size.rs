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
/// to the next 4 KB, half a unit per 4 KB when eventually consistent (Naylor's post). Reading
/// nothing still costs the minimum.
pub fn query_read_units(items: &[Item], consistent: bool) -> f64 {
    let bytes: usize = items.iter().map(item_size).sum();
    let blocks = bytes.div_ceil(4096).max(1) as f64;
    if consistent { blocks } else { blocks / 2.0 }
}
