//! C7: `GET /carts/{cartId}`: the cart's lines, by product id, in ONE query of its item
//! collection (one request per 1 MB: a cart past DynamoDB's page is read to its end, never cut
//! short). A cart nobody has filled yet is an empty cart.

use api::declare::*;
use keys::commerce as k;
use model::commerce::CartLine;
use serde::Serialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-cart",
    Access::owner("cartId", Refused::CartNotFound.refusal()),
    &Route::get(
        "/carts/{cartId}",
        "C7: a cart's lines",
        &[Pattern {
            id: "C7",
            route: "`GET /carts/{cartId}`",
            index: Index::Table,
            request: r#"Query `PK = CART#<cartId> AND begins_with(SK, "PRODUCT#")`, read to its end (one request per 1 MB page)"#,
            returns: "`{cartId, items}`",
            example: Example::sub("petes-cart", "/carts/petes-cart"),
        }],
    ),
);

api::refusals! {
    CartNotFound = crate::refusals::CART_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::ok::<Cart>("the cart (empty when it has no lines)").refusals(Refused::ALL)];

/// A cart's lines.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
struct Cart<'a> {
    cart_id: &'a keys::Id,
    /// at most 100 lines (a PUT of a 101st line is a 409 `cart_full`), so one read of a full cart
    /// costs about 2 read units
    #[schemars(length(max = crate::data::MAX_CART_LINES))]
    items: Vec<crate::views::CartLine>,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let cart = api::path_id(&req, "cartId")?;
    let lines = deps
        .table
        .query(k::cart_lines(&cart))
        .send_all()
        .await?
        .decode::<CartLine>()?;
    api::json(
        200,
        &Cart {
            cart_id: &cart,
            items: lines.items.iter().map(crate::views::cart_line).collect(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::put_cart_line;
    use crate::fixtures::{at, id};
    use serde_json::json;
    use testkit::{Harness, all_items, query_read_units};

    #[tokio::test]
    async fn all_lines_in_one_minimal_query() {
        let table = testkit::table().await;
        // The cart of Naylor's post: Pete likes coffee more than veggies, but not as much as
        // chocolates.
        for (cart, product, qty) in [
            ("petes-cart", "coffee", 2),
            ("petes-cart", "veggies", 1),
            ("petes-cart", "chocolates", 5),
            ("other", "tea", 1),
        ] {
            let line = CartLine {
                cart_id: id(cart),
                product_id: id(product),
                quantity: qty,
                updated_at: at(1_671_062_400_000),
                version: 0,
            };
            put_cart_line(&table, &line).await.unwrap();
        }
        table.meter().reset();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let (s, body) = h.get("/carts/petes-cart", &[]).await;
        assert_eq!(s, 200);
        assert_eq!(body["cartId"], "petes-cart");
        let got = testkit::counted(&body["items"], "productId", "quantity");
        assert_eq!(got, [("chocolates", 5), ("coffee", 2), ("veggies", 1)]);
        let requests = table.meter().requests();
        assert_eq!(requests.len(), 1);
        let read: Vec<_> = all_items(&table)
            .await
            .into_iter()
            .filter(|i| i["PK"].as_s().unwrap() == "CART#petes-cart")
            .collect();
        assert_eq!(requests[0].read_units, query_read_units(&read, false));

        let (s, body) = h.get("/carts/empty", &[]).await;
        assert_eq!((s, body["items"].clone()), (200, json!([])));
    }

    #[tokio::test]
    async fn bad_cart_ids_are_400() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let (s, b) = h.get(&h.path(&["a#b"]), &[]).await;
        assert_eq!((s, b["code"].as_str().unwrap()), (400, "invalid_parameter"));
    }

    /// Past DynamoDB's 1 MB page (60 lines, each with 24 KB of an attribute the line does not
    /// read, ~1.4 MB): every line comes back, over as many requests as pages. A cart of at most
    /// 100 small lines never gets there; a reader must not depend on it.
    #[tokio::test]
    async fn a_cart_past_one_megabyte_comes_back_whole() {
        let table = testkit::table().await;
        let items: Vec<model::Item> = (0..60)
            .map(|n| {
                let line = CartLine {
                    cart_id: keys::Id::parse("c", "big").unwrap(),
                    product_id: keys::Id::parse("p", &format!("p{n:02}")).unwrap(),
                    quantity: 1,
                    updated_at: keys::Timestamp::now(),
                    version: 1,
                };
                let mut item = model::to_item(&line).unwrap();
                item.insert("Filler".to_owned(), model::s("f".repeat(24_000)));
                item
            })
            .collect();
        for chunk in items.chunks(25) {
            table.batch_put(chunk.to_vec()).await.unwrap();
        }
        table.meter().reset();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let (s, body) = h.get("/carts/big", &[]).await;
        assert_eq!(s, 200);
        assert_eq!(body["items"].as_array().unwrap().len(), 60);
        assert!(table.meter().requests().len() >= 2, "more than one page");
    }
}
