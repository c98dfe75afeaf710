//! The realistic inputs: the `LastEvaluatedKey`s R1 and O5 put in their cursors, made by the
//! product's key builders, and the texts the rule reads (names that become keys, a username in
//! a path, a review's text of the longest length a review may have).

use keys::{
    Id, Shard, Timestamp,
    commerce::{self as k, OrderStatus},
    reviews::{self as r, Isbn},
};
use model::{Item, key_item};
use store::merge::{Position, Positions};

/// A username of the longest length an id may have.
pub fn username() -> String {
    "reader-".repeat(10)[..keys::MAX_ID_LEN].to_owned()
}

/// R1's binding and the key a page of a book's reviews stops at: `BOOK#<isbn>`,
/// `<date>#USER#<username>`.
pub fn r1_cursor() -> (String, Item) {
    let isbn = Isbn::parse("9780261102354").expect("an ISBN");
    let user = Id::parse("username", &username()).expect("a username");
    let at = Timestamp::parse("2003-03-14T18:30:00.000Z").expect("a timestamp");
    (
        format!("R1|{isbn}|10"),
        key_item(&r::review(&isbn, &user, at)),
    )
}

/// O5's binding and merged cursor after a first page: each of the 15 shards stands after an
/// order header it returned (the header's table key and its GSI2 key, as a GSI query's
/// `LastEvaluatedKey` holds them).
pub fn o5_cursor() -> (String, Item) {
    let count = k::DEFAULT_ORDER_STATUS_SHARDS;
    // 2020-12-31T00:00:00Z, the sample event's range, minutes apart.
    let mut ms = 1_609_372_800_000;
    let positions = Shard::all(count)
        .map(|shard| {
            let order = loop {
                ms -= 60_000;
                let order = k::OrderId::at_ms(ms);
                if k::order_status_shard(order, count) == shard {
                    break order;
                }
            };
            let mut key = key_item(&k::order_header(order));
            key.extend(key_item(&k::order_status_index(
                shard,
                order,
                OrderStatus::Open,
            )));
            Position::After(key)
        })
        .collect();
    (
        "O5|OPEN|2020-11-01|2020-12-31|20".into(),
        Positions(positions).to_item(),
    )
}

/// The longest review text.
pub const REVIEW_CHARS: usize = model::reviews::Review::MAX_TEXT_CHARS;

/// Lines of a review in several scripts, NFC as keyboards type them: Latin with accents, Greek,
/// Cyrillic, Arabic, Persian (a zero-width non-joiner inside a word), Devanagari, CJK, Hangul,
/// and emoji sequences (a variation selector, zero-width joiners).
const MIXED: &[&str] = &[
    "This book changed how I model data: single-table design finally made sense.\n",
    "Un livre remarquable : clair, précis, plein d'exemples concrets. À recommander.\n",
    "Für Einsteiger etwas schwer, aber die Kapitel über Schlüsselentwurf sind großartig.\n",
    "Πολύ καλό βιβλίο για τον σχεδιασμό βάσεων δεδομένων.\n",
    "Отличная книга о проектировании таблиц, всем советую.\n",
    "كتاب رائع عن تصميم قواعد البيانات.\n",
    "می\u{200C}خواهم این کتاب را دوباره بخوانم.\n",
    "डेटा मॉडलिंग पर एक बेहतरीन किताब।\n",
    "単一テーブル設計がよく分かる良書です。\n",
    "非常好的一本书，强烈推荐！\n",
    "정말 좋은 책입니다.\n",
    "Loved it \u{2764}\u{FE0F} \u{1F469}\u{200D}\u{1F4BB} \u{1F3F3}\u{FE0F}\u{200D}\u{1F308}\n",
];

const ASCII: &[&str] = &[
    "This book changed how I model data: single-table design finally made sense.\n",
    "The chapters on key design and access patterns are worth the price alone.\n",
    "Some examples are dated, but the reasoning behind them still holds.\n",
];

/// A review of exactly [`REVIEW_CHARS`] characters: whole lines, cycled, then ASCII to fill.
fn review(lines: &[&str]) -> String {
    let (mut text, mut chars) = (String::new(), 0);
    for line in lines.iter().cycle() {
        let n = line.chars().count();
        if chars + n > REVIEW_CHARS {
            break;
        }
        text.push_str(line);
        chars += n;
    }
    let filler = ASCII.concat().repeat(2);
    text.push_str(&filler[..REVIEW_CHARS - chars]);
    text
}

pub fn mixed_review() -> String {
    review(MIXED)
}

pub fn ascii_review() -> String {
    review(ASCII)
}

/// The review's body as a client sends it.
pub fn review_body(text: &str) -> String {
    serde_json::json!({"grade": 5, "text": text}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::unicode::{self, Lines};

    /// The inputs are what they say: reviews of the longest length, text the rule accepts as it
    /// is (the accepted path, the common one), cursors the codec takes.
    #[test]
    fn the_inputs_are_realistic() {
        for text in [mixed_review(), ascii_review()] {
            assert_eq!(text.chars().count(), REVIEW_CHARS);
            assert_eq!(unicode::refused(&text, Lines::Many), None);
            assert!(matches!(unicode::nfc(&text), std::borrow::Cow::Borrowed(_)));
        }
        assert!(!mixed_review().is_ascii());
        assert!(ascii_review().is_ascii());
        let (_, r1) = r1_cursor();
        assert!(
            r1["SK"]
                .as_s()
                .unwrap()
                .ends_with(&format!("#USER#{}", username()))
        );
        let (_, o5) = o5_cursor();
        assert_eq!(o5.len(), 15 * 4, "four key attributes per shard");
    }
}
