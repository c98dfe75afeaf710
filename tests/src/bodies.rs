//! Every route that takes a body, sent what is not the documented JSON object (`[5]` once set a
//! cart line's quantity to 5: serde fills a struct from an array of its fields): a 400, and
//! nothing written.

use sam_template::Template;
use serde_json::Value;

use crate::dispatch;

#[tokio::test]
async fn a_body_that_is_not_a_json_object_is_a_400_and_writes_nothing() {
    let t = Template::workspace().unwrap();
    let mut checked = 0;
    let with_body = t.functions.iter().filter(|f| {
        f.routes
            .iter()
            .any(|r| crate::openapi::takes_body(&r.method, &r.path))
    });
    // One seeded table for all: a refused body writes nothing (each asserts so), so each call
    // starts from the same items.
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let before = testkit::all_items(&table).await;
    for f in with_body {
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        for body in [
            "[5]",
            "5",
            "\"x\"",
            "null",
            "true",
            "[]",
            "[{\"quantity\":5}]",
        ] {
            let mut event = sample.clone();
            event["body"] = Value::String(body.to_owned());
            let response = dispatch::handle(f.name(), &table, testkit::request(&event))
                .await
                .unwrap_or_else(|| panic!("no handler for {}", f.name()));
            let (status, answer) = testkit::response_json(&response);
            assert_eq!(
                (status, answer["code"].as_str()),
                (400, Some("invalid_body")),
                "{} with {body}: {answer}",
                f.name()
            );
            crate::openapi::assert_event_answer(&event, status, &answer);
            assert_eq!(
                testkit::all_items(&table).await,
                before,
                "{} wrote",
                f.name()
            );
        }
        checked += 1;
    }
    // The eight of commerce and reviews (put-user's body and delete-cart-line's `{version}` are
    // optional), the two of learning, the three of HR and the three of order entry (products,
    // inventories, inventory adjustments).
    assert_eq!(checked, 16, "routes with a body");
}
