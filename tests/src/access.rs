//! Who may call what, for every API function, from its own sample event (`events/`), sent as its
//! `main` answers it (`api::dispatch`): the sample's caller is the owner (or staff, for staff
//! routes); these tests swap the caller and check the answer and that nothing was written.

use api::Access;
use sam_template::Template;
use serde_json::Value;

use crate::dispatch;

/// Every API function of the template, with its access and its sample event.
fn api_functions() -> Vec<(String, Access, Value)> {
    let t = Template::workspace().unwrap();
    t.functions
        .iter()
        .filter(|f| !f.routes.is_empty())
        .map(|f| {
            let access = dispatch::access(f.name())
                .unwrap_or_else(|| panic!("{} declares no access", f.name()));
            let sample = testkit::sample_event(&format!("{}.json", f.name()));
            (f.name().to_owned(), access, sample)
        })
        .collect()
}

fn without_token(mut event: Value) -> Value {
    if let Some(ctx) = event["requestContext"].as_object_mut() {
        ctx.remove("authorizer");
    }
    event
}

/// A table loaded with the seeds, and every item it holds.
struct Seeded {
    table: store::Table,
    items: Vec<model::Item>,
}

/// The refusals leave the table as it was (each asserts so), so one seeded table serves every
/// function of a test that asserts it.
async fn seeded() -> Seeded {
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let items = testkit::all_items(&table).await;
    Seeded { table, items }
}

/// The sample sent as `event` to a table loaded with the seeds: status, body, and whether the
/// table is exactly as before and no request was even sent.
async fn send_to(seeded: &Seeded, function: &str, event: &Value) -> (u16, Value, bool) {
    let table = &seeded.table;
    table.meter().reset();
    let response = dispatch::handle(function, table, testkit::request(event))
        .await
        .unwrap_or_else(|| panic!("no handler for {function}"));
    let sent = !table.meter().requests().is_empty();
    let (status, body) = testkit::response_json(&response);
    crate::openapi::assert_event_answer(event, status, &body);
    let unchanged = testkit::all_items(table).await == seeded.items;
    (status, body, unchanged && !sent)
}

/// [`send_to`] a table of its own, for calls that may write.
async fn send(function: &str, event: &Value) -> (u16, Value, bool) {
    send_to(&seeded().await, function, event).await
}

#[tokio::test]
async fn every_signed_in_route_without_a_token_is_401_and_touches_nothing() {
    let seeded = seeded().await;
    for (name, access, sample) in api_functions() {
        if !access.signed_in() {
            continue;
        }
        let (status, body, untouched) = send_to(&seeded, &name, &without_token(sample)).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (401, Some("unauthorized")),
            "{name}"
        );
        assert!(untouched, "{name}");
    }
}

#[tokio::test]
async fn every_owned_route_called_by_another_customer_is_404_and_touches_nothing() {
    let seeded = seeded().await;
    let mut checked = 0;
    for (name, access, sample) in api_functions() {
        let (Access::Owner { not_found, .. } | Access::OwnerOrStaff { not_found, .. }) = access
        else {
            continue;
        };
        let intruder = testkit::signed_in_as(sample, "intruder", &[]);
        let (status, body, untouched) = send_to(&seeded, &name, &intruder).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (404, Some(not_found.code)),
            "{name}"
        );
        assert!(untouched, "{name}: nothing read, nothing written");
        checked += 1;
    }
    assert!(
        checked >= 10,
        "the customer- and user-owned routes: {checked}"
    );
}

#[tokio::test]
async fn an_order_page_of_another_customer_is_404_like_a_missing_order() {
    for (name, access, sample) in api_functions() {
        if access != Access::SignedIn {
            continue;
        }
        let intruder = testkit::signed_in_as(sample.clone(), "intruder", &[]);
        let (status, body, _) = send(&name, &intruder).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (404, Some("order_not_found")),
            "{name}"
        );
        let (status, _, _) = send(&name, &testkit::as_staff(sample)).await;
        assert_eq!(status, 200, "{name}: staff read any order page");
    }
}

#[tokio::test]
async fn every_staff_route_called_by_a_customer_is_403_and_touches_nothing() {
    let seeded = seeded().await;
    let mut checked = 0;
    for (name, access, sample) in api_functions() {
        if access != Access::Staff {
            continue;
        }
        let customer = testkit::signed_in_as(sample, "123", &["customers"]);
        let (status, body, untouched) = send_to(&seeded, &name, &customer).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("forbidden")),
            "{name}"
        );
        assert!(untouched, "{name}");
        checked += 1;
    }
    assert!(
        checked >= 4,
        "tracking events, books, sales, daily stats: {checked}"
    );
}

#[tokio::test]
async fn staff_moderate_reviews_and_public_routes_need_no_token() {
    for (name, access, sample) in api_functions() {
        let (status, body, _) = match access {
            Access::OwnerOrStaff { .. } => send(&name, &testkit::as_staff(sample)).await,
            Access::Public => send(&name, &without_token(sample)).await,
            _ => continue,
        };
        assert!((200..300).contains(&status), "{name}: {status} {body}");
    }
}
