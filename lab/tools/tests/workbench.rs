//! The committed NoSQL Workbench model (`make workbench`) holds to the model layer: its shape is
//! what Workbench imports, every sample item decodes into its entity and encodes back unchanged,
//! and a fresh generation writes the same keys.

use std::collections::BTreeSet;

use keys::{Space, registry};
use serde_json::Value;
use tools::workbench;

fn committed() -> Value {
    let path = sam_template::workspace_root().join(workbench::PATH);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `make workbench`)", path.display()));
    serde_json::from_str(&text).expect("the model is JSON")
}

#[test]
fn the_model_has_the_shape_workbench_imports() {
    let m = committed();
    assert_eq!(m["ModelMetadata"]["AWSService"], "Amazon DynamoDB");
    assert_eq!(m["ModelMetadata"]["Version"], "3.0");
    let tables = m["DataModel"].as_array().expect("DataModel");
    assert_eq!(tables.len(), 1, "one table");
    let t = &tables[0];
    let template = sam_template::Template::workspace().unwrap();
    assert_eq!(
        t["KeyAttributes"]["PartitionKey"]["AttributeName"],
        template.table.key.hash.as_str()
    );
    assert_eq!(
        t["KeyAttributes"]["SortKey"]["AttributeName"].as_str(),
        template.table.key.range.as_deref()
    );
    let indexes: Vec<(&str, &str, &str)> = t["GlobalSecondaryIndexes"]
        .as_array()
        .expect("GlobalSecondaryIndexes")
        .iter()
        .map(|i| {
            (
                i["IndexName"].as_str().unwrap(),
                i["KeyAttributes"]["PartitionKey"]["AttributeName"]
                    .as_str()
                    .unwrap(),
                i["KeyAttributes"]["SortKey"]["AttributeName"]
                    .as_str()
                    .unwrap(),
            )
        })
        .collect();
    let expected: Vec<(&str, &str, &str)> = workbench::workbench_indexes(&template.table)
        .map(|i| {
            (
                i.name.as_str(),
                i.key.hash.as_str(),
                i.key.range.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(indexes, expected);
    assert_eq!(
        expected.len() + keys::indexes::ALL.len(),
        template.table.declared_indexes.len()
    );
    // Every attribute is declared once, with a DynamoDB type.
    let mut declared = BTreeSet::new();
    for a in t["NonKeyAttributes"].as_array().expect("NonKeyAttributes") {
        assert!(
            ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"]
                .contains(&a["AttributeType"].as_str().unwrap()),
            "{a}"
        );
        assert!(declared.insert(a["AttributeName"].as_str().unwrap()));
    }
    // One facet per entity of the base table, each with its items and only declared attributes.
    let facets = t["TableFacets"].as_array().expect("TableFacets");
    let entities: BTreeSet<&str> = registry::KINDS
        .iter()
        .filter(|k| k.space == Space::Base)
        .map(|k| k.entity)
        .collect();
    let named: BTreeSet<&str> = facets
        .iter()
        .map(|f| f["FacetName"].as_str().unwrap())
        .collect();
    assert_eq!(named, entities);
    for f in facets {
        assert!(f["KeyAttributeAlias"]["PartitionKeyAlias"].is_string());
        assert!(f["KeyAttributeAlias"]["SortKeyAlias"].is_string());
        for a in f["NonKeyAttributes"].as_array().unwrap() {
            assert!(declared.contains(a.as_str().unwrap()), "{a} undeclared");
        }
    }
}

#[test]
fn every_sample_item_is_its_entity_and_round_trips_through_the_model() {
    let m = committed();
    let items = workbench::items_of(&m).expect("items");
    assert!(items.len() > 100, "{} items", items.len());
    let mut seen = BTreeSet::new();
    let mut mismatches = BTreeSet::new();
    for item in &items {
        let entity = model::type_of(item).expect("a Type").to_owned();
        let pk = item["PK"].as_s().unwrap();
        let sk = item["SK"].as_s().unwrap();
        let kinds = registry::classify(Space::Base, pk, sk);
        assert_eq!(
            kinds.iter().map(|k| k.entity).collect::<Vec<_>>(),
            [entity.as_str()],
            "{pk} / {sk}"
        );
        if workbench::ENTITY_TYPES.contains(&entity.as_str()) {
            let again = workbench::roundtrip(item).unwrap_or_else(|e| panic!("{pk} / {sk}: {e}"));
            for (name, value) in &again {
                // A derived counter the stream handlers have not written yet decodes as its
                // default; any attribute the item has must come back as it was.
                if let Some(was) = item.get(name) {
                    assert_eq!(was, value, "{entity} {pk} / {sk}: {name}");
                } else if value != &model::n(0) {
                    mismatches.insert(format!("{entity}: {name} added as {value:?}"));
                }
            }
            for name in item.keys().filter(|n| !again.contains_key(*n)) {
                // Kept beside the record, not in it: the store's write counter, a rep's ranking
                // key (O14), which `store::aggregate` writes with the total it sorts by, and the
                // stream consumers' marks.
                let beside = name == model::attr::REVISION
                    || store::aggregate::is_mark(name)
                    || (entity == keys::commerce::types::REP_SALES
                        && (name == "GSI1PK" || name == "GSI1SK"));
                if !beside {
                    mismatches.insert(format!("{entity}: {name} lost"));
                }
            }
        }
        seen.insert(entity);
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    for entity in workbench::ENTITY_TYPES {
        assert!(seen.contains(*entity), "no sample item of {entity}");
    }
}

#[tokio::test]
async fn a_fresh_generation_writes_the_same_keys() {
    let fresh = workbench::generate().await.expect("generate");
    let names = ["PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "Type"];
    assert_eq!(
        workbench::keys_of(&workbench::items_of(&fresh).unwrap(), &names),
        workbench::keys_of(&workbench::items_of(&committed()).unwrap(), &names),
        "the committed model is stale: run `make workbench`"
    );
}
