//! C7: `PUT /carts/{cartId}/items/{productId}` with `{"quantity"}`: sets one line of a cart; a
//! quantity of 0 removes it. A cart is an item collection with one small item per product
//! (Naylor's post), so changing a line is one small write however full the cart.

use api::declare::*;
use api::{Access, ApiError};
use keys::Timestamp;
use lambda_http::{Body, Request, Response};
use model::commerce::CartLine;
use serde::Deserialize;
use serde_json::json;
use store::{Deps, Needs, commerce};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "put-cart-line",
    access: Access::owner("cartId", "cart_not_found"),
    needs: Needs::TABLE,
    routes: &[Route::put(
        "/carts/{cartId}/items/{productId}",
        "C7: set a cart line's quantity (0 removes it)",
        &[Pattern {
            id: "C7",
            route: "`PUT /carts/{cartId}/items/{productId}` `{quantity}`",
            index: Index::Table,
            request: "PutItem (quantity 0: DeleteItem) `CART#<cartId>` / `PRODUCT#<productId>`",
            returns: "the line",
            example: Example::sub("petes-cart", "/carts/petes-cart/items/coffee")
                .with_body(r#"{"quantity": 3}"#),
        }],
    )],
};

pub const MAX_QUANTITY: u32 = 1000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PutLine {
    quantity: u32,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let cart = api::path_id(&req, "cartId")?;
    let product = api::path_id(&req, "productId")?;
    let body: PutLine = api::json_body(&req)?;
    if body.quantity > MAX_QUANTITY {
        return Err(ApiError::bad_request(
            "invalid_body",
            format!("quantity: give an integer from 0 (remove) to {MAX_QUANTITY}"),
        ));
    }
    if body.quantity == 0 {
        commerce::delete_cart_line(&deps.table, &cart, &product).await?;
        return api::json(
            200,
            &json!({ "cartId": cart.as_str(), "productId": product.as_str(), "quantity": 0 }),
        );
    }
    let line = CartLine {
        cart_id: cart.clone(),
        product_id: product,
        quantity: body.quantity,
        updated_at: Timestamp::now(),
    };
    commerce::put_cart_line(&deps.table, &line).await?;
    let mut view = api::views::commerce::cart_line(&line);
    view["cartId"] = cart.as_str().into();
    api::json(200, &view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::Table;
    use testkit::Harness;

    use testkit::all_items;

    async fn put(table: &Table, cart: &str, product: &str, body: &str) -> (u16, serde_json::Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.put(&h.path(&[cart, product]), body).await
    }

    #[tokio::test]
    async fn each_line_is_one_small_item_and_zero_removes_it() {
        let table = testkit::table().await;
        assert_eq!(
            put(&table, "petes-cart", "coffee", r#"{"quantity":3}"#)
                .await
                .0,
            200
        );
        assert_eq!(
            put(&table, "petes-cart", "chocolate", r#"{"quantity":5}"#)
                .await
                .0,
            200
        );
        let (s, b) = put(&table, "petes-cart", "coffee", r#"{"quantity":4}"#).await;
        assert_eq!((s, b["quantity"].as_u64()), (200, Some(4)));
        let items = all_items(&table).await;
        assert_eq!(items.len(), 2);
        assert_eq!(items[1]["PK"].as_s().unwrap(), "CART#petes-cart");
        assert_eq!(items[1]["SK"].as_s().unwrap(), "PRODUCT#coffee");
        // Every write is one write unit: the line, not the cart.
        assert!(
            table
                .meter()
                .requests()
                .iter()
                .all(|r| r.write_units == 1.0)
        );
        assert_eq!(
            put(&table, "petes-cart", "coffee", r#"{"quantity":0}"#)
                .await
                .0,
            200
        );
        assert_eq!(all_items(&table).await.len(), 1);
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = testkit::table().await;
        for (cart, product, body, status, code) in [
            ("c", "p", "", 400, "missing_body"),
            ("c", "p", "{]", 400, "invalid_json"),
            ("c", "p", r#"{"quantity":-1}"#, 400, "invalid_body"),
            ("c", "p", r#"{"quantity":1.5}"#, 400, "invalid_body"),
            ("c", "p", r#"{"quantity":"2"}"#, 400, "invalid_body"),
            ("c", "p", r#"{"quantity":1001}"#, 400, "invalid_body"),
            ("c", "p", r#"{}"#, 400, "invalid_body"),
            ("c#1", "p", r#"{"quantity":1}"#, 400, "invalid_parameter"),
            ("c", "p#q", r#"{"quantity":1}"#, 400, "invalid_parameter"),
            ("c", "", r#"{"quantity":1}"#, 400, "invalid_parameter"),
        ] {
            let (s, b) = put(&table, cart, product, body).await;
            assert_eq!(
                (s, b["code"].as_str().unwrap()),
                (status, code),
                "{cart} {product} {body}"
            );
        }
        assert!(all_items(&table).await.is_empty());
    }
}
