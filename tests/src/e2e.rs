//! End to end: the local stack running the real function binaries, driven over HTTP.

use serde_json::json;

use crate::stack::{http, start_stack};

#[tokio::test]
async fn the_commerce_patterns_over_http_through_the_real_binaries() {
    let stack = start_stack().await;
    let p = stack.port;

    let (s, _, c) = http(
        p,
        "PUT",
        "/customers/e2e-1",
        Some(r#"{"name":"Ann","email":"ann@example.com"}"#),
        &[],
    )
    .await;
    assert_eq!((s, c["customerId"].as_str()), (201, Some("e2e-1")), "{c}");

    let order = r#"{"items":[{"sku":1001,"quantity":2,"unitPrice":1250},{"sku":42,"quantity":1,"unitPrice":499}]}"#;
    let (s, head, placed) = http(
        p,
        "POST",
        "/customers/e2e-1/orders",
        Some(order),
        &[("Idempotency-Key", "e2e-key")],
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
        &[("Idempotency-Key", "e2e-key")],
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
        &[],
    )
    .await;
    assert_eq!(s, 201, "{ev}");

    let (s, _, page) = http(p, "GET", &format!("/orders/{id}"), None, &[]).await;
    assert_eq!(s, 200);
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    assert_eq!(page["events"][0]["status"], "SHIPPED");

    let (s, _, got) = http(p, "GET", "/customers/e2e-1?orders=5", None, &[]).await;
    assert_eq!((s, got["orders"].as_array().unwrap().len()), (200, 1));
    assert_eq!(got["orders"][0]["orderId"], json!(id));

    let (s, _, list) = http(
        p,
        "GET",
        "/customers/e2e-1/orders?from=2020-01-01&limit=10",
        None,
        &[],
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
            "/carts/e2e-cart/items/coffee",
            Some(r#"{"quantity":2}"#),
            &[]
        )
        .await
        .0,
        200
    );
    assert_eq!(
        http(
            p,
            "PUT",
            "/carts/e2e-cart/items/tea",
            Some(r#"{"quantity":1}"#),
            &[]
        )
        .await
        .0,
        200
    );
    assert_eq!(
        http(p, "DELETE", "/carts/e2e-cart/items/tea", None, &[])
            .await
            .0,
        204
    );
    let (s, _, cart) = http(p, "GET", "/carts/e2e-cart", None, &[]).await;
    assert_eq!((s, cart["items"].as_array().unwrap().len()), (200, 1));

    // Errors: 4xx with a code, never a 5xx.
    for (method, path, body, status, code) in [
        ("GET", "/nowhere", None, 404, "route_not_found"),
        ("PATCH", "/customers/e2e-1", None, 404, "route_not_found"),
        ("GET", "/customers/ghost", None, 404, "customer_not_found"),
        ("GET", "/customers/a%23b", None, 400, "invalid_parameter"),
        ("PUT", "/customers/e2e-2", Some("{"), 400, "invalid_json"),
        (
            "POST",
            "/customers/ghost/orders",
            Some(order),
            404,
            "customer_not_found",
        ),
        ("GET", "/orders/not-an-id", None, 400, "invalid_parameter"),
        (
            "GET",
            "/customers/e2e-1/orders?cursor=forged",
            None,
            400,
            "invalid_cursor",
        ),
    ] {
        let (s, _, b) = http(p, method, path, body, &[]).await;
        assert_eq!(
            (s, b["code"].as_str().unwrap_or_default()),
            (status, code),
            "{method} {path}: {b}"
        );
    }
}
