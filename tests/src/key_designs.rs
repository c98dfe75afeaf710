//! What each key design can and cannot express, asked of DynamoDB Local itself (the 3.3.0 jar
//! that `make run` and `make test` start), so that docs/key-designs.md cannot drift from it.
//!
//! The concatenated design (the seeds', GSI1/GSI2) builds one string per key attribute; the
//! multi-attribute design (November 2025) gives a GSI up to four typed partition attributes and
//! four typed sort attributes. These tests use raw requests on small tables of their own, not the
//! keys crate, so they record what DynamoDB refuses, not what our builders let through: the keys
//! crate's own tests prove its builders cannot express what is refused here.

use aws_sdk_dynamodb::{
    Client,
    error::ProvideErrorMetadata,
    types::{
        AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement,
        KeyType, LocalSecondaryIndex, Projection, ProjectionType, ScalarAttributeType,
    },
};
use model::Item;

use ScalarAttributeType::{N, S};

/// One key attribute: its name, type and role.
pub(crate) type Key = (&'static str, ScalarAttributeType, KeyType);

pub(crate) const fn hash(name: &'static str, ty: ScalarAttributeType) -> Key {
    (name, ty, KeyType::Hash)
}

pub(crate) const fn range(name: &'static str, ty: ScalarAttributeType) -> Key {
    (name, ty, KeyType::Range)
}

/// The index of course occurrences by date, as the multi-attribute design declares it.
const OCCURRENCES: &[Key] = &[
    hash("CourseKey", S),
    range("Year", N),
    range("Month", N),
    range("Day", N),
    range("LocationKey", S),
];
/// Orders of a customer in a status, with a two-attribute partition.
const ORDERS: &[Key] = &[
    hash("CustomerId", S),
    hash("Status", S),
    range("PlacedAt", N),
    range("OrderId", S),
];
/// Orders of a customer by status, then id: two text sort attributes.
const STATUSES: &[Key] = &[
    hash("CustomerId", S),
    range("Status", S),
    range("OrderId", S),
];
/// The seeds' concatenated index: one string per key part.
const CONCATENATED: &[Key] = &[hash("GSI1PK", S), range("GSI1SK", S)];
const BASE: &[Key] = &[hash("PK", S)];

fn schema(keys: &[Key]) -> Vec<KeySchemaElement> {
    keys.iter()
        .map(|(name, _, kind)| {
            KeySchemaElement::builder()
                .attribute_name(*name)
                .key_type(kind.clone())
                .build()
                .expect("complete")
        })
        .collect()
}

/// Asks DynamoDB Local to create a table: `Ok(name)`, or `Err` with its refusal's message.
pub(crate) async fn create(
    base: &[Key],
    gsis: &[(&str, &[Key])],
    lsis: &[(&str, &[Key])],
) -> Result<String, String> {
    let client = devkit::client();
    devkit::reap_test_tables(&client, devkit::TABLE_PREFIXES).await;
    let name = devkit::test_table_name("test", &ulid::Ulid::new().to_string().to_lowercase());
    let mut attributes: Vec<&Key> = Vec::new();
    let every = base
        .iter()
        .chain(gsis.iter().flat_map(|(_, k)| k.iter()))
        .chain(lsis.iter().flat_map(|(_, k)| k.iter()));
    for key in every {
        if !attributes.iter().any(|a| a.0 == key.0) {
            attributes.push(key);
        }
    }
    let all = || {
        Projection::builder()
            .projection_type(ProjectionType::All)
            .build()
    };
    let mut req = client
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .set_key_schema(Some(schema(base)));
    for (attr, ty, _) in attributes {
        req = req.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(*attr)
                .attribute_type(ty.clone())
                .build()
                .expect("complete"),
        );
    }
    for (index, keys) in gsis {
        req = req.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(*index)
                .set_key_schema(Some(schema(keys)))
                .projection(all())
                .build()
                .expect("complete"),
        );
    }
    for (index, keys) in lsis {
        req = req.local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name(*index)
                .set_key_schema(Some(schema(keys)))
                .projection(all())
                .build()
                .expect("complete"),
        );
    }
    match req.send().await {
        Ok(_) => Ok(name),
        Err(e) => Err(refusal(e)),
    }
}

/// What DynamoDB said when it refused a request (its message; the whole error if it has none).
fn refusal<E, R>(e: aws_sdk_dynamodb::error::SdkError<E, R>) -> String
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    match e.as_service_error().and_then(|s| s.message()) {
        Some(message) => message.to_owned(),
        None => aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
    }
}

/// A table with the three indexes above, to query.
async fn probe_table() -> (Client, String) {
    let name = create(
        BASE,
        &[
            ("Occurrences", OCCURRENCES),
            ("Orders", ORDERS),
            ("Statuses", STATUSES),
            ("Concatenated", CONCATENATED),
        ],
        &[],
    )
    .await
    .unwrap_or_else(|e| panic!("DynamoDB Local refused the probe table: {e}"));
    (devkit::client(), name)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: u32) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

async fn put(client: &Client, table: &str, item: &[(&str, AttributeValue)]) -> Result<(), String> {
    let item: Item = item
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .send()
        .await
        .map(|_| ())
        .map_err(refusal)
}

/// Queries `index` with `condition`, where every attribute is written `#Name` and every value
/// `:name` (Year, Month and Day are reserved words): the items, or DynamoDB's refusal.
async fn query(
    client: &Client,
    table: &str,
    index: &str,
    condition: &str,
    values: &[(&str, AttributeValue)],
) -> Result<Vec<Item>, String> {
    let mut req = client
        .query()
        .table_name(table)
        .index_name(index)
        .key_condition_expression(condition);
    for word in condition.split(|c: char| !(c.is_alphanumeric() || c == '#')) {
        if let Some(attr) = word.strip_prefix('#') {
            req = req.expression_attribute_names(word, attr);
        }
    }
    for (name, value) in values {
        req = req.expression_attribute_values(format!(":{name}"), value.clone());
    }
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let out = req
            .clone()
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(refusal)?;
        items.extend(out.items.unwrap_or_default());
        start = out.last_evaluated_key;
        if start.is_none() {
            return Ok(items);
        }
    }
}

fn texts(items: &[Item], attr: &str) -> Vec<String> {
    items
        .iter()
        .map(|i| match i.get(attr) {
            Some(AttributeValue::S(v)) | Some(AttributeValue::N(v)) => v.clone(),
            _ => panic!("{attr} missing from {i:?}"),
        })
        .collect()
}

/// Asserts `result` is a refusal whose message holds `words`, and shows the message (`cargo test
/// -- --nocapture`), which docs/key-designs.md quotes.
fn refused<T: std::fmt::Debug>(what: &str, result: Result<T, String>, words: &str) {
    match result {
        Ok(v) => panic!("DynamoDB Local accepted {what}: {v:?}"),
        Err(message) => {
            println!("{what}: {message}");
            assert!(
                message.contains(words),
                "{what} was refused, but the message no longer says {words:?}: {message}"
            );
        }
    }
}

#[tokio::test]
async fn a_gsi_takes_four_partition_and_four_sort_attributes_not_five() {
    let four: &[Key] = &[
        hash("P1", S),
        hash("P2", N),
        hash("P3", S),
        hash("P4", S),
        range("S1", N),
        range("S2", S),
        range("S3", N),
        range("S4", S),
    ];
    create(BASE, &[("Four", four)], &[])
        .await
        .expect("four partition and four sort attributes are accepted");

    let mut five_partition = four.to_vec();
    five_partition.insert(4, hash("P5", S));
    refused(
        "a fifth partition attribute",
        create(BASE, &[("Five", &five_partition)], &[]).await,
        "Key Schema too big",
    );
    let mut five_sort = four.to_vec();
    five_sort.push(range("S5", S));
    refused(
        "a fifth sort attribute",
        create(BASE, &[("Five", &five_sort)], &[]).await,
        "Key Schema too big",
    );
}

#[tokio::test]
async fn base_tables_and_lsis_take_one_attribute_per_key_part() {
    refused(
        "a base table with two partition attributes",
        create(&[hash("PK", S), hash("Tenant", S)], &[], &[]).await,
        "Too many hash keys specified",
    );
    refused(
        "a base table with two sort attributes",
        create(&[hash("PK", S), range("SK", S), range("At", N)], &[], &[]).await,
        "Key Schema too big",
    );
    let base = &[hash("PK", S), range("SK", S)];
    create(base, &[], &[("ByAt", &[hash("PK", S), range("At", N)])])
        .await
        .expect("an LSI with one sort attribute is accepted");
    refused(
        "an LSI with two sort attributes",
        create(
            base,
            &[],
            &[("ByAt", &[hash("PK", S), range("At", N), range("Id", S)])],
        )
        .await,
        "Key Schema too big",
    );
}

#[tokio::test]
async fn a_key_condition_names_every_partition_attribute_then_sort_attributes_without_gaps() {
    let (client, table) = probe_table().await;
    let c = || ("c", s("intro"));
    refused(
        "a query missing a partition attribute",
        query(&client, &table, "Orders", "#CustomerId = :c", &[c()]).await,
        "HASH key attributes Status must have equality conditions",
    );
    refused(
        "a range on a partition attribute",
        query(
            &client,
            &table,
            "Orders",
            "#CustomerId = :c AND begins_with(#Status, :s)",
            &[c(), ("s", s("OP"))],
        )
        .await,
        "HASH key attributes Status must have equality conditions",
    );
    refused(
        "a gap in the sort attributes (Year, then Day)",
        query(
            &client,
            &table,
            "Occurrences",
            "#CourseKey = :c AND #Year = :y AND #Day = :d",
            &[c(), ("y", n(2022)), ("d", n(15))],
        )
        .await,
        "RANGE key attributes Month must have equality conditions",
    );
    refused(
        "a sort condition without the first sort attribute",
        query(
            &client,
            &table,
            "Occurrences",
            "#CourseKey = :c AND #Month = :m",
            &[c(), ("m", n(3))],
        )
        .await,
        "RANGE key attributes Year must have equality conditions",
    );
    refused(
        "a range before the last sort attribute used",
        query(
            &client,
            &table,
            "Occurrences",
            "#CourseKey = :c AND #Year BETWEEN :a AND :b AND #Month = :m",
            &[c(), ("a", n(2021)), ("b", n(2022)), ("m", n(3))],
        )
        .await,
        "RANGE key attributes Year must have equality conditions",
    );
    refused(
        "begins_with before the last sort attribute used",
        query(
            &client,
            &table,
            "Statuses",
            "#CustomerId = :c AND begins_with(#Status, :s) AND #OrderId = :o",
            &[c(), ("s", s("OP")), ("o", s("01J"))],
        )
        .await,
        "RANGE key attributes Status must have equality conditions",
    );
    refused(
        "begins_with on a number",
        query(
            &client,
            &table,
            "Occurrences",
            "#CourseKey = :c AND begins_with(#Year, :y)",
            &[c(), ("y", n(20))],
        )
        .await,
        "operator or function: begins_with, operand type: N",
    );
    refused(
        "OR in a key condition",
        query(
            &client,
            &table,
            "Occurrences",
            "#CourseKey = :c AND (#Year = :a OR #Year = :b)",
            &[c(), ("a", n(2021)), ("b", n(2022))],
        )
        .await,
        "Invalid operator used in KeyConditionExpression: OR",
    );
    refused(
        "IN in a key condition",
        query(
            &client,
            &table,
            "Occurrences",
            "#CourseKey = :c AND #Year IN (:a, :b)",
            &[c(), ("a", n(2021)), ("b", n(2022))],
        )
        .await,
        "Invalid operator used in KeyConditionExpression: IN",
    );
    // What is allowed: equality down the sort attributes, then one range or begins_with on the
    // last one used (L3-L6).
    for (condition, values) in [
        ("#CourseKey = :c", vec![c()]),
        (
            "#CourseKey = :c AND #Year BETWEEN :a AND :b",
            vec![c(), ("a", n(2021)), ("b", n(2022))],
        ),
        (
            "#CourseKey = :c AND #Year = :y AND #Month > :m",
            vec![c(), ("y", n(2022)), ("m", n(2))],
        ),
        (
            "#CourseKey = :c AND #Year = :y AND #Month = :m AND #Day = :d AND begins_with(#LocationKey, :l)",
            vec![
                c(),
                ("y", n(2022)),
                ("m", n(3)),
                ("d", n(15)),
                ("l", s("b")),
            ],
        ),
    ] {
        query(&client, &table, "Occurrences", condition, &values)
            .await
            .unwrap_or_else(|e| panic!("{condition} was refused: {e}"));
    }
}

#[tokio::test]
async fn numbers_sort_as_numbers_where_a_concatenated_key_needs_padding() {
    let (client, table) = probe_table().await;
    // Three occurrences of one course: March, September and October 2022 on the 5th, each with
    // the concatenated keys of the seeds written twice, padded and not.
    for (month, padded, bare) in [(3, "03", "3"), (9, "09", "9"), (10, "10", "10")] {
        for (tag, text) in [("padded", padded), ("bare", bare)] {
            put(
                &client,
                &table,
                &[
                    ("PK", s(&format!("{tag}#{month}"))),
                    ("CourseKey", s(&format!("course-{tag}"))),
                    ("Year", n(2022)),
                    ("Month", n(month)),
                    ("Day", n(5)),
                    ("LocationKey", s("building 1")),
                    ("GSI1PK", s(&format!("course#{tag}#"))),
                    ("GSI1SK", s(&format!("2022/{text}/5#building 1#"))),
                ],
            )
            .await
            .expect("a put");
        }
    }
    let typed = query(
        &client,
        &table,
        "Occurrences",
        "#CourseKey = :c AND #Year = :y",
        &[("c", s("course-bare")), ("y", n(2022))],
    )
    .await
    .expect("L3");
    assert_eq!(texts(&typed, "Month"), ["3", "9", "10"], "numbers by value");
    let concatenated = |tag: &'static str| {
        let client = client.clone();
        let table = table.clone();
        async move {
            let items = query(
                &client,
                &table,
                "Concatenated",
                "#GSI1PK = :p AND begins_with(#GSI1SK, :y)",
                &[("p", s(&format!("course#{tag}#"))), ("y", s("2022/"))],
            )
            .await
            .expect("L3, concatenated");
            texts(&items, "Month")
        }
    };
    assert_eq!(
        concatenated("bare").await,
        ["10", "3", "9"],
        "unpadded text sorts 10 before 3"
    );
    assert_eq!(concatenated("padded").await, ["3", "9", "10"]);
}

#[tokio::test]
async fn an_item_lacking_a_key_attribute_is_absent_from_the_index_and_any_wrong_type_is_refused() {
    let (client, table) = probe_table().await;
    let occurrence = |pk: &str, day: Option<u32>| {
        let mut item = vec![
            ("PK", s(pk)),
            ("CourseKey", s("intro")),
            ("Year", n(2022)),
            ("Month", n(3)),
            ("LocationKey", s("building 1")),
        ];
        item.extend(day.map(|d| ("Day", n(d))));
        item
    };
    put(&client, &table, &occurrence("complete", Some(15)))
        .await
        .expect("a put");
    put(&client, &table, &occurrence("no-day", None))
        .await
        .expect("an item lacking a key attribute is written without complaint");
    let listed = query(
        &client,
        &table,
        "Occurrences",
        "#CourseKey = :c",
        &[("c", s("intro"))],
    )
    .await
    .expect("L2");
    assert_eq!(texts(&listed, "PK"), ["complete"], "only the complete item");

    // Any item: one that is no occurrence and lacks the index's other key attributes, but
    // carries an attribute of a key attribute's name with another type. An index's key attribute
    // names are typed for the whole table.
    refused(
        "an unrelated item with Year as a string",
        put(
            &client,
            &table,
            &[("PK", s("certificate")), ("Year", s("2022"))],
        )
        .await,
        "Type mismatch for Index Key",
    );
    let mut text_year = occurrence("text-year", Some(15));
    text_year[2].1 = s("2022");
    refused(
        "a key attribute of the wrong type (Year as a string)",
        put(&client, &table, &text_year).await,
        "Type mismatch for Index Key",
    );
}

#[tokio::test]
async fn a_delimiter_reorders_text_holding_a_character_that_sorts_below_it() {
    let (client, table) = probe_table().await;
    // Two locations of one course day, one a prefix of the other plus `!` (0x21, below `#`): as
    // typed attributes the prefix comes first; concatenated with `#` after each attribute, `a!#`
    // sorts before `a#`. Concatenation keeps value order only for text whose every character sorts
    // above the delimiter.
    for location in ["a", "a!"] {
        put(
            &client,
            &table,
            &[
                ("PK", s(location)),
                ("CourseKey", s("intro")),
                ("Year", n(2022)),
                ("Month", n(3)),
                ("Day", n(15)),
                ("LocationKey", s(location)),
                ("GSI1PK", s("course#intro#")),
                ("GSI1SK", s(&format!("2022/03/15#{location}#"))),
            ],
        )
        .await
        .expect("a put");
    }
    let typed = query(
        &client,
        &table,
        "Occurrences",
        "#CourseKey = :c AND #Year = :y AND #Month = :m AND #Day = :d",
        &[("c", s("intro")), ("y", n(2022)), ("m", n(3)), ("d", n(15))],
    )
    .await
    .expect("L5");
    assert_eq!(texts(&typed, "PK"), ["a", "a!"]);
    let concatenated = query(
        &client,
        &table,
        "Concatenated",
        "#GSI1PK = :p AND begins_with(#GSI1SK, :d)",
        &[("p", s("course#intro#")), ("d", s("2022/03/15#"))],
    )
    .await
    .expect("L5, concatenated");
    assert_eq!(texts(&concatenated, "PK"), ["a!", "a"]);
}

#[tokio::test]
async fn a_key_string_holds_at_most_2048_bytes_in_a_partition_and_1024_in_a_sort_key() {
    // What bounds how many parts a concatenated key can hold (an index key as a table key).
    let (client, table) = probe_table().await;
    let item = |pk: usize, sk: usize| {
        vec![
            ("PK", s("limits")),
            ("GSI1PK", s(&"p".repeat(pk))),
            ("GSI1SK", s(&"s".repeat(sk))),
        ]
    };
    put(&client, &table, &item(2048, 1024))
        .await
        .expect("2,048 and 1,024 bytes are accepted");
    for (pk, sk) in [(2049, 1024), (2048, 1025)] {
        refused(
            &format!("an index key of {pk} and {sk} bytes"),
            put(&client, &table, &item(pk, sk)).await,
            "Size limit exceeded",
        );
    }
}
