//! `make seed SIZE=large`'s loader, at a small volume against DynamoDB Local: every item it
//! writes is an entity of the key registry, and a second run changes nothing the stream
//! pipeline derives (the items that carry derived values are only put if absent).

use std::collections::BTreeMap;

use keys::{Space, registry};
use tools::volume::{self, Volume};

const SMALL: Volume = Volume {
    customers: 40,
    orders: 120,
    products: 8,
    carts: 10,
    books: 6,
    users: 25,
    reviews: 90,
    courses: 2,
    occurrences_per_course: 3,
    certificates: 60,
    employees: 15,
};

#[tokio::test]
async fn every_generated_item_is_an_entity_and_a_second_run_changes_no_derived_value() {
    let table = devkit::table().await;
    let first = volume::load(&table, &SMALL, |_, _| {}).await.unwrap();
    let items = devkit::all_items(&table).await;
    assert_eq!(first, items.len(), "one item written per item planned");

    let mut by_entity: BTreeMap<String, usize> = BTreeMap::new();
    for item in &items {
        let entity = model::type_of(item).expect("a Type").to_owned();
        let (pk, sk) = (item["PK"].as_s().unwrap(), item["SK"].as_s().unwrap());
        let kinds = registry::classify(Space::Base, pk, sk);
        assert_eq!(
            kinds.iter().map(|k| k.entity).collect::<Vec<_>>(),
            [entity.as_str()],
            "{pk} / {sk}"
        );
        *by_entity.entry(entity).or_default() += 1;
    }
    assert_eq!(by_entity["Customer"], 40);
    assert_eq!(by_entity["Book"], 6);
    assert_eq!(by_entity["Review"], 90, "one review per (user, book) pair");
    assert_eq!(by_entity["ReviewMarker"], 90);
    assert_eq!(by_entity["Certificate"], 60);
    assert_eq!(by_entity["Employee"], 15);
    assert_eq!(by_entity["CurrentJob"], 15);
    assert_eq!(by_entity["Order"], 120);
    assert_eq!(by_entity["OrderHeader"], 120);

    // Stand in for the stream pipeline: a customer's derived count is now 7.
    let customer = items
        .iter()
        .find(|i| model::type_of(i) == Some("Customer"))
        .unwrap();
    let mut counted = customer.clone();
    counted.insert("OrderCount".into(), model::n(7));
    table.put_item(counted.clone(), None).await.unwrap();

    let second = volume::load(&table, &SMALL, |_, _| {}).await.unwrap();
    let again = devkit::all_items(&table).await;
    assert_eq!(again.len(), items.len(), "the same items");
    assert!(
        second < first,
        "the conditional puts found their items: {second} of {first}"
    );
    assert!(
        again.contains(&counted),
        "a second run kept the derived count"
    );
}
