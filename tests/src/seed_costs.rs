//! Seed 004's cost claims (Pete Naylor, "What really matters in DynamoDB data modeling?"), each
//! shown on DynamoDB Local's meter: the units a request's `ReturnConsumedCapacity=INDEXES` answer
//! reports. The tables are small ones of this module's own, written and read with raw requests
//! (as `key_designs` does), so nothing of ours stands between a request and the meter; they have
//! no index, so a request's total is its table's. Reads are strongly consistent unless a test
//! says otherwise: their units are whole.
//!
//! Each claim is measured once per process and asserted twice: the figure the meter reported,
//! exactly (units are deterministic), and the relation the seed states. The table of
//! docs/one-table-or-many.md is rendered from the same measurements: the test
//! `the_docs_table_is_what_the_meter_reported` fails when a figure there differs, and
//! `UPDATE_SEED_COSTS=1` rewrites it.

use aws_sdk_dynamodb::{
    Client,
    types::{
        AttributeValue, ConsumedCapacity, KeysAndAttributes, ReturnConsumedCapacity,
        ScalarAttributeType,
    },
};
use model::Item;
use tokio::sync::OnceCell;

use crate::readme::Section;
use ScalarAttributeType::{N, S};

const KB: usize = 1024;
/// The attribute that pads an item to the size a test wants.
const PAYLOAD: &str = "Payload";

const TABLE: Section = Section {
    file: "docs/one-table-or-many.md",
    begin: "<!-- seed 004's cost claims: generated from DynamoDB Local's meter by tests/src/seed_costs.rs -->",
    end: "<!-- end of seed 004's cost claims -->",
    update_var: "UPDATE_SEED_COSTS",
    command: "UPDATE_SEED_COSTS=1 cargo test -p tests seed_costs",
};

/// What one read consumed and found.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Read {
    units: f64,
    /// Items the read went through: a Query's `ScannedCount`, or the keys asked for.
    read: usize,
    /// Items it answered with.
    returned: usize,
}

/// A read's units strongly and eventually consistent.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ByConsistency {
    strong: f64,
    eventual: f64,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: impl std::fmt::Display) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

/// `item` padded with a string attribute to exactly `bytes`, as DynamoDB sizes items
/// ([`devkit::item_size`], the project's copy of AWS's arithmetic).
fn sized(mut item: Item, bytes: usize) -> Item {
    let padding = bytes - devkit::item_size(&item) - PAYLOAD.len();
    item.insert(PAYLOAD.to_owned(), s(&"x".repeat(padding)));
    assert_eq!(devkit::item_size(&item), bytes);
    item
}

/// The units a request consumed in all.
fn units(consumed: Option<&ConsumedCapacity>) -> f64 {
    consumed
        .and_then(|c| c.capacity_units)
        .expect("DynamoDB Local reports consumed capacity when asked")
}

/// A table of DynamoDB Local with a partition key and a sort key, nothing else.
struct Scratch {
    client: Client,
    table: String,
}

impl Scratch {
    async fn new(
        partition: (&'static str, ScalarAttributeType),
        sort: (&'static str, ScalarAttributeType),
    ) -> Self {
        use crate::key_designs::{create, hash, range};
        let keys = [hash(partition.0, partition.1), range(sort.0, sort.1)];
        let table = create(&keys, &[], &[]).await.unwrap_or_else(|e| {
            panic!(
                "cannot create a table in DynamoDB Local at {} ({e}); start one with \
                 `scripts/dynamodb-local.sh start 8012` and set \
                 AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8012",
                devkit::endpoint()
            )
        });
        Scratch {
            client: devkit::client(),
            table,
        }
    }

    /// Writes `item`: the write units reported.
    async fn put(&self, item: Item) -> f64 {
        let out = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .expect("put");
        units(out.consumed_capacity())
    }

    async fn delete(&self, key: Item) {
        self.client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key))
            .send()
            .await
            .expect("delete");
    }

    /// Sets the attribute `name` of the item `key` to `value`: the write units reported.
    async fn set(&self, key: Item, name: &str, value: AttributeValue) -> f64 {
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key))
            .update_expression("SET #name = :value")
            .expression_attribute_names("#name", name)
            .expression_attribute_values(":value", value)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .expect("update");
        units(out.consumed_capacity())
    }

    /// A Query of the collection `pk` (or of its item `sort_key` only), its answer filtered by
    /// `filter` (an expression of `:filter`).
    async fn query(
        &self,
        pk: &str,
        sort_key: Option<&str>,
        filter: Option<(&str, AttributeValue)>,
        consistent: bool,
    ) -> Read {
        let condition = match sort_key {
            Some(_) => "PK = :pk AND SK = :sk",
            None => "PK = :pk",
        };
        let mut query = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression(condition)
            .expression_attribute_values(":pk", s(pk))
            .consistent_read(consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        if let Some(sk) = sort_key {
            query = query.expression_attribute_values(":sk", s(sk));
        }
        if let Some((expression, value)) = filter {
            query = query
                .filter_expression(expression)
                .expression_attribute_values(":filter", value);
        }
        let out = query.send().await.expect("query");
        assert!(out.last_evaluated_key.is_none(), "one page");
        Read {
            units: units(out.consumed_capacity()),
            read: out.scanned_count as usize,
            returned: out.count as usize,
        }
    }

    /// GetItem of `key`.
    async fn get(&self, key: Item, consistent: bool) -> Read {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key))
            .consistent_read(consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .expect("get");
        Read {
            units: units(out.consumed_capacity()),
            read: 1,
            returned: usize::from(out.item.is_some()),
        }
    }

    /// One BatchGetItem of `keys` (at most 100).
    async fn batch_get(&self, keys: Vec<Item>, consistent: bool) -> Read {
        let asked = keys.len();
        let out = self
            .client
            .batch_get_item()
            .request_items(
                &self.table,
                KeysAndAttributes::builder()
                    .set_keys(Some(keys))
                    .consistent_read(consistent)
                    .build()
                    .expect("keys"),
            )
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .expect("batch get");
        assert!(
            out.unprocessed_keys.as_ref().is_none_or(|u| u.is_empty()),
            "every key answered in one call"
        );
        Read {
            units: out.consumed_capacity().iter().map(|c| units(Some(c))).sum(),
            read: asked,
            returned: out
                .responses()
                .and_then(|r| r.get(&self.table))
                .map_or(0, Vec::len),
        }
    }

    /// The size DynamoDB Local bills for an item of only `key`. The meter reports whole write
    /// units, one per KB begun, so the item is padded until a PutItem costs 2 units: at the
    /// first padding that does, the item is 1 KB and 1 byte, which gives its size without it.
    async fn billed_size(&self, key: &Item) -> usize {
        let costs_two = |padding: usize| {
            let mut padded = key.clone();
            padded.insert(PAYLOAD.to_owned(), s(&"x".repeat(padding)));
            async move {
                let units = self.put(padded).await;
                self.delete(key.clone()).await;
                units >= 2.0
            }
        };
        // Bisect: `fits` costs 1 unit, `over` costs 2.
        let (mut fits, mut over) = (0, KB + 1);
        assert!(!costs_two(fits).await, "a key alone fits in 1 KB");
        assert!(costs_two(over).await, "more than 1 KB of padding costs 2");
        while over - fits > 1 {
            let middle = (fits + over) / 2;
            if costs_two(middle).await {
                over = middle;
            } else {
                fits = middle;
            }
        }
        KB + 1 - over - PAYLOAD.len()
    }
}

/// Claim 1: a collection read whole by a Query whose filter keeps one item, and that item
/// selected by its sort key instead.
#[derive(Debug)]
struct FilterCosts {
    items: usize,
    item_bytes: usize,
    filtered: Read,
    by_sort_key: Read,
}

async fn filter_costs() -> &'static FilterCosts {
    static MEASURED: OnceCell<FilterCosts> = OnceCell::const_new();
    MEASURED
        .get_or_init(|| async {
            let (items, item_bytes) = (20, KB);
            let table = Scratch::new(("PK", S), ("SK", S)).await;
            // Pete's cart: one product a dozen times, the others once.
            let dozen = "PRODUCT#07";
            for i in 0..items {
                let product = format!("PRODUCT#{i:02}");
                let quantity = if product == dozen { 12 } else { 1 };
                let line = item(&[
                    ("PK", s("CART#pete")),
                    ("SK", s(&product)),
                    ("Quantity", n(quantity)),
                ]);
                table.put(sized(line, item_bytes)).await;
            }
            FilterCosts {
                items,
                item_bytes,
                filtered: table
                    .query("CART#pete", None, Some(("Quantity > :filter", n(1))), true)
                    .await,
                by_sort_key: table.query("CART#pete", Some(dozen), None, true).await,
            }
        })
        .await
}

/// Claim 2 (and the consistency halving): the same items read by one Query, one BatchGetItem,
/// and one GetItem each; and a key that finds nothing, in a batch and alone.
#[derive(Debug)]
struct RoundingCosts {
    items: usize,
    item_bytes: usize,
    query: ByConsistency,
    batch: ByConsistency,
    gets: ByConsistency,
    /// The batch of every key and one more that finds nothing, strongly consistent.
    batch_with_a_miss: Read,
    /// A GetItem that finds nothing, strongly consistent.
    get_miss: Read,
}

async fn rounding_costs() -> &'static RoundingCosts {
    static MEASURED: OnceCell<RoundingCosts> = OnceCell::const_new();
    MEASURED
        .get_or_init(|| async {
            let (items, item_bytes) = (10, KB);
            let table = Scratch::new(("PK", S), ("SK", S)).await;
            let key =
                |line: usize| item(&[("PK", s("ORDER#1")), ("SK", s(&format!("LINE#{line}")))]);
            for line in 0..items {
                table.put(sized(key(line), item_bytes)).await;
            }
            let keys: Vec<Item> = (0..items).map(key).collect();
            let unmeasured = ByConsistency {
                strong: f64::NAN,
                eventual: f64::NAN,
            };
            let (mut query, mut batch, mut gets) = (unmeasured, unmeasured, unmeasured);
            for consistent in [true, false] {
                let q = table.query("ORDER#1", None, None, consistent).await;
                let b = table.batch_get(keys.clone(), consistent).await;
                assert_eq!((q.returned, b.returned), (items, items), "every line read");
                let mut g = 0.0;
                for k in &keys {
                    g += table.get(k.clone(), consistent).await.units;
                }
                for (into, u) in [(&mut query, q.units), (&mut batch, b.units), (&mut gets, g)] {
                    if consistent {
                        into.strong = u;
                    } else {
                        into.eventual = u;
                    }
                }
            }
            let mut with_a_miss = keys.clone();
            with_a_miss.push(key(items));
            RoundingCosts {
                items,
                item_bytes,
                query,
                batch,
                gets,
                batch_with_a_miss: table.batch_get(with_a_miss, true).await,
                get_miss: table.get(key(items), true).await,
            }
        })
        .await
}

/// Claim 3: one small attribute updated inside a large item, and as its own item in the same
/// collection.
#[derive(Debug)]
struct UpdateCosts {
    large_bytes: usize,
    part_bytes: usize,
    attribute_bytes: usize,
    in_large_item: f64,
    as_own_item: f64,
}

async fn update_costs() -> &'static UpdateCosts {
    static MEASURED: OnceCell<UpdateCosts> = OnceCell::const_new();
    MEASURED
        .get_or_init(|| async {
            let large_bytes = 200 * KB;
            let table = Scratch::new(("PK", S), ("SK", S)).await;
            let key = |order: &str, sk: &str| item(&[("PK", s(order)), ("SK", s(sk))]);
            // The status is rewritten with a value as long, so the item keeps its size.
            let (placed, packed) = ("placed", "packed");
            let status = item(&[("Status", s(placed))]);
            let attribute_bytes = devkit::item_size(&status);

            let mut whole = key("ORDER#1", "A");
            whole.extend(status.clone());
            table.put(sized(whole, large_bytes)).await;
            let in_large_item = table.set(key("ORDER#1", "A"), "Status", s(packed)).await;

            // The same record as a collection: the large part, and the status on its own.
            let rest = sized(key("ORDER#2", "A"), large_bytes - attribute_bytes);
            table.put(rest).await;
            let mut part = key("ORDER#2", "STATUS");
            part.extend(status);
            let part_bytes = devkit::item_size(&part);
            table.put(part).await;
            let as_own_item = table
                .set(key("ORDER#2", "STATUS"), "Status", s(packed))
                .await;
            UpdateCosts {
                large_bytes,
                part_bytes,
                attribute_bytes,
                in_large_item,
                as_own_item,
            }
        })
        .await
}

/// Claim 4: the size DynamoDB Local bills for an order line's keys (a numeric order id, the
/// SKU as the sort key), for one SKU stored three ways.
#[derive(Debug)]
struct SkuSizes {
    sku: u64,
    /// The SKU a number (an order's table of lines only, sort key of type N).
    number: usize,
    /// The SKU a string (the item collection of lines and tracking events, sort key of type S).
    string: usize,
    /// The SKU a string zero-padded to [`SKU_DIGITS`], so that strings sort as the numbers.
    padded: usize,
}

/// The order all the lines are of.
const ORDER_ID: u64 = 1_234_567;

/// An order line's keys: the order id and `sku`, the sort key.
fn order_line(sku: AttributeValue) -> Item {
    item(&[("OrderId", n(ORDER_ID)), ("SK", sku)])
}

/// The bytes of an order line's keys apart from the SKU's value.
fn order_line_without_sku() -> usize {
    devkit::item_size(&order_line(s("")))
}

/// The width of a UPC-A code.
const SKU_DIGITS: usize = 12;
/// A seven-digit SKU and a one-digit one (where the string is the shorter).
const SKUS: [u64; 2] = [4_050_123, 7];

async fn sku_sizes() -> &'static [SkuSizes] {
    static MEASURED: OnceCell<Vec<SkuSizes>> = OnceCell::const_new();
    MEASURED
        .get_or_init(|| async {
            let numbers = Scratch::new(("OrderId", N), ("SK", N)).await;
            let strings = Scratch::new(("OrderId", N), ("SK", S)).await;
            let mut sizes = Vec::new();
            for sku in SKUS {
                sizes.push(SkuSizes {
                    sku,
                    number: numbers.billed_size(&order_line(n(sku))).await,
                    string: strings.billed_size(&order_line(s(&sku.to_string()))).await,
                    padded: strings
                        .billed_size(&order_line(s(&format!("{sku:0SKU_DIGITS$}"))))
                        .await,
                });
            }
            sizes
        })
        .await
}

#[tokio::test]
async fn a_filter_pays_for_every_item_it_reads() {
    let m = filter_costs().await;
    assert_eq!(
        (m.filtered.read, m.filtered.returned),
        (20, 1),
        "the filter went through the whole cart and kept one item"
    );
    // 20 items of 1 KB: 20 KB, five blocks of 4 KB.
    assert_eq!(m.filtered.units, 5.0);
    assert_eq!(
        m.filtered.units,
        devkit::read_units(m.items * m.item_bytes, true),
        "paid for every item read, the dropped ones too"
    );
    assert_eq!((m.by_sort_key.read, m.by_sort_key.returned), (1, 1));
    assert_eq!(m.by_sort_key.units, 1.0);
    assert!(
        m.by_sort_key.units < m.filtered.units,
        "a sort key condition meters only what it selects"
    );
}

#[tokio::test]
async fn a_query_rounds_the_sum_and_batch_get_rounds_each_item() {
    let m = rounding_costs().await;
    // 10 items of 1 KB: 10 KB summed, three blocks of 4 KB; one block each item alone.
    assert_eq!(m.query.strong, 3.0);
    assert_eq!(m.batch.strong, 10.0);
    assert_eq!(m.gets.strong, 10.0);
    assert_eq!(
        m.query.strong,
        devkit::read_units(m.items * m.item_bytes, true),
        "a Query sums the sizes, then rounds up"
    );
    assert_eq!(
        m.batch.strong,
        m.items as f64 * devkit::read_units(m.item_bytes, true),
        "a BatchGetItem rounds each item up"
    );
    assert_eq!(m.batch.strong, m.gets.strong, "a batch costs its GetItems");
    assert!(m.query.strong < m.batch.strong);

    // A key that finds nothing. AWS's "Capacity unit consumption for read operations" has
    // BatchGetItem process "each item in the batch as an individual GetItem request", and
    // DynamoDB Local charges a GetItem that finds nothing the minimum; yet it reports a batch's
    // key that finds nothing as free. `cost::unreported_read_units` adds it back.
    assert_eq!(m.get_miss.returned, 0);
    assert_eq!(m.get_miss.units, 1.0);
    assert_eq!(
        (m.batch_with_a_miss.read, m.batch_with_a_miss.returned),
        (m.items + 1, m.items)
    );
    assert_eq!(m.batch_with_a_miss.units, m.batch.strong);
}

#[tokio::test]
async fn an_eventually_consistent_read_costs_half() {
    let m = rounding_costs().await;
    assert_eq!((m.query.strong, m.query.eventual), (3.0, 1.5));
    assert_eq!((m.batch.strong, m.batch.eventual), (10.0, 5.0));
    assert_eq!((m.gets.strong, m.gets.eventual), (10.0, 5.0));
    for (what, read) in [
        ("Query", m.query),
        ("BatchGetItem", m.batch),
        ("GetItem", m.gets),
    ] {
        assert_eq!(read.eventual * 2.0, read.strong, "{what}");
    }
}

#[tokio::test]
async fn a_small_update_of_a_large_item_pays_for_the_whole_item() {
    let m = update_costs().await;
    // 200 KB: 200 units of 1 KB, against the 1 KB minimum for a small item.
    assert_eq!(m.in_large_item, 200.0);
    assert_eq!(m.as_own_item, 1.0);
    assert_eq!(
        m.in_large_item,
        m.large_bytes.div_ceil(KB) as f64,
        "an update is billed on the whole item"
    );
    assert!(m.part_bytes < KB);
    assert!(m.as_own_item < m.in_large_item);
}

#[tokio::test]
async fn a_number_stored_as_a_string_takes_more_bytes() {
    let sizes = sku_sizes().await;
    let measured: Vec<_> = sizes
        .iter()
        .map(|m| (m.sku, m.number, m.string, m.padded))
        .collect();
    // "OrderId" (7) + 1234567 (5) + "SK" (2) = 14 bytes, then the SKU: 4050123 a number of
    // 7 significant digits (4 + 1 bytes), a string of 7, padded 12; 7 a number of 2, a string
    // of 1, padded 12.
    assert_eq!(order_line_without_sku(), 14);
    assert_eq!(measured, [(4_050_123, 19, 21, 26), (7, 16, 15, 26)]);
    let arithmetic = |sku: AttributeValue| devkit::item_size(&order_line(sku));
    for m in sizes {
        assert_eq!(
            (m.number, m.string, m.padded),
            (
                arithmetic(n(m.sku)),
                arithmetic(s(&m.sku.to_string())),
                arithmetic(s(&format!("{:0SKU_DIGITS$}", m.sku))),
            ),
            "the meter and devkit::item_size (AWS's arithmetic) agree"
        );
        assert!(
            m.padded > m.number,
            "{}: padded, a string costs bytes",
            m.sku
        );
    }
    let seven_digits = &sizes[0];
    assert!(
        seven_digits.string > seven_digits.number,
        "unpadded too, a long number costs bytes as a string"
    );
}

/// `3`, `1.5`: units as DynamoDB counts them.
fn shown_units(u: f64) -> String {
    let text = format!("{u:.1}");
    text.strip_suffix(".0").map(str::to_owned).unwrap_or(text)
}

/// `204,800`.
fn shown_bytes(b: usize) -> String {
    crate::cost::thousands(&b.to_string())
}

/// One row of the docs' table: the seed's words, what the meter reported, the test that shows it.
struct Row {
    claim: String,
    measured: String,
    test: &'static str,
}

fn render(
    filter: &FilterCosts,
    rounding: &RoundingCosts,
    update: &UpdateCosts,
    skus: &[SkuSizes],
) -> String {
    let u = shown_units;
    let b = shown_bytes;
    let rest = order_line_without_sku();
    let sku_sizes = skus
        .iter()
        .map(|m| {
            format!(
                "SKU {}: {} B as a number, {} B as a string, {} B zero-padded to {SKU_DIGITS} \
                 digits (the SKU {}, {} and {} B)",
                m.sku,
                m.number,
                m.string,
                m.padded,
                m.number - rest,
                m.string - rest,
                m.padded - rest,
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let rows = [
        Row {
            claim:
                "\"Importantly, only items in the collection which match the sort key condition \
                    will be included in the metering of read units. This is in contrast with a \
                    filter expression which applies after the read units have been assessed—so \
                    you still pay to read items which are filtered out.\""
                    .into(),
            measured: format!(
                "A Query of a collection of {} items of {} B whose filter keeps {}: {} read \
                 units, the {} items read ({} B, rounded up to 4 KB). That item selected by its \
                 sort key: {}.",
                filter.items,
                b(filter.item_bytes),
                filter.filtered.returned,
                u(filter.filtered.units),
                filter.filtered.read,
                b(filter.items * filter.item_bytes),
                u(filter.by_sort_key.units),
            ),
            test: "a_filter_pays_for_every_item_it_reads",
        },
        Row {
            claim:
                "\"When you retrieve multiple items using Query (or Scan), the metering of read \
                    unit consumption adds the sizes of all the items and *then* rounds up to the \
                    next 4KB boundary (rather than rounding up for each item like GetItem and \
                    BatchGetItem do).\""
                    .into(),
            measured: format!(
                "{} items of {} B: one Query {} units ({} B summed, then rounded up); one \
                 BatchGetItem {}; {} GetItems {} in all. A key that finds nothing: {} more in a \
                 BatchGetItem, {} as a GetItem (DynamoDB Local; AWS's docs process each key of a \
                 batch as a GetItem).",
                rounding.items,
                b(rounding.item_bytes),
                u(rounding.query.strong),
                b(rounding.items * rounding.item_bytes),
                u(rounding.batch.strong),
                rounding.items,
                u(rounding.gets.strong),
                u(rounding.batch_with_a_miss.units - rounding.batch.strong),
                u(rounding.get_miss.units),
            ),
            test: "a_query_rounds_the_sum_and_batch_get_rounds_each_item",
        },
        Row {
            claim: "Not in seed 004 (AWS's documentation): an eventually consistent read costs \
                    half a strongly consistent one."
                .into(),
            measured: format!(
                "The same {} items, eventually / strongly consistent: Query {} / {}, \
                 BatchGetItem {} / {}, GetItems {} / {}.",
                rounding.items,
                u(rounding.query.eventual),
                u(rounding.query.strong),
                u(rounding.batch.eventual),
                u(rounding.batch.strong),
                u(rounding.gets.eventual),
                u(rounding.gets.strong),
            ),
            test: "an_eventually_consistent_read_costs_half",
        },
        Row {
            claim: "\"If you have a 200KB item, then updating even a small part of that item will \
                    consume 200 write units. If that item is instead stored as a collection of \
                    item parts in a collection, you can update any small portion for minimal \
                    write unit consumption.\""
                .into(),
            measured: format!(
                "An UpdateItem of one {}-byte attribute: {} write units in an item of {} B; {} \
                 as an item of its own ({} B) in the same collection.",
                update.attribute_bytes,
                u(update.in_large_item),
                b(update.large_bytes),
                u(update.as_own_item),
                update.part_bytes,
            ),
            test: "a_small_update_of_a_large_item_pays_for_the_whole_item",
        },
        Row {
            claim: "\"In this case, you’ll need to define the sort key with data type string, and \
                    convert values to store those numeric SKUs as strings. There’s a cost for \
                    this (because storing a number as a string consumes more bytes), but it’s \
                    worth it to get the benefit of the item collection.\" The seed gives no \
                    figure."
                .into(),
            measured: format!(
                "An item of only its keys (a numeric order id and the SKU as the sort key), \
                 sized where PutItem's units step from 1 to 2: {sku_sizes}. A number takes about \
                 1 byte per 2 significant digits + 1 (AWS's rule; the meter matched it), a string \
                 1 byte per digit: the claim holds for both SKUs padded and for the long one \
                 unpadded; the one-digit SKU unpadded is shorter as a string."
            ),
            test: "a_number_stored_as_a_string_takes_more_bytes",
        },
    ];
    let mut out = String::from(
        "\n\n| seed 004's claim | what DynamoDB Local's meter reported | test |\n|---|---|---|\n",
    );
    for row in rows {
        out.push_str(&format!(
            "| {} | {} | [`{}`](../tests/src/seed_costs.rs) |\n",
            row.claim, row.measured, row.test
        ));
    }
    out.push('\n');
    out
}

#[tokio::test]
async fn the_docs_table_is_what_the_meter_reported() {
    let (filter, rounding, update, skus) = tokio::join!(
        filter_costs(),
        rounding_costs(),
        update_costs(),
        sku_sizes()
    );
    let table = render(filter, rounding, update, skus);
    // Every test the table names is one of this module's.
    let source = include_str!("seed_costs.rs");
    for line in table.lines() {
        if let Some((_, rest)) = line.split_once("[`") {
            let test = rest.split('`').next().unwrap_or_default();
            assert!(
                source.contains(&format!("async fn {test}()")),
                "the table names {test}, which is no test here"
            );
        }
    }
    TABLE.check(&table);
}
