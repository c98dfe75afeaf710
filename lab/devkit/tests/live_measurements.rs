//! The meter ([`devkit::bill`]) held to units measured on DynamoDB itself: each case below is a
//! request whose `ConsumedCapacity` was captured from live DynamoDB and published (the source is
//! named beside it, and listed in `docs/billing.md`), written here as a request the meter bills.
//! A case the meter bills otherwise fails the test: the meter follows what DynamoDB bills, not
//! what DynamoDB Local reports.
//!
//! The captures' table: a key of `PK` and `SK`, and one global index, `gsi`, keyed on `gsiPk`
//! and projecting `proj` (`INCLUDE`), as the emulator's measurements were made; items of the
//! sizes the sources state (within the same 1 KB or 4 KB step).

use aws_sdk_dynamodb::types::AttributeValue;
use devkit::bill;
use model::Item;
use store::{Request, Touched};

/// The sources' short names, as `docs/billing.md` lists them.
const DYNOXIDE: &str = "nubo-db/dynoxide PR #188";
const PARITY: &str = "paritysuite/dynamodb-conformance";
const AWS_DOCS: &str = "AWS, read-write-operations";
const AWS_TXN: &str = "AWS, transaction-apis";
const TOOLKIT: &str = "aws/agent-toolkit-for-aws";

/// The sources the cases cite (a test checks that `docs/billing.md` names each).
const SOURCES: [&str; 5] = [DYNOXIDE, PARITY, AWS_DOCS, AWS_TXN, TOOLKIT];

fn gsi() -> sam_template::Index {
    sam_template::Index {
        name: "gsi".into(),
        key: sam_template::KeySchema {
            hash: "gsiPk".into(),
            range: None,
            partition: vec!["gsiPk".into()],
            sort: Vec::new(),
        },
        projection: "INCLUDE".into(),
        non_key_attributes: vec!["proj".into()],
        warm: None,
    }
}

/// An item of `bytes` bytes in all (as DynamoDB sizes it): its key, `gsiPk` if given (in the
/// index), a `proj` of `proj` bytes (projected), padded with an attribute the index does not
/// project.
fn item(sk: &str, gsi_pk: Option<&str>, proj: usize, bytes: usize) -> Item {
    let mut item: Item = [("PK", "p"), ("SK", sk)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.to_owned())))
        .collect();
    if let Some(g) = gsi_pk {
        item.insert("gsiPk".into(), AttributeValue::S(g.into()));
    }
    if proj > 0 {
        item.insert("proj".into(), AttributeValue::S("x".repeat(proj - 4)));
    }
    let so_far = devkit::item_size(&item);
    assert!(
        so_far + 4 <= bytes,
        "an item of {bytes} bytes cannot hold {so_far}"
    );
    item.insert(
        "pad".into(),
        AttributeValue::S("y".repeat(bytes - so_far - 3)),
    );
    assert_eq!(devkit::item_size(&item), bytes);
    item
}

/// A small item in the index (its entry well under 1 KB).
fn member(sk: &str, g: &str) -> Item {
    item(sk, Some(g), 20, 200)
}

/// A small item in no index.
fn plain(sk: &str) -> Item {
    item(sk, None, 20, 200)
}

fn touched(before: Option<&Item>, after: Option<&Item>) -> Touched {
    Touched {
        before: before.cloned(),
        after: after.cloned(),
        checked: false,
    }
}

fn check(of: Option<&Item>) -> Touched {
    Touched {
        before: of.cloned(),
        after: of.cloned(),
        checked: true,
    }
}

fn write(operation: &'static str, touched: Vec<Touched>) -> Request {
    Request {
        items: touched.len(),
        touched,
        ..Request::new(operation)
    }
}

/// (table, index) write units of a request, as the meter splits them.
fn arms(r: &Request) -> (f64, f64) {
    let indexes = [gsi()];
    let transactional = r.operation == "TransactWriteItems";
    let mut out = (0.0, 0.0);
    for t in &r.touched {
        for (index, units) in devkit::touched_write_units(t, transactional, &indexes) {
            match index {
                None => out.0 += units,
                Some(_) => out.1 += units,
            }
        }
    }
    assert_eq!(
        out.0 + out.1,
        bill::write_units(r, &indexes),
        "the arms sum to the bill"
    );
    out
}

/// A write case: its source, what it is, the request, and the table's and the index's write
/// units measured.
struct Write {
    source: &'static str,
    case: &'static str,
    request: Request,
    measured: (f64, f64),
}

fn writes() -> Vec<Write> {
    let w = |source, case, request, measured| Write {
        source,
        case,
        request,
        measured,
    };
    let (a, a2) = (member("a", "g1"), member("a", "g2"));
    let p = plain("p");
    let a_proj_changed = item("a", Some("g1"), 40, 200);
    let a_pad_changed = {
        let mut i = a.clone();
        i.insert("pad".into(), AttributeValue::S("z".repeat(150)));
        i
    };
    let a_out = plain("a");
    // Larger items: 3 KB with a small entry, 3 KB entries, 1.5 KB entries, 9 KB.
    let big = item("b", Some("g1"), 20, 3023);
    let big_entry = item("c", Some("g1"), 3000, 3017);
    let big_entry_small = item("c", Some("g1"), 5, 3017);
    let mid = item("d", Some("g1"), 1490, 1517);
    let mid_changed = item("d", Some("g1"), 1489, 1517);
    let mid_moved = item("d", Some("g2"), 1490, 1517);
    // Its entry moved to another key and a few bytes (the item 200 bytes).
    let small_entry_moved = item("c", Some("g2"), 5, 200);
    let shrunk = item("b", None, 20, 117);
    let wide = item("b", None, 20, 2017);
    let three = item("t", None, 20, 3000);
    let nine = item("n", None, 20, 9000);
    let nine_small = item("n", None, 20, 500);
    vec![
        // Single-item writes, sub-1 KB.
        w(
            DYNOXIDE,
            "PutItem of an index member",
            write("PutItem", vec![touched(None, Some(&a))]),
            (1.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "PutItem in no index",
            write("PutItem", vec![touched(None, Some(&p))]),
            (1.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "identical overwrite",
            write("PutItem", vec![touched(Some(&a), Some(&a))]),
            (1.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "update of an attribute the index does not project",
            write("UpdateItem", vec![touched(Some(&a), Some(&a_pad_changed))]),
            (1.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "update of a projected attribute",
            write("UpdateItem", vec![touched(Some(&a), Some(&a_proj_changed))]),
            (1.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "index key moved",
            write("UpdateItem", vec![touched(Some(&a), Some(&a2))]),
            (1.0, 2.0),
        ),
        w(
            DYNOXIDE,
            "index key removed",
            write("UpdateItem", vec![touched(Some(&a), Some(&a_out))]),
            (1.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "DeleteItem of an index member",
            write("DeleteItem", vec![touched(Some(&a), None)]),
            (1.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "DeleteItem in no index",
            write("DeleteItem", vec![touched(Some(&p), None)]),
            (1.0, 0.0),
        ),
        // Sizing.
        w(
            DYNOXIDE,
            "PutItem of 3,023 bytes, an entry of a few bytes",
            write("PutItem", vec![touched(None, Some(&big))]),
            (3.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "an entry of 3 KB shrunk in place",
            write(
                "UpdateItem",
                vec![touched(Some(&big_entry), Some(&big_entry_small))],
            ),
            (3.0, 3.0),
        ),
        w(
            DYNOXIDE,
            "an entry of 1,517 bytes changed in place",
            write("UpdateItem", vec![touched(Some(&mid), Some(&mid_changed))]),
            (2.0, 2.0),
        ),
        w(
            DYNOXIDE,
            "an entry of 1,517 bytes moved to another key",
            write("UpdateItem", vec![touched(Some(&mid), Some(&mid_moved))]),
            (2.0, 4.0),
        ),
        w(
            DYNOXIDE,
            "an entry of 3 KB moved, smaller after",
            write(
                "UpdateItem",
                vec![touched(Some(&big_entry), Some(&small_entry_moved))],
            ),
            (3.0, 4.0),
        ),
        w(
            DYNOXIDE,
            "DeleteItem of a 3 KB entry",
            write("DeleteItem", vec![touched(Some(&big_entry), None)]),
            (3.0, 3.0),
        ),
        w(
            DYNOXIDE,
            "a table item of 2,017 bytes shrunk to 117",
            write("PutItem", vec![touched(Some(&wide), Some(&shrunk))]),
            (2.0, 0.0),
        ),
        w(
            AWS_DOCS,
            "BatchWriteItem of 500 bytes and 3.5 KB: 5 units",
            write(
                "BatchWriteItem",
                vec![
                    touched(None, Some(&item("e", None, 20, 500))),
                    touched(None, Some(&item("f", None, 20, 3584))),
                ],
            ),
            (5.0, 0.0),
        ),
        // Transactions: the table's write twice, an index entry once.
        w(
            DYNOXIDE,
            "TransactWriteItems: Put of an index member",
            write("TransactWriteItems", vec![touched(None, Some(&a))]),
            (2.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: Put in no index",
            write("TransactWriteItems", vec![touched(None, Some(&p))]),
            (2.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: identical overwrite",
            write("TransactWriteItems", vec![touched(Some(&a), Some(&a))]),
            (2.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: update outside the projection",
            write(
                "TransactWriteItems",
                vec![touched(Some(&a), Some(&a_pad_changed))],
            ),
            (2.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: index key moved",
            write("TransactWriteItems", vec![touched(Some(&a), Some(&a2))]),
            (2.0, 2.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: Delete of an index member",
            write("TransactWriteItems", vec![touched(Some(&a), None)]),
            (2.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: ConditionCheck",
            write("TransactWriteItems", vec![check(Some(&a))]),
            (2.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: two Puts of index members",
            write(
                "TransactWriteItems",
                vec![
                    touched(None, Some(&a)),
                    touched(None, Some(&member("b", "g1"))),
                ],
            ),
            (4.0, 2.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: Put shrinking a 3 KB item",
            write(
                "TransactWriteItems",
                vec![touched(Some(&three), Some(&plain("t")))],
            ),
            (6.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: Delete of a 3 KB item",
            write("TransactWriteItems", vec![touched(Some(&three), None)]),
            (6.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: an entry of 1,517 bytes moved",
            write(
                "TransactWriteItems",
                vec![touched(Some(&mid), Some(&mid_moved))],
            ),
            (4.0, 4.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: ConditionCheck of a 3 KB item",
            write("TransactWriteItems", vec![check(Some(&three))]),
            (6.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: Update that creates an index member",
            write("TransactWriteItems", vec![touched(None, Some(&a))]),
            (2.0, 1.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: Delete of a missing item",
            write("TransactWriteItems", vec![touched(None, None)]),
            (2.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems: identical overwrite of a 3 KB item",
            write(
                "TransactWriteItems",
                vec![touched(Some(&three), Some(&three))],
            ),
            (6.0, 0.0),
        ),
        w(
            PARITY,
            "TransactWriteItems: two Puts, under 1 KB",
            write(
                "TransactWriteItems",
                vec![touched(None, Some(&p)), touched(None, Some(&plain("q")))],
            ),
            (4.0, 0.0),
        ),
        w(
            PARITY,
            "TransactWriteItems: a conditional Put",
            write("TransactWriteItems", vec![touched(None, Some(&p))]),
            (2.0, 0.0),
        ),
        w(
            PARITY,
            "TransactWriteItems: ConditionCheck of an item on another table",
            write("TransactWriteItems", vec![check(Some(&p))]),
            (2.0, 0.0),
        ),
        w(
            AWS_TXN,
            "TransactWriteItems: three items of 500 bytes: 6 units",
            write(
                "TransactWriteItems",
                (0..3)
                    .map(|i| touched(None, Some(&item(&format!("x{i}"), None, 20, 500))))
                    .collect(),
            ),
            (6.0, 0.0),
        ),
        w(
            DYNOXIDE,
            "TransactWriteItems of 9 KB: 18 units",
            write(
                "TransactWriteItems",
                vec![touched(Some(&nine_small), Some(&nine))],
            ),
            (18.0, 0.0),
        ),
    ]
}

fn read(operation: &'static str, read: Vec<Option<Item>>, consistent: bool) -> Request {
    Request {
        items: read.iter().flatten().count(),
        read,
        consistent,
        ..Request::new(operation)
    }
}

fn replay(touched: Vec<Touched>) -> Request {
    Request {
        replayed: true,
        ..write("TransactWriteItems", touched)
    }
}

/// A read case (or a replay, billed as reads): its source, what it is, the request, and the
/// read units measured.
struct Read {
    source: &'static str,
    case: &'static str,
    request: Request,
    measured: f64,
}

fn reads() -> Vec<Read> {
    let r = |source, case, request, measured| Read {
        source,
        case,
        request,
        measured,
    };
    let of = |bytes: usize, sk: &str| Some(item(sk, None, 20, bytes));
    let sized = |sizes: &[usize]| -> Vec<Option<Item>> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, b)| of(*b, &format!("i{i}")))
            .collect()
    };
    let (nine, small) = (item("n", None, 20, 9000), item("s", None, 20, 500));
    let mid = item("m", None, 20, 1536);
    vec![
        r(
            AWS_DOCS,
            "GetItem that finds nothing, strongly consistent",
            read("GetItem", vec![None], true),
            1.0,
        ),
        r(
            AWS_DOCS,
            "GetItem that finds nothing, eventually consistent",
            read("GetItem", vec![None], false),
            0.5,
        ),
        r(
            DYNOXIDE,
            "one item of 3 KB by its key, eventually consistent",
            read("GetItem", sized(&[3000]), false),
            0.5,
        ),
        r(
            AWS_DOCS,
            "BatchGetItem of 1.5 KB and 6.5 KB, each rounded: 12 KB",
            read("BatchGetItem", sized(&[1536, 6656]), true),
            3.0,
        ),
        r(
            AWS_DOCS,
            "BatchGetItem of a key that finds nothing",
            read("BatchGetItem", vec![None], false),
            0.5,
        ),
        r(
            AWS_DOCS,
            "Query of 40.8 KB, summed then rounded: 44 KB",
            read("Query", sized(&[10_445; 4]), true),
            11.0,
        ),
        r(
            TOOLKIT,
            "Query of 5 items of 1 KB, eventually consistent",
            read("Query", sized(&[1024; 5]), false),
            1.0,
        ),
        r(
            TOOLKIT,
            "Query of 10 items of 512 bytes, eventually consistent",
            read("Query", sized(&[512; 10]), false),
            1.0,
        ),
        r(
            DYNOXIDE,
            "Scan of four items of 3 KB, eventually consistent",
            read("Scan", sized(&[3000; 4]), false),
            1.5,
        ),
        r(
            AWS_DOCS,
            "Query that finds nothing",
            read("Query", Vec::new(), false),
            0.5,
        ),
        r(
            PARITY,
            "TransactGetItems of an item and a missing key: 2 each",
            read("TransactGetItems", vec![of(200, "a"), None], false),
            4.0,
        ),
        r(
            PARITY,
            "replay of a transaction (same token): a Put under 1 KB",
            replay(vec![touched(None, Some(&small))]),
            2.0,
        ),
        r(
            PARITY,
            "replay of a transaction: a Put of 1.5 KB (4 write units the first time)",
            replay(vec![touched(None, Some(&mid))]),
            2.0,
        ),
        r(
            DYNOXIDE,
            "replay of a transaction: a Put shrinking a 9 KB item",
            replay(vec![touched(Some(&nine), Some(&small))]),
            6.0,
        ),
        r(
            DYNOXIDE,
            "replay of a transaction: a Delete of 9 KB and a small Put, each rounded",
            replay(vec![
                touched(Some(&nine), None),
                touched(None, Some(&small)),
            ]),
            8.0,
        ),
    ]
}

#[test]
fn the_meter_bills_every_write_as_dynamodb_did() {
    let mut wrong = Vec::new();
    for case in writes() {
        let billed = arms(&case.request);
        if billed != case.measured {
            wrong.push(format!(
                "{} ({}): measured (table, index) {:?}, the meter bills {billed:?}",
                case.case, case.source, case.measured
            ));
        }
        assert_eq!(
            bill::request_read_units(&case.request),
            0.0,
            "{}: a write reads nothing",
            case.case
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_meter_bills_every_read_as_dynamodb_did() {
    let mut wrong = Vec::new();
    for case in reads() {
        let billed = bill::request_read_units(&case.request);
        if billed != case.measured {
            wrong.push(format!(
                "{} ({}): measured {}, the meter bills {billed}",
                case.case, case.source, case.measured
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A replay writes nothing.
    for case in reads().iter().filter(|c| c.request.replayed) {
        assert_eq!(
            bill::write_units(&case.request, &[gsi()]),
            0.0,
            "{}",
            case.case
        );
    }
}

#[test]
fn every_source_is_named_in_the_billing_page() {
    let page = std::fs::read_to_string(sam_template::workspace_root().join("docs/billing.md"))
        .expect("docs/billing.md");
    for source in SOURCES {
        assert!(
            page.contains(source),
            "docs/billing.md does not name {source}"
        );
    }
    let cases = writes().len() + reads().len();
    assert!(
        page.contains(&format!("{cases} cases")),
        "docs/billing.md does not say how many cases ({cases}) hold the meter"
    );
}
