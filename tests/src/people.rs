//! Who may read whom (docs/access.md): a list of people (certificate holders with their course
//! and date) is for staff; verifying one certificate, which names its holder in the path, stays
//! public. Each through its declaration, the template's authorizer and the handler as `main`
//! runs it.

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

#[tokio::test]
async fn lists_of_people_are_for_staff_and_one_certificate_stays_public() {
    let template = Template::workspace().unwrap();
    let table = testkit::table().await;
    tools::seed::load(&table).await.unwrap();
    let answer = async |function: &str, event: &Value| {
        let response = dispatch::handle(function, &table, testkit::request(event))
            .await
            .unwrap_or_else(|| panic!("no handler for {function}"));
        testkit::response_json(&response)
    };
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
