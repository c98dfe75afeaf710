//! End to end: the local stack running the real function binaries, driven over HTTP.

use serde_json::json;

use crate::stack::{Stack, TABLE_PER_CONTEXT, http, start_stack, start_stack_in, time_now};

#[tokio::test]
async fn the_commerce_patterns_over_http_through_the_real_binaries() {
    the_commerce_patterns(start_stack().await).await
}

/// The same requests and answers with `TableLayout` table-per-context.
#[tokio::test]
async fn the_commerce_patterns_with_a_table_per_context() {
    the_commerce_patterns(start_stack_in(TABLE_PER_CONTEXT).await).await
}

async fn the_commerce_patterns(stack: Stack) {
    let p = stack.port;
    // Customer e2e-1, whose cart is /carts/e2e-1, and a member of staff.
    let ann = stack.bearer("e2e-1", &[]);
    let ann = [("authorization", ann.as_str())];
    let staff = stack.bearer("staff-1", &["staff"]);
    let staff = [("authorization", staff.as_str())];

    let (s, _, c) = http(
        p,
        "PUT",
        "/customers/e2e-1",
        Some(r#"{"name":"Ann","email":"ann@example.com"}"#),
        &ann,
    )
    .await;
    assert_eq!((s, c["customerId"].as_str()), (201, Some("e2e-1")), "{c}");

    // The catalogue prices the lines: 12.50 and 4.99 USD.
    for (sku, price) in [(1001, 1250), (42, 499)] {
        let body = format!(r#"{{"name":"Product {sku}","price":{price},"currency":"USD"}}"#);
        let path = format!("/products/{sku}");
        let (s, _, b) = http(p, "PUT", &path, Some(&body), &staff).await;
        assert_eq!(s, 201, "{b}");
    }
    let order = r#"{"items":[{"sku":1001,"quantity":2},{"sku":42,"quantity":1}]}"#;
    let (s, head, placed) = http(
        p,
        "POST",
        "/customers/e2e-1/orders",
        Some(order),
        &[("Idempotency-Key", "e2e-key"), ann[0]],
    )
    .await;
    assert_eq!(s, 201, "{placed}");
    let id = placed["orderId"].as_str().unwrap().to_owned();
    assert!(
        head.to_ascii_lowercase()
            .contains(&format!("location: /orders/{}", id.to_ascii_lowercase()))
    );
    let (s, _, again) = http(
        p,
        "POST",
        "/customers/e2e-1/orders",
        Some(order),
        &[("Idempotency-Key", "e2e-key"), ann[0]],
    )
    .await;
    assert_eq!(
        (s, &again),
        (201, &placed),
        "a retry answers the same order"
    );

    let (s, _, ev) = http(
        p,
        "POST",
        &format!("/orders/{id}/events"),
        Some(r#"{"status":"SHIPPED"}"#),
        &staff,
    )
    .await;
    assert_eq!(s, 201, "{ev}");

    let (s, _, page) = http(p, "GET", &format!("/orders/{id}"), None, &ann).await;
    assert_eq!(s, 200);
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    assert_eq!(page["events"][0]["status"], "SHIPPED");

    let (s, _, got) = http(p, "GET", "/customers/e2e-1?orders=5", None, &ann).await;
    assert_eq!((s, got["orders"].as_array().unwrap().len()), (200, 1));
    assert_eq!(got["orders"][0]["orderId"], json!(id));

    let (s, _, list) = http(
        p,
        "GET",
        "/customers/e2e-1/orders?from=2020-01-01&limit=10",
        None,
        &ann,
    )
    .await;
    assert_eq!(
        (s, list["orders"][0]["orderId"].as_str()),
        (200, Some(id.as_str()))
    );

    assert_eq!(
        http(
            p,
            "PUT",
            "/carts/e2e-1/items/coffee",
            Some(r#"{"quantity":2}"#),
            &ann
        )
        .await
        .0,
        200
    );
    assert_eq!(
        http(
            p,
            "PUT",
            "/carts/e2e-1/items/tea",
            Some(r#"{"quantity":1}"#),
            &ann
        )
        .await
        .0,
        200
    );
    assert_eq!(
        http(p, "DELETE", "/carts/e2e-1/items/tea", None, &ann)
            .await
            .0,
        204
    );
    let (s, _, cart) = http(p, "GET", "/carts/e2e-1", None, &ann).await;
    assert_eq!((s, cart["items"].as_array().unwrap().len()), (200, 1));

    // Errors: 4xx with a code (API Gateway's own answers carry only a message), never a 5xx.
    let e2e2 = stack.bearer("e2e-2", &[]);
    for (method, path, body, caller, status, code) in [
        ("GET", "/nowhere", None, &ann[0].1, 404, None),
        ("PATCH", "/customers/e2e-1", None, &ann[0].1, 404, None),
        ("GET", "/customers/e2e-1", None, &"Bearer forged", 401, None),
        (
            "GET",
            "/customers/ghost",
            None,
            &ann[0].1,
            404,
            Some("customer_not_found"),
        ),
        (
            "GET",
            "/customers/a%23b",
            None,
            &ann[0].1,
            400,
            Some("invalid_parameter"),
        ),
        (
            "PUT",
            "/customers/e2e-2",
            Some("{"),
            &e2e2.as_str(),
            400,
            Some("invalid_json"),
        ),
        (
            "POST",
            "/customers/ghost/orders",
            Some(order),
            &ann[0].1,
            404,
            Some("customer_not_found"),
        ),
        (
            "GET",
            "/orders/not-an-id",
            None,
            &ann[0].1,
            400,
            Some("invalid_parameter"),
        ),
        (
            "GET",
            "/customers/e2e-1/orders?cursor=forged",
            None,
            &ann[0].1,
            400,
            Some("invalid_cursor"),
        ),
    ] {
        let (s, _, b) = http(p, method, path, body, &[("authorization", caller)]).await;
        assert_eq!(
            (s, b["code"].as_str()),
            (status, code),
            "{method} {path}: {b}"
        );
        if code.is_none() {
            assert!(b["message"].is_string(), "{b}");
        }
    }
}

/// API Gateway's JWT authorizer, as the local gateway emulates it: every way a token can be wrong
/// is a 401 `{"message":"Unauthorized"}` before any function runs, so nothing is written.
#[tokio::test]
async fn every_bad_token_is_refused_at_the_gateway_and_nothing_is_written() {
    let stack = start_stack().await;
    let p = stack.port;
    let now = time_now();
    let good = json!({
        "iss": local_stack::jwt::ISSUER,
        "sub": "tok-1",
        "client_id": local_stack::jwt::AUDIENCE,
        "token_use": "access",
        "scope": stack.scope(),
        "iat": now,
        "exp": now + 600,
    });
    let with = |field: &str, value: serde_json::Value| {
        let mut claims = good.clone();
        claims[field] = value;
        claims
    };
    let without = |field: &str| {
        let mut claims = good.clone();
        claims.as_object_mut().expect("claims").remove(field);
        claims
    };
    let stranger = local_stack::jwt::Issuer::ephemeral();
    // The stack's own token with its payload swapped for another subject: the signature no longer
    // matches what it signs.
    let tampered = {
        let token = stack.signed(&good, None);
        let other = stack.signed(&with("sub", json!("tok-2")), None);
        let parts: Vec<&str> = token.split('.').collect();
        let other: Vec<&str> = other.split('.').collect();
        format!("{}.{}.{}", parts[0], other[1], parts[2])
    };
    let cases = [
        ("no token", None),
        ("not a bearer token", Some("Basic dG9rLTE6cHc=".to_owned())),
        (
            "expired",
            Some(stack.signed(&with("exp", json!(now - 60)), None)),
        ),
        ("no expiry", Some(stack.signed(&without("exp"), None))),
        (
            "not yet valid",
            Some(stack.signed(&with("nbf", json!(now + 600)), None)),
        ),
        (
            "another issuer",
            Some(stack.signed(&with("iss", json!("https://elsewhere.invalid")), None)),
        ),
        (
            "another audience",
            Some(stack.signed(&with("client_id", json!("other-client")), None)),
        ),
        (
            "no audience",
            Some(stack.signed(&without("client_id"), None)),
        ),
        (
            "signed by another key",
            Some(stack.signed(&good, Some(&stranger))),
        ),
        ("tampered payload", Some(tampered)),
        (
            "without the route's scope",
            Some(stack.signed(&with("scope", json!("openid email")), None)),
        ),
        ("no scope", Some(stack.signed(&without("scope"), None))),
    ];
    for (why, authorization) in &cases {
        let headers: Vec<(&str, &str)> = authorization
            .iter()
            .map(|a| ("authorization", a.as_str()))
            .collect();
        let (s, head, body) = http(
            p,
            "PUT",
            "/customers/tok-1",
            Some(r#"{"name":"Tok","email":"tok@example.com"}"#),
            &headers,
        )
        .await;
        assert_eq!(
            (s, &body),
            (401, &json!({"message": "Unauthorized"})),
            "{why}"
        );
        assert!(
            head.to_ascii_lowercase()
                .contains("www-authenticate: bearer"),
            "{why}: {head}"
        );
    }
    // The same request with the good token works: each case differed from it in one way only.
    let owner = stack.signed(&good, None);
    let (s, _, body) = http(
        p,
        "GET",
        "/customers/tok-1",
        None,
        &[("authorization", &owner)],
    )
    .await;
    assert_eq!(
        (s, body["code"].as_str()),
        (404, Some("customer_not_found")),
        "no refused request wrote the customer"
    );
    let (s, _, body) = http(
        p,
        "PUT",
        "/customers/tok-1",
        Some(r#"{"name":"Tok","email":"tok@example.com"}"#),
        &[("authorization", &owner)],
    )
    .await;
    assert_eq!(s, 201, "{body}");
}
