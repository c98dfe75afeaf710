//! `make seed --layout table-per-context`: the seed rows, seed 003's org and a small volume, each
//! item written into its context's table (commerce's transactions checking reps and warehouses
//! in HR's), and nothing of one context in another's table.

use std::collections::BTreeSet;

use keys::{Space, registry};
use tools::layout::{TABLE_PER_CONTEXT, Tables};
use tools::volume::{self, Volume};

const TINY: Volume = Volume {
    customers: 10,
    orders: 20,
    products: 4,
    carts: 3,
    books: 3,
    users: 6,
    reviews: 12,
    courses: 1,
    occurrences_per_course: 2,
    certificates: 8,
    employees: 5,
};

#[tokio::test]
async fn the_seed_writes_each_item_into_its_context_s_table() {
    let client = devkit::client();
    devkit::reap_test_tables(&client, devkit::TABLE_PREFIXES).await;
    let base = devkit::test_table_name("test", &keys::SortableId::new().to_string().to_lowercase());
    let template = sam_template::Template::workspace_with(&[(
        sam_template::layout::PARAMETER,
        TABLE_PER_CONTEXT,
    )])
    .unwrap();
    for declared in &template.tables {
        let name = sam_template::local_table_name(&base, &declared.logical_id);
        devkit::create_table(&client, &name, declared)
            .await
            .unwrap();
    }
    let tables =
        Tables::of_layout(&store::Table::new(client.clone(), &base), TABLE_PER_CONTEXT).unwrap();
    assert!(tools::seed::load_into(&tables).await.unwrap() > 0);
    let org = tools::org::load_into(&tables, 20).await.unwrap();
    assert!(
        org.customers > 0,
        "customers under reps of HR's table: {org:?}"
    );
    assert!(volume::load_into(&tables, &TINY, |_, _| {}).await.unwrap() > 0);

    for (context, table) in [
        ("commerce", &tables.commerce),
        ("reviews", &tables.reviews),
        ("learning", &tables.learning),
        ("hr", &tables.hr),
    ] {
        let items = devkit::all_items(table).await;
        assert!(!items.is_empty(), "{context}: its items");
        let found: BTreeSet<&str> = items
            .iter()
            .map(|item| {
                let (pk, sk) = (item["PK"].as_s().unwrap(), item["SK"].as_s().unwrap());
                registry::classify(Space::Base, pk, sk)
                    .first()
                    .map_or("unknown", |k| k.context)
            })
            .collect();
        assert_eq!(found, BTreeSet::from([context]), "{}", table.name());
    }
}
