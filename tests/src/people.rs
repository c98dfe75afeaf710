//! Who may read whom (docs/access.md): a list of people (certificate holders with their course
//! and date) is for staff; verifying one certificate, which names its holder in the path, stays
//! public. A review's author is named by their account id (the token's `sub`, also their
//! customer id): a book's public page shows it only to the author and staff, and a user's page
//! (R2, by that id) is the user's and staff's. Each through its declaration, the template's
//! authorizer and the handler as `main` runs it.

use api::Access;
use sam_template::Template;
use serde_json::Value;

use crate::dispatch;

/// The functions that list people.
const LISTS_OF_PEOPLE: [&str; 3] = [
    "get-course-day",
    "list-course-certificates",
    "list-certificates",
];

/// The sample event of `function` as `caller` sends it: nobody (`None`), or `sub` in `groups`.
fn sample_as(function: &str, caller: Option<(&str, &[&str])>) -> Value {
    let mut event = testkit::sample_event(&format!("{function}.json"));
    if let Some(context) = event["requestContext"].as_object_mut() {
        context.remove("authorizer");
    }
    match caller {
        Some((sub, groups)) => testkit::signed_in_as(event, sub, groups),
        None => event,
    }
}

/// The answer of `function` to `event` as its `main` gives it, against `table`.
async fn answer(table: &store::Table, function: &str, event: &Value) -> (u16, Value) {
    let response = dispatch::handle(function, table, testkit::request(event))
        .await
        .unwrap_or_else(|| panic!("no handler for {function}"));
    testkit::response_json(&response)
}

#[tokio::test]
async fn lists_of_people_are_for_staff_and_one_certificate_stays_public() {
    let template = Template::workspace().unwrap();
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let answer = async |function: &str, event: &Value| answer(&table, function, event).await;
    for function in LISTS_OF_PEOPLE {
        assert_eq!(
            dispatch::access(function),
            Some(Access::Staff),
            "{function}"
        );
        let declared = template
            .functions
            .iter()
            .find(|f| f.name() == function)
            .unwrap_or_else(|| panic!("{function} is in the template"));
        assert!(
            declared.routes.iter().all(|r| !r.public),
            "{function}: its route needs a token in template.yaml"
        );
        let (status, body) = answer(function, &sample_as(function, None)).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (401, Some("unauthorized")),
            "{function}"
        );
        let customer = sample_as(function, Some(("123", &[])));
        let (status, body) = answer(function, &customer).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("forbidden")),
            "{function}"
        );
        let staff = sample_as(function, Some(("staff-1", &["staff"])));
        let (status, body) = answer(function, &staff).await;
        assert_eq!(status, 200, "{function}: {body}");
    }
    // One certificate, by its course, date and holder: anyone may verify it.
    assert_eq!(dispatch::access("get-certificate"), Some(Access::Public));
    let (status, body) = answer("get-certificate", &sample_as("get-certificate", None)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_public_page_shows_no_account_id_and_a_users_page_is_theirs() {
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let answer = async |function: &str, event: &Value| answer(&table, function, event).await;
    let usernames = |page: &Value| -> Vec<Option<String>> {
        page["reviews"]
            .as_array()
            .expect("reviews")
            .iter()
            .map(|r| r["username"].as_str().map(str::to_owned))
            .collect()
    };
    // R1, the seed's book with reviews by frodo and sam.
    let (status, page) = answer("get-book", &sample_as("get-book", None)).await;
    assert_eq!(status, 200, "{page}");
    let anyone = usernames(&page);
    assert!(
        !anyone.is_empty() && anyone.iter().all(Option::is_none),
        "{page}"
    );
    let (_, page) = answer(
        "get-book",
        &sample_as("get-book", Some(("staff-1", &["staff"]))),
    )
    .await;
    assert!(
        usernames(&page).iter().all(Option::is_some),
        "staff: {page}"
    );
    let (_, page) = answer("get-book", &sample_as("get-book", Some(("sam", &[])))).await;
    let sams: Vec<_> = usernames(&page).into_iter().flatten().collect();
    assert!(
        !sams.is_empty() && sams.iter().all(|u| u == "sam"),
        "sam sees only his own: {page}"
    );
    // R2, frodo's page: frodo's and staff's only.
    assert_eq!(
        dispatch::access("get-user"),
        Some(Access::owner_or_staff(
            "username",
            reviews::refusals::USER_NOT_FOUND
        ))
    );
    let frodo = |caller| {
        let mut event = sample_as("get-user", caller);
        event["pathParameters"]["username"] = "frodo".into();
        event
    };
    let (status, _) = answer("get-user", &frodo(None)).await;
    assert_eq!(status, 401);
    let (status, body) = answer("get-user", &frodo(Some(("sam", &[])))).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("user_not_found"))
    );
    for caller in [("frodo", &[][..]), ("staff-1", &["staff"][..])] {
        let (status, body) = answer("get-user", &frodo(Some(caller))).await;
        assert_eq!(status, 200, "{caller:?}: {body}");
    }
}
