//! C7: `DELETE /carts/{cartId}/items/{productId}`: removes one line of a cart and counts it out of
//! the cart's line count, in one transaction. Idempotent: removing a line that is not there is
//! also a 204 (and counts nothing).
//!
//! Like PUT, it may name the `version` of the line read, in an optional body `{"version"}`: the
//! line is removed only if no write came in between (409 `version_mismatch`, the line stays).

use crate::data::{self as commerce, CartLineRemoved};
use api::declare::*;
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "delete-cart-line",
    Access::owner("cartId", Refused::CartNotFound.refusal()),
    &Route::delete(
        "/carts/{cartId}/items/{productId}",
        "C7: remove a cart line (also when absent)",
        &[Pattern {
            id: "C7",
            route: "`DELETE /carts/{cartId}/items/{productId}` `{version?}`",
            index: Index::Table,
            request: "TransactWriteItems: Delete `CART#<cartId>` / `PRODUCT#<productId>` (`attribute_exists`, `Version` = the one given, if any), Update `CART#<cartId>` / `A` `ADD LineCount -1`",
            returns: "204 (also when absent); 409 `version_mismatch`",
            example: Example::sub("petes-cart", "/carts/petes-cart/items/veggies"),
        }],
    ),
);

api::refusals! {
    CartNotFound = crate::refusals::CART_NOT_FOUND,
    VersionMismatch = crate::refusals::VERSION_MISMATCH,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::no_content("removed, or was not there")
    .optional_body::<DeleteLine>()
    .refusals(Refused::ALL)
    .worst(|| {
        let line = crate::put_cart_line::largest();
        api::function::Worst::new(
            "the largest line (`put-cart-line`'s worst case)",
            Example { body: None, ..line },
        )
        .after("put-cart-line", line)
    })];

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let cart = api::path_id(&req, "cartId")?;
    let product = api::path_id(&req, "productId")?;
    let expected = match req.body() {
        Body::Empty => None,
        Body::Text(t) if t.trim().is_empty() => None,
        _ => api::json_body::<DeleteLine>(&req)?.version,
    };
    match commerce::remove_cart_line(&deps.table, &cart, &product, expected).await? {
        CartLineRemoved::Removed | CartLineRemoved::Absent => api::no_content(),
        CartLineRemoved::VersionMismatch(v) => Err(Refused::VersionMismatch.because(format!(
            "The line is at version {v}, not {}: read the cart again, then remove it",
            expected.unwrap_or_default()
        ))),
    }
}

/// The optional body: the version of the line read.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct DeleteLine {
    /// the line's version read (GET answers it): removed only if no write came in between, else
    /// 409 `version_mismatch` and the line stays. Absent (or no body): removed whatever it was
    #[serde(default, deserialize_with = "api::not_null")]
    #[schemars(with = "u64")]
    version: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;
    use testkit::Harness;

    use crate::fixtures::put_cart_line;
    use crate::fixtures::{at, id};
    use model::commerce::CartLine;
    use testkit::all_items;

    async fn delete(table: &Table, cart: &str, product: &str) -> (u16, serde_json::Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.delete(&h.path(&[cart, product])).await
    }

    #[tokio::test]
    async fn removes_only_that_line_and_is_idempotent() {
        let table = testkit::table().await;
        for p in ["coffee", "veggies"] {
            let line = CartLine {
                cart_id: id("cart-1"),
                product_id: id(p),
                quantity: 1,
                updated_at: at(1_577_836_800_000),
                version: 0,
            };
            put_cart_line(&table, &line).await.unwrap();
        }
        assert_eq!(delete(&table, "cart-1", "coffee").await.0, 204);
        assert_eq!(delete(&table, "cart-1", "coffee").await.0, 204);
        let items = all_items(&table).await;
        let lines: Vec<_> = items
            .iter()
            .filter(|i| model::type_of(i) == Some("CartLine"))
            .collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0]["SK"].as_s().unwrap(), "PRODUCT#veggies");
        let cart = items
            .iter()
            .find(|i| model::type_of(i) == Some("Cart"))
            .unwrap();
        assert_eq!(cart["LineCount"].as_n().unwrap(), "1", "counted out once");
    }

    #[tokio::test]
    async fn a_stale_version_is_409_and_leaves_the_line_the_current_one_removes_it() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let p = Harness::new(
            &crate::put_cart_line::FUNCTION,
            crate::put_cart_line::handle,
            table.clone(),
        );
        let path = h.path(&["cart-1", "coffee"]);
        assert_eq!(p.put(&path, r#"{"quantity": 1}"#).await.0, 200);
        let (_, line) = p.put(&path, r#"{"quantity": 2}"#).await;
        assert_eq!(line["version"], 2);
        let del = |body: &'static str| {
            let (h, path) = (&h, &path);
            async move { h.anyone().send("DELETE", path, &[], Some(body)).await }
        };
        let (status, body) = del(r#"{"version": 1}"#).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (409, Some("version_mismatch"))
        );
        let lines = |items: &[model::Item]| {
            items
                .iter()
                .filter(|i| model::type_of(i) == Some("CartLine"))
                .count()
        };
        let items = all_items(table).await;
        assert_eq!(lines(&items), 1, "the line stays");
        assert_eq!(del(r#"{"version": "x"}"#).await.0, 400);
        // A null version is not "no version", which removes the line whatever it is.
        let (status, body) = del(r#"{"version": null}"#).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_body")),
            "{body}"
        );
        assert!(
            body["message"].as_str().unwrap().contains("version: null"),
            "{body}"
        );
        assert_eq!(lines(&all_items(table).await), 1, "the line stays");
        assert_eq!(del(r#"{"version": 2}"#).await.0, 204);
        let items = all_items(table).await;
        assert_eq!(lines(&items), 0);
        let cart = items
            .iter()
            .find(|i| model::type_of(i) == Some("Cart"))
            .unwrap();
        assert_eq!(cart["LineCount"].as_n().unwrap(), "0", "counted out");
        // Gone already: what the version guarded is done.
        assert_eq!(del(r#"{"version": 2}"#).await.0, 204);
    }

    #[tokio::test]
    async fn bad_ids_are_400() {
        let table = testkit::table().await;
        for (cart, product) in [("a#b", "p"), ("c", "%"), ("", "p"), (&*"x".repeat(65), "p")] {
            let (s, b) = delete(&table, cart, product).await;
            assert_eq!((s, b["code"].as_str().unwrap()), (400, "invalid_parameter"));
        }
        assert!(table.meter().requests().is_empty());
    }
}
