//! C2: `PUT /customers/{customerId}` with `{"name", "email", "accountRepId"?}`: creates the
//! customer (201) or updates its name and email (200), keeping what the stream pipeline derives
//! (order count, lifetime value). One UpdateItem.
//!
//! `accountRepId` (the account rep of AWS's relational example, an employee) is staff business: a
//! customer who sends it gets 403 (else a customer could probe which employee ids exist). Absent,
//! the rep stays as it is; `null` removes it; an id assigns that employee, checked in the same
//! transaction (404 `employee_not_found`), and puts the customer in the rep's GSI1 partition (O9).

use crate::data::{self as commerce, CustomerPut, RepChange};
use crate::views as view;
use api::declare::*;
use keys::{Id, Timestamp};
use serde::{Deserialize, Deserializer};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-customer",
    Access::owner_or_staff("customerId", Refused::CustomerNotFound.refusal()),
    &Route::put(
        "/customers/{customerId}",
        "C2: create or update a customer (keeps its derived counters); staff may assign its account rep",
        &[Pattern {
            id: "C2",
            route: "`PUT /customers/{customerId}` `{name, email}`",
            index: Index::Table,
            request: "UpdateItem `CUSTOMER#<id>` / `A` (keeps derived attributes)",
            returns: "the customer; 201 created, 200 updated",
            example: Example::sub("123", "/customers/123")
                .with_body(r#"{"name": "David Good", "email": "david@example.com"}"#),
        }],
    ),
)
// An account rep is an employee: checked in HR's table.
.needs(Needs::TABLE.with_peers(&[HR_TABLE]));

api::refusals! {
    CustomerNotFound = crate::refusals::CUSTOMER_NOT_FOUND,
    Forbidden = api::Common::Forbidden.refusal(),
    EmployeeNotFound = Refusal::new(404, "employee_not_found", "the `accountRepId` names no employee"),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::put::<view::Customer>(
    "the customer as stored, updated",
    "the customer as stored, created",
)
.body::<PutCustomer>()
.refusals(Refused::ALL)
.worst(worst)];

/// C2's costliest write: a new customer of the longest id, name and email.
fn worst() -> api::function::Worst {
    use api::function::{Worst, leak, widest_text};
    let id = leak("c".repeat(keys::MAX_ID_LEN));
    let domain = "@example.com";
    let email = format!("{}{domain}", "e".repeat(MAX_EMAIL_CHARS - domain.len()));
    let body = serde_json::json!({ "name": widest_text(MAX_NAME_CHARS), "email": email });
    Worst::new(
        format!(
            "a new customer: an id of {} characters, a name of {MAX_NAME_CHARS} characters of 4 bytes, an email of {MAX_EMAIL_CHARS}",
            keys::MAX_ID_LEN
        ),
        Example::sub(id, leak(format!("/customers/{id}"))).with_body(leak(body.to_string())),
    )
}

const MAX_NAME_CHARS: usize = model::commerce::Customer::MAX_NAME_CHARS;
const MAX_EMAIL_CHARS: usize = model::commerce::Customer::MAX_EMAIL_CHARS;

/// A customer's name and email, and (staff only) their account rep.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct PutCustomer {
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    name: String,
    #[schemars(email, length(max = MAX_EMAIL_CHARS))]
    email: String,
    /// staff only (403 otherwise): an employee id assigns that rep (404 `employee_not_found` if
    /// none), null removes the rep; absent keeps it
    #[serde(default, deserialize_with = "present", rename = "accountRepId")]
    #[schemars(with = "Option<Id>")]
    account_rep_id: Option<Option<String>>,
}

/// A field that is present (`null` included): `Some(value)`; `#[serde(default)]` makes an
/// absent one `None`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

fn validate(body: &PutCustomer) -> Result<(), ApiError> {
    api::text_field("name", &body.name, MAX_NAME_CHARS)?;
    let email = body.email.trim();
    let plausible = email.chars().count() <= MAX_EMAIL_CHARS
        && !email.chars().any(char::is_whitespace)
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        });
    if !plausible {
        return Err(Common::InvalidBody.because("email: give an address like name@example.com"));
    }
    Ok(())
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let customer = api::path_id(&req, "customerId")?;
    let body: PutCustomer = api::json_body(&req)?;
    validate(&body)?;
    let rep = match &body.account_rep_id {
        None => RepChange::Keep,
        Some(_) if !api::auth::caller(&req).is_some_and(|c| c.staff) => {
            return Err(Common::Forbidden.because("accountRepId: only staff assign account reps"));
        }
        Some(None) => RepChange::Clear,
        Some(Some(rep)) => RepChange::Assign(
            Id::parse("accountRepId", rep)
                .map_err(|e| Common::InvalidBody.because(e.to_string()))?,
        ),
    };
    match commerce::put_customer(
        &deps.table,
        deps.peer(&HR_TABLE)?,
        &customer,
        body.name.trim(),
        body.email.trim(),
        rep,
        Timestamp::now(),
    )
    .await?
    {
        CustomerPut::Stored(c, created) => {
            api::json(if created { 201 } else { 200 }, &view::customer(&c))
        }
        CustomerPut::NoSuchRep => {
            Err(Refused::EmployeeNotFound.because("accountRepId: there is no such employee"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use store::Table;
    use testkit::{Harness, all_items};

    #[tokio::test]
    async fn creates_then_updates_in_one_write_each() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let (s, c) = h
            .put(
                "/customers/123",
                r#"{"name":"Ann","email":"ann@example.com"}"#,
            )
            .await;
        assert_eq!(s, 201);
        assert_eq!(
            (c["customerId"].as_str(), c["name"].as_str()),
            (Some("123"), Some("Ann"))
        );
        assert_eq!(c["orderCount"], 0);
        let (s, c2) = h
            .put(
                "/customers/123",
                r#"{"name":"Ann B","email":"annb@example.com"}"#,
            )
            .await;
        assert_eq!(s, 200);
        assert_eq!(c2["name"], "Ann B");
        assert_eq!(c2["createdAt"], c["createdAt"], "creation time is kept");
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 2);
        assert!(
            requests
                .iter()
                .all(|r| r.operation == "UpdateItem" && r.write_units == 1.0)
        );
        let items = all_items(table).await;
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["PK"].as_s().unwrap(), "CUSTOMER#123");
        assert_eq!(items[0]["SK"].as_s().unwrap(), "A");
        assert_eq!(items[0]["Type"].as_s().unwrap(), "Customer");
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let long_id = "x".repeat(65);
        let long_name = format!(r#"{{"name":"{}","email":"a@b.co"}}"#, "n".repeat(201));
        let huge = format!(
            r#"{{"name":"{}","email":"a@b.co"}}"#,
            "n".repeat(api::MAX_BODY_BYTES)
        );
        type Case<'a> = ((&'a str, &'a str), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("123", ""), 400, "missing_body"),
            (("123", "{"), 400, "invalid_json"),
            (("123", "[]"), 400, "invalid_body"),
            (("123", r#"{"name":"Ann"}"#), 400, "invalid_body"),
            (("123", r#"{"name":1,"email":"a@b.co"}"#), 400, "invalid_body"),
            (("123", r#"{"name":"Ann","email":"a@b.co","admin":true}"#), 400, "invalid_body"),
            (("123", r#"{"name":"  ","email":"a@b.co"}"#), 400, "invalid_body"),
            (("123", r#"{"name":"Ann","email":"nope"}"#), 400, "invalid_body"),
            (("123", &long_name), 400, "invalid_body"),
            (("123", &huge), 413, "body_too_large"),
            ((&long_id, r#"{"name":"Ann","email":"a@b.co"}"#), 400, "invalid_parameter"),
            (("a b", r#"{"name":"Ann","email":"a@b.co"}"#), 400, "invalid_parameter"),
        ];
        testkit::assert_errors(cases, async |(id, body)| {
            let mut ev = h
                .anyone()
                .event("PUT", &format!("/customers/{id}"), &[], Some(body));
            ev["pathParameters"]["customerId"] = json!(id);
            h.send(&ev).await
        })
        .await;
        let mut ev = h.anyone().event(
            "PUT",
            "/customers/x",
            &[],
            Some(r#"{"name":"Ann","email":"a@b.co"}"#),
        );
        ev["pathParameters"]["customerId"] = json!("a#b");
        let (s, _) = h.send(&ev).await;
        assert_eq!(s, 400);
        assert!(all_items(table).await.is_empty(), "nothing written");
        assert!(table.meter().requests().is_empty(), "nothing even sent");
    }

    /// The customer's item, and its GSI1 keys (`None` when absent).
    async fn stored(table: &Table) -> (model::Item, Option<String>, Option<String>) {
        let item = all_items(table)
            .await
            .into_iter()
            .find(|i| i["PK"].as_s().unwrap() == "CUSTOMER#123")
            .expect("customer 123");
        let key = |name: &str| item.get(name).map(|v| v.as_s().unwrap().clone());
        let (pk, sk) = (key("GSI1PK"), key("GSI1SK"));
        (item, pk, sk)
    }

    /// Employees E1 and E2 (and the org they need), and the function authorized as `main`
    /// authorizes it.
    async fn with_employees() -> (Table, Harness) {
        let table = hr::fixtures::org_with(
            testkit::table().await,
            &[("E1", "Ada Lovelace"), ("E2", "Alan Turing")],
        )
        .await;
        let h = Harness::new(&FUNCTION, handle, table.clone()).dispatched();
        (table, h)
    }

    /// [`with_employees`], and customer 123, Ann, whose rep is E1.
    async fn with_ann_and_her_rep() -> (Table, Harness) {
        let (table, h) = with_employees().await;
        assert_eq!(h.as_staff().put("/customers/123", ANN_WITH_E1).await.0, 201);
        (table, h)
    }

    const ANN: &str = r#"{"name":"Ann","email":"ann@example.com"}"#;
    const ANN_WITH_E1: &str = r#"{"name":"Ann","email":"ann@example.com","accountRepId":"E1"}"#;

    #[tokio::test]
    async fn staff_assign_an_employee_as_account_rep() {
        let (table, h) = with_employees().await;
        // A new customer, created with its rep (201), then another rep (200).
        let (s, c) = h.as_staff().put("/customers/123", ANN_WITH_E1).await;
        assert_eq!((s, c["accountRepId"].as_str()), (201, Some("E1")), "{c}");
        let (item, pk, sk) = stored(&table).await;
        assert_eq!(item["AccountRepId"].as_s().unwrap(), "E1");
        assert_eq!(
            (pk.as_deref(), sk.as_deref()),
            (Some("REP#E1"), Some("CUSTOMER#123"))
        );
        let body = r#"{"name":"Ann","email":"ann@example.com","accountRepId":"E2"}"#;
        let (s, c) = h.as_staff().put("/customers/123", body).await;
        assert_eq!((s, c["accountRepId"].as_str()), (200, Some("E2")));
        assert_eq!(stored(&table).await.1.as_deref(), Some("REP#E2"));
        // An existing customer without a rep gets one the same way.
        assert_eq!(h.as_staff().put("/customers/456", ANN).await.0, 201);
        let (s, c) = h.as_staff().put("/customers/456", ANN_WITH_E1).await;
        assert_eq!((s, c["accountRepId"].as_str()), (200, Some("E1")));
    }

    #[tokio::test]
    async fn a_customer_may_not_set_their_rep_and_nothing_changes() {
        let (table, h) = with_ann_and_her_rep().await;
        let before = all_items(&table).await;
        for body in [
            r#"{"name":"Ann B","email":"ann@example.com","accountRepId":"E2"}"#,
            r#"{"name":"Ann B","email":"ann@example.com","accountRepId":null}"#,
        ] {
            let (s, b) = h.as_sub("123").put("/customers/123", body).await;
            assert_eq!((s, b["code"].as_str()), (403, Some("forbidden")), "{body}");
        }
        assert_eq!(all_items(&table).await, before, "nothing changed");
    }

    #[tokio::test]
    async fn an_unknown_employee_is_a_404_and_nothing_is_written() {
        let (table, h) = with_employees().await;
        let before = all_items(&table).await;
        let unknown = r#"{"name":"Ann","email":"ann@example.com","accountRepId":"E9"}"#;
        let (s, b) = h.as_staff().put("/customers/123", unknown).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("employee_not_found")));
        assert_eq!(all_items(&table).await, before, "no customer created");
        // Nor is an existing customer changed.
        h.as_staff().put("/customers/123", ANN_WITH_E1).await;
        let before = all_items(&table).await;
        let renamed = r#"{"name":"Ann B","email":"ann@example.com","accountRepId":"E9"}"#;
        let (s, b) = h.as_staff().put("/customers/123", renamed).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("employee_not_found")));
        assert_eq!(all_items(&table).await, before, "nothing changed");
        // A malformed id is a 400.
        let bad = r#"{"name":"Ann","email":"ann@example.com","accountRepId":"E#1"}"#;
        let (s, b) = h.as_staff().put("/customers/123", bad).await;
        assert_eq!((s, b["code"].as_str()), (400, Some("invalid_body")));
    }

    #[tokio::test]
    async fn null_removes_the_rep_and_absent_keeps_it() {
        let (table, h) = with_ann_and_her_rep().await;
        // Absent (the owner's ordinary update, or staff's): the rep and its GSI1 keys stay.
        for who in [h.as_sub("123"), h.as_staff()] {
            let (s, c) = who
                .put(
                    "/customers/123",
                    r#"{"name":"Ann B","email":"b@example.com"}"#,
                )
                .await;
            assert_eq!((s, c["accountRepId"].as_str()), (200, Some("E1")));
            assert_eq!(c["name"], "Ann B");
            let (_, pk, sk) = stored(&table).await;
            assert_eq!(
                (pk.as_deref(), sk.as_deref()),
                (Some("REP#E1"), Some("CUSTOMER#123"))
            );
        }
        // null: no rep, out of GSI1.
        let clear = r#"{"name":"Ann","email":"ann@example.com","accountRepId":null}"#;
        let (s, c) = h.as_staff().put("/customers/123", clear).await;
        assert_eq!((s, &c["accountRepId"]), (200, &serde_json::Value::Null));
        let (item, pk, sk) = stored(&table).await;
        assert!(!item.contains_key("AccountRepId"));
        assert_eq!((pk, sk), (None, None));
    }

    /// A customer write that keeps meeting an order transaction on the same item (DynamoDB's
    /// `TransactionConflictException`, which DynamoDB Local never raises: mocked) is retried,
    /// then answered 503 with `Retry-After`, never a 500.
    #[tokio::test]
    async fn a_write_that_keeps_meeting_a_transaction_is_a_503_with_retry_after() {
        use aws_sdk_dynamodb::{
            Client, error::ErrorMetadata, operation::update_item::UpdateItemError,
            types::error::TransactionConflictException,
        };
        use aws_smithy_mocks::{RuleMode, mock, mock_client};
        let rule = mock!(Client::update_item).then_error(|| {
            UpdateItemError::TransactionConflictException(
                TransactionConflictException::builder()
                    .meta(
                        ErrorMetadata::builder()
                            .code("TransactionConflictException")
                            .build(),
                    )
                    .build(),
            )
        });
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]),
            "t",
        );
        let h = Harness::new(&FUNCTION, handle, table);
        let ev = h.anyone().event(
            "PUT",
            "/customers/123",
            &[],
            Some(r#"{"name":"Ann","email":"ann@example.com"}"#),
        );
        let response = h.respond(&ev).await;
        assert_eq!(response.headers()["retry-after"], "1");
        let (status, body) = testkit::response_json(&response);
        assert_eq!((status, body["code"].as_str()), (503, Some("throttled")));
        assert_eq!(rule.num_calls(), store::WRITE_ATTEMPTS as usize);
    }
}
