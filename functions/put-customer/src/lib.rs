//! C2: `PUT /customers/{customerId}` with `{"name", "email", "accountRepId"?}`: creates the
//! customer (201) or updates its name and email (200), keeping what the stream pipeline derives
//! (order count, lifetime value). One UpdateItem.
//!
//! `accountRepId` (seed 003's account rep, an employee) is staff business: a customer who sends
//! it gets 403 (else a customer could probe which employee ids exist). Absent, the rep stays as
//! it is; `null` removes it; an id assigns that employee, checked in the same transaction (404
//! `employee_not_found`), and puts the customer in the rep's GSI1 partition (O9).

use api::{Access, ApiError, views::commerce as view};
use keys::{Id, Timestamp};
use lambda_http::{Body, Request, Response};
use serde::{Deserialize, Deserializer};
use store::{
    Deps, Needs,
    commerce::{self, CustomerPut, RepChange},
};

pub const NEEDS: Needs = Needs::TABLE;
/// The owner, and staff (who alone may set the account rep).
pub const ACCESS: Access = Access::OwnerOrStaff {
    param: "customerId",
    not_found: "customer_not_found",
};

pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_EMAIL_CHARS: usize = 254;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PutCustomer {
    name: String,
    email: String,
    /// Absent: keep; `null`: remove; an id: assign.
    #[serde(default, deserialize_with = "present", rename = "accountRepId")]
    account_rep_id: Option<Option<String>>,
}

/// A field that is present (`null` included): `Some(value)`; `#[serde(default)]` makes an
/// absent one `None`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

fn validate(body: &PutCustomer) -> Result<(), ApiError> {
    let name = body.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::bad_request(
            "invalid_body",
            format!("name: give 1 to {MAX_NAME_CHARS} characters"),
        ));
    }
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
        return Err(ApiError::bad_request(
            "invalid_body",
            "email: give an address like name@example.com",
        ));
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
            return Err(ApiError::new(
                403,
                "forbidden",
                "accountRepId: only staff assign account reps",
            ));
        }
        Some(None) => RepChange::Clear,
        Some(Some(rep)) => RepChange::Assign(
            Id::parse("accountRepId", rep)
                .map_err(|e| ApiError::bad_request("invalid_body", e.to_string()))?,
        ),
    };
    match commerce::put_customer(
        &deps.table,
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
        CustomerPut::NoSuchRep => Err(ApiError::not_found(
            "employee_not_found",
            "accountRepId: there is no such employee",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;

    fn deps(table: &Table) -> Deps {
        testkit::deps(table.clone(), NEEDS)
    }
    use serde_json::json;
    use testkit::{all_items, event, request, response_json};

    const ROUTE: &str = "PUT /customers/{customerId}";

    async fn put(table: &Table, id: &str, body: &str) -> (u16, serde_json::Value) {
        response_json(&api::respond(
            handle(
                &deps(table),
                request(&event(ROUTE, &format!("/customers/{id}"), &[], Some(body))),
            )
            .await,
        ))
    }

    #[tokio::test]
    async fn creates_then_updates_in_one_write_each() {
        let table = testkit::table().await;
        let (s, c) = put(&table, "123", r#"{"name":"Ann","email":"ann@example.com"}"#).await;
        assert_eq!(s, 201);
        assert_eq!(
            (c["customerId"].as_str(), c["name"].as_str()),
            (Some("123"), Some("Ann"))
        );
        assert_eq!(c["orderCount"], 0);
        let (s, c2) = put(
            &table,
            "123",
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
        let items = all_items(&table).await;
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["PK"].as_s().unwrap(), "CUSTOMER#123");
        assert_eq!(items[0]["SK"].as_s().unwrap(), "A");
        assert_eq!(items[0]["Type"].as_s().unwrap(), "Customer");
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = testkit::table().await;
        let long_id = "x".repeat(65);
        let long_name = format!(r#"{{"name":"{}","email":"a@b.co"}}"#, "n".repeat(201));
        let huge = format!(
            r#"{{"name":"{}","email":"a@b.co"}}"#,
            "n".repeat(api::MAX_BODY_BYTES)
        );
        let cases: Vec<(&str, &str, u16, &str)> = vec![
            ("123", "", 400, "missing_body"),
            ("123", "{", 400, "invalid_json"),
            ("123", "[]", 400, "invalid_body"),
            ("123", r#"{"name":"Ann"}"#, 400, "invalid_body"),
            ("123", r#"{"name":1,"email":"a@b.co"}"#, 400, "invalid_body"),
            (
                "123",
                r#"{"name":"Ann","email":"a@b.co","admin":true}"#,
                400,
                "invalid_body",
            ),
            (
                "123",
                r#"{"name":"  ","email":"a@b.co"}"#,
                400,
                "invalid_body",
            ),
            (
                "123",
                r#"{"name":"Ann","email":"nope"}"#,
                400,
                "invalid_body",
            ),
            ("123", &long_name, 400, "invalid_body"),
            ("123", &huge, 413, "body_too_large"),
            (
                &long_id,
                r#"{"name":"Ann","email":"a@b.co"}"#,
                400,
                "invalid_parameter",
            ),
            (
                "a b",
                r#"{"name":"Ann","email":"a@b.co"}"#,
                400,
                "invalid_parameter",
            ),
        ];
        for (id, body, status, code) in cases {
            let mut ev = event(ROUTE, &format!("/customers/{id}"), &[], Some(body));
            ev["pathParameters"]["customerId"] = json!(id);
            let (s, b) = response_json(&api::respond(handle(&deps(&table), request(&ev)).await));
            assert_eq!(
                (s, b["code"].as_str().unwrap()),
                (status, code),
                "{id} {body:.60}"
            );
        }
        let mut ev = event(
            ROUTE,
            "/customers/x",
            &[],
            Some(r#"{"name":"Ann","email":"a@b.co"}"#),
        );
        ev["pathParameters"]["customerId"] = json!("a#b");
        let (s, _) = response_json(&api::respond(handle(&deps(&table), request(&ev)).await));
        assert_eq!(s, 400);
        assert!(all_items(&table).await.is_empty(), "nothing written");
        assert!(table.meter().requests().is_empty(), "nothing even sent");
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
        let ev = testkit::event(
            "PUT /customers/{customerId}",
            "/customers/123",
            &[],
            Some(r#"{"name":"Ann","email":"ann@example.com"}"#),
        );
        let response = api::respond(handle(&deps(&table), testkit::request(&ev)).await);
        assert_eq!(response.headers()["retry-after"], "1");
        let (status, body) = testkit::response_json(&response);
        assert_eq!((status, body["code"].as_str()), (503, Some("throttled")));
        assert_eq!(rule.num_calls(), store::WRITE_ATTEMPTS as usize);
    }
}
