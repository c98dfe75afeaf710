//! `make seed --layout table-per-context`: the seed rows, seed 003's org and a small volume, each
//! item written into its context's table (commerce's transactions checking reps and warehouses
//! in HR's), and nothing of one context in another's table. Then the operator's tools on those
//! tables, through the real binaries: `reconcile` checks and repairs each table, `migrate` and
//! `move_index` run on theirs, as in one table.

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

    let tool = |binary: &'static str, args: Vec<&'static str>| {
        let (endpoint, base) = (devkit::endpoint(), base.clone());
        async move {
            let out = tokio::process::Command::new(binary)
                .args(["--endpoint", &endpoint, "--table", &base])
                .args(["--layout", TABLE_PER_CONTEXT])
                .args(args)
                .output()
                .await
                .unwrap();
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            (out.status.code(), said)
        }
    };
    const RECONCILE: &str = env!("CARGO_BIN_EXE_reconcile");
    // Nothing derived yet (no stream ran): drift, in the tables that derive values, each named.
    let (code, said) = tool(RECONCILE, vec![]).await;
    assert_eq!(code, Some(1), "{said}");
    for table in [
        &tables.commerce,
        &tables.reviews,
        &tables.learning,
        &tables.hr,
    ] {
        assert!(
            said.contains(&format!("table {}: ", table.name())),
            "{said}"
        );
    }
    // Repaired (statuses first, then the sums they move), then nothing drifts in any table.
    for _ in 0..2 {
        let (code, said) = tool(RECONCILE, vec!["--repair", "--settle", "0"]).await;
        assert_eq!(code, Some(0), "{said}");
    }
    let (code, said) = tool(RECONCILE, vec![]).await;
    assert_eq!(code, Some(0), "no drift left in any table: {said}");
    let (code, said) = tool(env!("CARGO_BIN_EXE_migrate"), vec!["--dry-run"]).await;
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("would move to v02"), "{said}");
    let (code, said) = tool(env!("CARGO_BIN_EXE_move_index"), vec!["--dry-run"]).await;
    assert_eq!(code, Some(0), "{said}");
}
