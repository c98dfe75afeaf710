//! The table as a NoSQL Workbench data model (`make workbench`): what Workbench imports to draw
//! every item collection and GSI view of a single-table design.
//!
//! Nothing in it is written by hand: the key attributes and indexes come from `template.yaml`,
//! the facets (one per entity, its keys' shapes as aliases) from the key registry
//! (`keys::registry::KINDS`), and the sample data is what the seed loaders write through the
//! model layer, read back from DynamoDB Local. [`roundtrip`] decodes an item into its entity's
//! record and encodes it again: every sample item must come back unchanged.

use std::collections::{BTreeMap, BTreeSet};

use keys::{
    Space,
    registry::{KINDS, Kind, Seg},
};
use model::{Entity, Item};
use serde_json::{Value, json};

/// Where `make workbench` writes the model.
pub const PATH: &str = "lab/workbench/single-table-design.json";

/// A key shape as one alias: `CUSTOMER#<id>`, `#ORDER#<ulid>`.
pub fn alias(shape: &[Seg]) -> String {
    shape
        .iter()
        .map(|s| s.placeholder())
        .collect::<Vec<_>>()
        .join(&keys::DELIMITER.to_string())
}

/// Lists every entity once: its `Type` and its round trip through the model.
macro_rules! entities {
    ($($t:ty),* $(,)?) => {
        /// Every entity's `Type`.
        pub const ENTITY_TYPES: &[&str] = &[$(<$t>::TYPE),*];

        /// Decodes `item` into its entity's record and encodes it again.
        pub fn roundtrip(item: &Item) -> Result<Item, String> {
            let found = model::type_of(item).ok_or("an item without a Type")?;
            $(
                if found == <$t>::TYPE {
                    let record: $t = model::from_item(item.clone()).map_err(|e| e.to_string())?;
                    return model::to_item(&record).map_err(|e| e.to_string());
                }
            )*
            Err(format!("no entity has the Type {found}"))
        }
    };
}

entities!(
    model::commerce::Customer,
    model::commerce::OrderSummary,
    model::commerce::OrderHeader,
    model::commerce::OrderLine,
    model::commerce::TrackingEvent,
    model::commerce::CartLine,
    model::commerce::Idempotency,
    model::commerce::ProductSales,
    model::commerce::Product,
    model::commerce::Inventory,
    model::commerce::RepSales,
    model::reviews::Book,
    model::reviews::User,
    model::reviews::Review,
    model::reviews::ReviewMarker,
    model::learning::CourseOccurrence,
    model::learning::Certificate,
    model::hr::Region,
    model::hr::Country,
    model::hr::Location,
    model::hr::Department,
    model::hr::Warehouse,
    model::hr::Employee,
    model::hr::JobHistory,
    model::hr::CurrentJob,
    model::hr::EmployeeWarehouse,
    model::derived::DailyStats,
);

/// Items in the order Workbench lists them best: by partition, then sort key.
fn sorted(mut items: Vec<Item>, pk: &str, sk: &str) -> Vec<Item> {
    let s = |i: &Item, a: &str| i.get(a).and_then(|v| v.as_s().ok()).cloned();
    items.sort_by_key(|i| (s(i, pk), s(i, sk)));
    items
}

/// The indexes a Workbench model can hold: its format (3.0) gives an index one partition and one
/// sort key attribute, so the multi-attribute indexes (`keys::indexes`) are left out; their
/// attributes show as the table's non-key attributes.
pub fn workbench_indexes(
    table: &sam_template::Table,
) -> impl Iterator<Item = &sam_template::Index> {
    table
        .global_indexes
        .iter()
        .filter(|i| i.key.partition.len() == 1 && i.key.sort.len() <= 1)
}

/// The Workbench model of `items` (a table's contents) under the template's key schema.
pub fn model(t: &sam_template::Template, items: Vec<Item>) -> Value {
    let table = &t.table;
    let pk = table.key.hash.as_str();
    let sk = table.key.range.as_deref().unwrap_or("");
    let items = sorted(items, pk, sk);
    let key_names: BTreeSet<&str> = std::iter::once(pk)
        .chain(table.key.range.as_deref())
        .collect();

    // Every non-key attribute with its type, in first-seen order of a sorted walk.
    let mut types: BTreeMap<String, &'static str> = BTreeMap::new();
    for item in &items {
        for (name, value) in item {
            if !key_names.contains(name.as_str()) {
                types
                    .entry(name.clone())
                    .or_insert(devkit::json::type_tag(value));
            }
        }
    }
    let by_type = |entity: &str| -> Vec<&Item> {
        items
            .iter()
            .filter(|i| model::type_of(i) == Some(entity))
            .collect()
    };
    let base_kinds: Vec<&Kind> = KINDS.iter().filter(|k| k.space == Space::Base).collect();
    let facets: Vec<Value> = base_kinds
        .iter()
        .map(|k| {
            let rows = by_type(k.entity);
            let mut attributes: BTreeSet<&str> = BTreeSet::new();
            for row in &rows {
                attributes.extend(row.keys().map(String::as_str));
            }
            for key in &key_names {
                attributes.remove(key);
            }
            json!({
                "FacetName": k.entity,
                "KeyAttributeAlias": {
                    "PartitionKeyAlias": alias(k.pk),
                    "SortKeyAlias": alias(k.sk),
                },
                "TableData": rows.iter().map(|i| devkit::json::item(i)).collect::<Vec<_>>(),
                "NonKeyAttributes": attributes,
                "DataAccess": { "MySql": {} },
            })
        })
        .collect();
    let key = |hash: &str, range: Option<&str>| {
        let mut k = json!({
            "PartitionKey": { "AttributeName": hash, "AttributeType": table.attributes.get(hash).map_or("S", String::as_str) },
        });
        if let Some(r) = range {
            k["SortKey"] = json!({ "AttributeName": r, "AttributeType": table.attributes.get(r).map_or("S", String::as_str) });
        }
        k
    };
    let indexes: Vec<Value> = workbench_indexes(table)
        .map(|i| {
            let mut projection = json!({ "ProjectionType": i.projection });
            if !i.non_key_attributes.is_empty() {
                projection["NonKeyAttributes"] = json!(i.non_key_attributes);
            }
            json!({
                "IndexName": i.name,
                "KeyAttributes": key(&i.key.hash, i.key.range.as_deref()),
                "Projection": projection,
            })
        })
        .collect();
    json!({
        "ModelName": "Single-table design",
        "ModelMetadata": {
            "Author": "generated by `make workbench` (lab/tools/src/workbench.rs)",
            "DateCreated": "",
            "DateLastModified": "",
            "Description": "Every entity of the table (commerce, reviews, learning, HR, derived items) with the seeds' rows and seed 003's org as sample data. Facets: one per entity, its key shapes as aliases. The multi-attribute indexes (OccurrencesByDate, CustomerOrdersByStatus, RepOrdersByStatus) are not in this format: their attributes are the table's non-key attributes.",
            "AWSService": "Amazon DynamoDB",
            "Version": "3.0",
        },
        "DataModel": [{
            "TableName": "SingleTable",
            "KeyAttributes": key(pk, table.key.range.as_deref()),
            "NonKeyAttributes": types.iter().map(|(n, t)| json!({ "AttributeName": n, "AttributeType": t })).collect::<Vec<_>>(),
            "TableFacets": facets,
            "GlobalSecondaryIndexes": indexes,
            "TableData": items.iter().map(devkit::json::item).collect::<Vec<_>>(),
            "DataAccess": { "MySql": {} },
            "BillingMode": "PAY_PER_REQUEST",
        }],
    })
}

/// The items of a model's `TableData`, parsed back.
pub fn items_of(model: &Value) -> Result<Vec<Item>, String> {
    model["DataModel"][0]["TableData"]
        .as_array()
        .ok_or("no DataModel[0].TableData")?
        .iter()
        .map(|v| devkit::json::parse_item(v).ok_or_else(|| format!("not an item: {v}")))
        .collect()
}

/// Keys of items, to compare two generations (attribute values such as timestamps may differ).
pub fn keys_of(items: &[Item], names: &[&str]) -> BTreeSet<Vec<Option<String>>> {
    items
        .iter()
        .map(|i| {
            names
                .iter()
                .map(|n| i.get(*n).and_then(|v| v.as_s().ok()).cloned())
                .collect()
        })
        .collect()
}

/// Orders the seed loaders write for the model's sample: enough to fill every collection and
/// index view, few enough to read.
pub const SAMPLE_ORDERS: u64 = 20;

/// Loads the seeds and a small org into a throwaway table of DynamoDB Local
/// (`AWS_ENDPOINT_URL_DYNAMODB`) and returns the model of what they wrote.
pub async fn generate() -> Result<Value, Box<dyn std::error::Error>> {
    let template = sam_template::Template::workspace()?;
    let table = devkit::table().await;
    crate::seed::load(&table).await?;
    crate::org::load_with(&table, SAMPLE_ORDERS).await?;
    place_idempotent_order(&table).await?;
    derive(&table).await?;
    let items = devkit::all_items(&table)
        .await
        .into_iter()
        .map(as_of_the_sample)
        .collect();
    table
        .client()
        .delete_table()
        .table_name(table.name())
        .send()
        .await?;
    Ok(model(&template, items))
}

/// When the sample's stream records were written (`devkit::stream_record`'s creation time).
const SAMPLE_EPOCH_SECONDS: i64 = 1_795_860_000;

/// The item as of the sample's moment: a consumer's marks carry when it wrote the item, the
/// sample's time rather than whenever `make workbench` ran, so the model is the same file at
/// every run.
fn as_of_the_sample(mut item: Item) -> Item {
    store::aggregate::marks_as_of(&mut item, SAMPLE_EPOCH_SECONDS);
    item
}

/// One order placed with an `Idempotency-Key`, so the model shows the idempotency record.
async fn place_idempotent_order(table: &store::Table) -> Result<(), Box<dyn std::error::Error>> {
    use keys::{Id, Timestamp, commerce::Sku};
    let order_id = crate::seed::order_id("2020-12-24");
    let order = commerce::data::NewOrder {
        customer: Id::parse("customerId", crate::seed::CUSTOMER)?,
        order_id,
        created_at: Timestamp::from_ms(order_id.timestamp_ms())?,
        lines: vec![(Sku::new(42)?, 1, 499)],
        design: Default::default(),
    };
    let key = commerce::data::IdempotencyKey {
        key: Id::parse("Idempotency-Key", "workbench-sample")?,
        request_hash: "sample".into(),
        response: "{}".into(),
        expires_at: 4_102_444_800,
    };
    commerce::fixtures::place_order(table, &order, Some(&key)).await?;
    Ok(())
}

/// Runs the stream handlers over every item as if each had just been written (one INSERT
/// record each, in batches as Lambda delivers them), so the derived items and counters are
/// those the pipeline keeps.
async fn derive(table: &store::Table) -> Result<(), Box<dyn std::error::Error>> {
    let items = devkit::all_items(table).await;
    let records: Vec<Value> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            devkit::stream_record(
                &format!("workbench{i:06}"),
                i as u64 + 1,
                devkit::Change::Insert(item),
            )
        })
        .collect();
    for batch in records.chunks(100) {
        let event: stream_handler::Event = devkit::stream_event(batch.to_vec());
        let commerce = commerce::commerce_stream::handle(
            &devkit::deps(table.clone(), commerce::commerce_stream::CONSUMER.needs),
            event.clone(),
        )
        .await;
        let reviews = reviews::aggregate_reviews::handle(
            &devkit::deps(table.clone(), reviews::aggregate_reviews::CONSUMER.needs),
            event,
        )
        .await;
        let failed = commerce.batch_item_failures.len() + reviews.batch_item_failures.len();
        if failed > 0 {
            return Err(format!("the stream handlers failed {failed} records").into());
        }
    }
    Ok(())
}
