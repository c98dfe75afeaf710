//! A throwaway table in DynamoDB Local, as tests, benchmarks and the workbench model use it: made
//! as `template.yaml` declares it (with every index any deployment of it creates, so that one
//! table serves a test of each design), filled fast, read whole, and a function's dependencies
//! on it.

use model::Item;
use store::{Deps, Needs, Table};

/// Signs pagination cursors in tests.
pub const TEST_CURSOR_KEY: &str = "tests-cursor-signing-key-0123456789";
/// Write shards of the sharded counters in tests (the template's default).
pub const TEST_SHARDS: u32 = 10;

/// A function's dependencies on `table`: only what `needs` declares is set, as in AWS.
pub fn deps(table: Table, needs: Needs) -> Deps {
    Deps::new(table, needs, TEST_CURSOR_KEY, TEST_SHARDS).expect("valid test settings")
}

/// The prefixes of throwaway tables: a test's (`test-`) and a test stack's (`e2e-`).
pub const TABLE_PREFIXES: &[&str] = &["test", "e2e"];

/// A new, empty table in DynamoDB Local (at `AWS_ENDPOINT_URL_DYNAMODB`), recording every request:
/// the template's table with every index it declares under any condition
/// ([`sam_template::Table::with_every_index`]). The tables of earlier test processes are deleted
/// first (once per process).
pub async fn table() -> Table {
    let client = crate::client();
    crate::reap_test_tables(&client, TABLE_PREFIXES).await;
    let name = crate::test_table_name("test", &ulid::Ulid::new().to_string().to_lowercase());
    let every = sam_template::Template::workspace().map(|t| t.table.with_every_index());
    let created = match every {
        Ok(table) => crate::create_table(&client, &name, &table).await,
        Err(e) => Err(e.into()),
    };
    created
        .unwrap_or_else(|e| {
            panic!(
                "cannot create a table in DynamoDB Local at {} ({e}); start one with `scripts/dynamodb-local.sh start 8001` and set AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8001, or run `make test`",
                crate::endpoint()
            )
        });
    Table::new(client, name).recording()
}

/// Writes entities fast, 25 to a BatchWriteItem (tests that need big collections).
pub async fn batch_put<E: model::Entity>(table: &Table, entities: &[E]) {
    use store::aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
    for chunk in entities.chunks(25) {
        let mut pending: Vec<WriteRequest> = chunk
            .iter()
            .map(|e| {
                let put = PutRequest::builder()
                    .set_item(Some(model::to_item(e).expect("an item")))
                    .build()
                    .expect("a put");
                WriteRequest::builder().put_request(put).build()
            })
            .collect();
        while !pending.is_empty() {
            let out = table
                .client()
                .batch_write_item()
                .request_items(table.name(), pending)
                .send()
                .await
                .expect("batch write");
            pending = out
                .unprocessed_items
                .and_then(|mut u| u.remove(table.name()))
                .unwrap_or_default();
        }
    }
}

/// Every item of a table (tests only: the functions never scan).
pub async fn all_items(table: &Table) -> Vec<Item> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let out = table
            .client()
            .scan()
            .table_name(table.name())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        items.extend(out.items.unwrap_or_default());
        start = out.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    items.sort_by_key(key_of);
    items
}

fn key_of(item: &Item) -> (String, String) {
    let get = |k: &str| {
        item.get(k)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    (get("PK"), get("SK"))
}
