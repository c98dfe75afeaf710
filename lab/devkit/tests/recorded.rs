//! What a recording table keeps for the meter (`devkit::bill`), against DynamoDB Local: a read
//! that projects a few attributes is billed on the whole item, a key that finds nothing at the
//! minimum, and a write its condition refuses is billed on the table; the reads agree with what
//! DynamoDB Local reports, where it reports them.

use model::{Item, s};
use store::{Condition, Read};

fn id(v: &str) -> keys::Id {
    keys::Id::parse("id", v).unwrap()
}

/// An item at `key` of `bytes` bytes.
fn item(key: &keys::PrimaryKey, bytes: usize) -> Item {
    let mut item = model::key_item(key);
    let so_far = devkit::item_size(&item);
    item.insert("pad".into(), s("x".repeat(bytes - so_far - 3)));
    assert_eq!(devkit::item_size(&item), bytes);
    item
}

#[tokio::test]
async fn reads_are_billed_on_whole_items_and_refused_writes_on_the_table() {
    let table = devkit::table().await.recording_touched();
    let (big, missing) = (
        keys::commerce::customer(&id("big")),
        keys::commerce::customer(&id("none")),
    );
    table.put_item(item(&big, 5000), None).await.unwrap();
    table.meter().reset();

    // `exists` projects the key alone: billed on the 5,000-byte item, 2 blocks of 4 KB, half.
    assert!(table.exists(&big).await.unwrap());
    // A BatchGetItem of two keys, projecting one attribute, strongly consistent: the item's 2
    // blocks and the missing key's minimum.
    let found = table
        .batch_get(&[big.clone(), missing.clone()], &["PK"], Read::Strong)
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    let requests = table.meter().requests();
    let billed: Vec<f64> = requests.iter().map(devkit::request_read_units).collect();
    assert_eq!(billed, [1.0, 3.0]);
    // DynamoDB Local agrees on the item it found; it reports the missing key as free.
    let local: Vec<f64> = requests.iter().map(|r| r.read_units).collect();
    assert_eq!(local, [1.0, 2.0]);

    // A put refused by its condition (the item exists): billed on the table, the larger of the
    // stored item (5,000 bytes: 5 units) and the one sent (1,000 bytes), nothing written.
    table.meter().reset();
    let refused = table
        .put_item(item(&big, 1000), Some(Condition::Absent))
        .await;
    assert!(refused.is_err());
    let requests = table.meter().requests();
    assert!(requests[0].refused, "{:?}", requests[0]);
    assert_eq!(devkit::write_units(&requests[0], &[]), 5.0);
    // DynamoDB Local reports nothing for it.
    assert_eq!(requests[0].write_units, 0.0);
    let stored = table.get_item(&big, Read::Strong, None).await.unwrap();
    assert_eq!(stored.map(|i| devkit::item_size(&i)), Some(5000));
}
