//! `make reconcile` holds the derived values, not the items: the real binary's peak RSS
//! (`/usr/bin/time -f %M`) over a table with 60 MB of source items that feed 12 derived values
//! grows by far less than the items it read.

use futures::{StreamExt, TryStreamExt, stream};
use keys::{
    Id,
    commerce::{self as k, Sku},
};
use model::{attr, n, s};
use store::Table;
use tokio::process::Command;

/// 2,000 inventories of 12 products, each with 30,000 characters of notes: 60 MB of items, whose
/// derived values are the 12 products' total inventories. The bytes are what a report that held
/// the items would keep; in 20,000 items of 3 KB they took DynamoDB Local 10 times the requests
/// to write and the test 34 s.
const ITEMS: usize = 2_000;
const NOTE: usize = 30_000;

async fn load_inventories(table: &Table) {
    let note = "x".repeat(NOTE);
    let chunks: Vec<Vec<model::Item>> = (0..ITEMS)
        .map(|i| {
            let sku = (1 + i % 12) as u64;
            let warehouse = format!("W{i}");
            let key = k::inventory(Sku::new(sku).unwrap(), &Id::parse("w", &warehouse).unwrap());
            let mut item = model::key_item(&key);
            item.extend([
                (attr::TYPE.to_owned(), s("Inventory")),
                ("Sku".to_owned(), n(sku)),
                ("WarehouseId".to_owned(), s(warehouse)),
                ("Quantity".to_owned(), n(1)),
                ("Notes".to_owned(), s(note.as_str())),
            ]);
            item
        })
        .collect::<Vec<_>>()
        .chunks(25)
        .map(<[model::Item]>::to_vec)
        .collect();
    stream::iter(chunks)
        .map(|chunk| table.batch_put(chunk))
        .buffer_unordered(8)
        .try_collect::<Vec<()>>()
        .await
        .unwrap();
}

/// Peak RSS in MB of one report of `table`, and what it printed.
async fn reconcile_peak_mb(table: &Table) -> (f64, String) {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "peak-rss-kb %M", env!("CARGO_BIN_EXE_reconcile")])
        .args(["--table", table.name(), "--segments", "4"])
        .env("AWS_ENDPOINT_URL_DYNAMODB", devkit::endpoint())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kb: f64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak-rss-kb "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in {stderr}"));
    (
        kb / 1024.0,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[tokio::test]
async fn reconcile_memory_follows_the_derived_values_not_the_items() {
    let table = devkit::table().await;
    for sku in 1..=12 {
        table
            .put_item(
                {
                    let mut item = model::key_item(&k::product(Sku::new(sku).unwrap()));
                    item.extend([
                        (attr::TYPE.to_owned(), s("Product")),
                        ("Sku".to_owned(), n(sku)),
                    ]);
                    item
                },
                None,
            )
            .await
            .unwrap();
    }
    let (empty_mb, report) = reconcile_peak_mb(&table).await;
    assert!(report.contains("checked 12 derived values"), "{report}");
    load_inventories(&table).await;
    let (full_mb, report) = reconcile_peak_mb(&table).await;
    assert!(
        report.contains("checked 12 derived values, 12 drifted"),
        "{report}"
    );
    let data_mb = (ITEMS * NOTE) as f64 / 1e6;
    eprintln!(
        "reconcile peak RSS: {empty_mb:.1} MB over 12 items, {full_mb:.1} MB over {ITEMS} more \
         ({data_mb:.0} MB of items)"
    );
    assert!(
        full_mb - empty_mb < data_mb / 2.0,
        "peak RSS grew by {:.1} MB reading {data_mb:.0} MB of items",
        full_mb - empty_mb
    );
}
