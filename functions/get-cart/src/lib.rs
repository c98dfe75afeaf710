//! C7: `GET /carts/{cartId}`: the cart's lines, by product id, in ONE query of its item
//! collection. A cart nobody has filled yet is an empty cart.

use api::ApiError;
use lambda_http::{Body, Request, Response};
use serde_json::json;
use store::{Table, commerce};

pub async fn handle(table: &Table, req: Request) -> Result<Response<Body>, ApiError> {
    let cart = api::path_id(&req, "cartId")?;
    let lines = commerce::cart_lines(table, &cart).await?;
    api::json(
        200,
        &json!({
            "cartId": cart.as_str(),
            "items": lines.iter().map(api::views::commerce::cart_line).collect::<Vec<_>>(),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::Id;
    use store::commerce::{CartLine, put_cart_line};
    use testkit::{all_items, event, query_read_units, request, response_json};

    const ROUTE: &str = "GET /carts/{cartId}";

    #[tokio::test]
    async fn all_lines_in_one_minimal_query() {
        let table = testkit::table().await;
        // Seed 004's cart: Pete likes coffee more than veggies, but not as much as chocolates.
        for (cart, product, qty) in [
            ("petes-cart", "coffee", 2),
            ("petes-cart", "veggies", 1),
            ("petes-cart", "chocolates", 5),
            ("other", "tea", 1),
        ] {
            let line = CartLine {
                cart_id: cart.into(),
                product_id: product.into(),
                quantity: qty,
                updated_at: "2022-12-15T00:00:00.000Z".into(),
            };
            put_cart_line(
                &table,
                &Id::parse("c", cart).unwrap(),
                &Id::parse("p", product).unwrap(),
                &line,
            )
            .await
            .unwrap();
        }
        table.meter().reset();
        let (s, body) = response_json(
            &handle(
                &table,
                request(&event(ROUTE, "/carts/petes-cart", &[], None)),
            )
            .await
            .unwrap(),
        );
        assert_eq!(s, 200);
        assert_eq!(body["cartId"], "petes-cart");
        let got: Vec<_> = body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["productId"].as_str().unwrap(),
                    l["quantity"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, [("chocolates", 5), ("coffee", 2), ("veggies", 1)]);
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1);
        let read: Vec<_> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == "CART#petes-cart")
            .collect();
        assert_eq!(requests[0].read_units, query_read_units(&read, false));

        let (s, body) = response_json(
            &handle(&table, request(&event(ROUTE, "/carts/empty", &[], None)))
                .await
                .unwrap(),
        );
        assert_eq!((s, body["items"].clone()), (200, json!([])));
    }

    #[tokio::test]
    async fn bad_cart_ids_are_400() {
        let table = testkit::table().await;
        let mut ev = event(ROUTE, "/carts/x", &[], None);
        ev["pathParameters"]["cartId"] = json!("a#b");
        let (s, b) = response_json(&api::respond(handle(&table, request(&ev)).await));
        assert_eq!((s, b["code"].as_str().unwrap()), (400, "invalid_parameter"));
    }
}
