//! Derived values after a drift (a negative count, text where a number belongs, a shard sum that
//! overflows): every read that shows them still answers 200, with the drifted values `null` and
//! named in `X-Derived-Inconsistent`, instead of failing (a 500 forever, until a repair).

use keys::{Date, Id, Shard, commerce::Sku, reviews::Isbn};
use model::{
    Entity,
    commerce::{Customer, ProductSales},
    derived::DailyStats,
    n,
    reviews::{Book, User},
    s,
};
use serde_json::Value;
use store::{Table, Update};

use crate::dispatch;

async fn set(table: &Table, key: &keys::PrimaryKey, attribute: &'static str, value: model::Item) {
    let v = value.into_values().next().expect("a value");
    table
        .update(key, &Update::new().set(attribute, v), None)
        .await
        .unwrap();
}

fn one(v: aws_sdk_dynamodb::types::AttributeValue) -> model::Item {
    model::Item::from([("v".to_owned(), v)])
}

/// The sample of `function` sent against `table`: status, body, the drift header.
async fn read(table: &Table, function: &str) -> (u16, Value, Option<String>) {
    let sample = testkit::sample_event(&format!("{function}.json"));
    let response = dispatch::handle(function, table, testkit::request(&sample))
        .await
        .unwrap();
    let header = response
        .headers()
        .get(api::DERIVED_INCONSISTENT)
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, body) = testkit::response_json(&response);
    crate::openapi::assert_event_answer(&sample, status, &body);
    (status, body, header)
}

#[tokio::test]
async fn drifted_derived_values_show_as_null_and_are_named_never_a_500() {
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let (s0, clean, h0) = read(&table, "get-customer").await;
    assert_eq!((s0, h0), (200, None), "{clean}");

    let customer = keys::commerce::customer(&Id::parse("c", "123").unwrap());
    set(&table, &customer, Customer::ORDER_COUNT, one(n(-3))).await;
    set(&table, &customer, Customer::LIFETIME_VALUE, one(s("lots"))).await;
    let (status, body, header) = read(&table, "get-customer").await;
    assert_eq!(status, 200, "{body}");
    assert!(body["customer"]["orderCount"].is_null());
    assert!(body["customer"]["lifetimeValue"].is_null());
    assert_eq!(header.as_deref(), Some("orderCount, lifetimeValue"));

    let book = keys::reviews::book(&Isbn::parse("9780261102354").unwrap());
    set(&table, &book, Book::RATING_COUNT, one(n(-1))).await;
    let (status, body, header) = read(&table, "get-book").await;
    assert_eq!(status, 200, "{body}");
    assert!(body["book"]["rating"]["count"].is_null());
    assert!(body["book"]["rating"]["average"].is_null());
    assert_eq!(header.as_deref(), Some("rating.count"));

    let user = keys::reviews::user(&Id::parse("u", "frodo").unwrap());
    set(&table, &user, User::REVIEW_COUNT, one(n("1e30"))).await;
    let (status, body, header) = read(&table, "get-user").await;
    assert_eq!(
        (status, header.as_deref()),
        (200, Some("reviewCount")),
        "{body}"
    );

    // Shard sums (the sample reads SKU 1003): a negative shard, two shards whose sum overflows.
    let sales = |shard| {
        keys::commerce::product_sales(
            Sku::new(1003).unwrap(),
            Shard::new(shard, testkit::TEST_SHARDS).unwrap(),
        )
    };
    set(&table, &sales(0), ProductSales::UNITS_SOLD, one(n(-5))).await;
    set(&table, &sales(1), ProductSales::REVENUE, one(n(i64::MAX))).await;
    set(&table, &sales(2), ProductSales::REVENUE, one(n(i64::MAX))).await;
    for shard in [0, 1, 2] {
        set(&table, &sales(shard), "Type", one(s(ProductSales::TYPE))).await;
    }
    let (status, body, header) = read(&table, "get-product-sales").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["unitsSold"].is_null() && body["revenue"].is_null(),
        "{body}"
    );
    assert_eq!(header.as_deref(), Some("unitsSold, revenue"));

    let stats = keys::derived::daily_stats(
        Date::parse_iso("2020-12-06").unwrap(),
        Shard::new(3, testkit::TEST_SHARDS).unwrap(),
    );
    set(&table, &stats, DailyStats::REVIEWS, one(n(-2))).await;
    let (status, body, header) = read(&table, "get-daily-stats").await;
    assert_eq!(
        (status, header.as_deref()),
        (200, Some("reviews")),
        "{body}"
    );
    assert!(
        body["orders"].is_number(),
        "the other sums still show: {body}"
    );
}
