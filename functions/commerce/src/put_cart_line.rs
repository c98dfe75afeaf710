//! C7: `PUT /carts/{cartId}/items/{productId}` with `{"quantity", "version"?}`: sets one line of
//! a cart; a quantity of 0 removes it. A cart is an item collection with one small item per
//! product (Naylor's post), so changing a line is one small write however full the cart.
//!
//! A cart holds at most 100 lines: a new line is added in one transaction with the cart's line
//! count, on condition that it is below the cap (409 `cart_full` otherwise), so concurrent adds
//! cannot pass it. A change may name the `version` of the line read (GET answers it): applied
//! only if no write came in between (409 `version_mismatch`); without one the quantity is set
//! whatever it was, also when a DELETE removes the line in between (it is added again).

use crate::data::{self as commerce, CartLineRemoved, CartLineSet, MAX_CART_LINES};
use api::declare::*;
use keys::Timestamp;
use model::commerce::CartLine;
use serde::{Deserialize, Serialize};

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-cart-line",
    Access::owner("cartId", Refused::CartNotFound.refusal()),
    &Route::put(
        "/carts/{cartId}/items/{productId}",
        "C7: set a cart line's quantity (0 removes it)",
        &[Pattern {
            id: "C7",
            route: "`PUT /carts/{cartId}/items/{productId}` `{quantity, version?}` (at most 100 lines a cart)",
            index: Index::Table,
            request: "a new line: TransactWriteItems Put `CART#<cartId>` / `PRODUCT#<productId>` (`attribute_not_exists`), Update `CART#<cartId>` / `A` `ADD LineCount 1` if below 100; a line there: UpdateItem (`Version` = the one given, if any); quantity 0: TransactWriteItems Delete the line (`Version` = the one given, if any), `ADD LineCount -1`",
            returns: "the line `{cartId, productId, quantity, updatedAt, version}`; 409 `cart_full`, `version_mismatch`",
            example: Example::sub("petes-cart", "/carts/petes-cart/items/coffee")
                .with_body(r#"{"quantity": 3}"#),
        }],
    ),
);

api::refusals! {
    CartNotFound = crate::refusals::CART_NOT_FOUND,
    CartFull = Refusal::new(409, "cart_full", "a new line for a cart of 100 lines; nothing was written"),
    VersionMismatch = crate::refusals::VERSION_MISMATCH,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[
        Contract::ok::<Stored>("the line as stored (quantity 0 once removed)")
            .body::<PutLine>()
            .refusals(Refused::ALL)
            .worst(|| {
                api::function::Worst::new(
                    format!(
                        "a new line of {MAX_QUANTITY} units, cart and product ids of {} characters",
                        keys::MAX_ID_LEN
                    ),
                    largest(),
                )
            }),
    ];

/// A cart line as stored; once removed, its quantity 0 and nothing else.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
struct Stored {
    cart_id: keys::Id,
    product_id: keys::Id,
    #[schemars(range(max = MAX_QUANTITY))]
    quantity: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "keys::Timestamp")]
    updated_at: Option<keys::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    version: Option<u64>,
}

const MAX_QUANTITY: u32 = model::commerce::CartLine::MAX_QUANTITY;

/// The request that writes the largest cart line: the longest cart and product ids, the most
/// units (`delete-cart-line`'s worst case deletes it).
pub fn largest() -> Example {
    use api::function::leak;
    let cart = leak("c".repeat(keys::MAX_ID_LEN));
    let product = "p".repeat(keys::MAX_ID_LEN);
    Example::sub(cart, leak(format!("/carts/{cart}/items/{product}")))
        .with_body(leak(format!(r#"{{"quantity": {MAX_QUANTITY}}}"#)))
}

/// A quantity, 0 to remove the line.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct PutLine {
    /// 0 removes the line.
    quantity: api::Bounded<0, { MAX_QUANTITY as i64 }>,
    /// the line's version read (GET answers it): changed only if no write came in between, else
    /// 409 `version_mismatch`; 0: only if the line is not there yet. Absent: set whatever it was
    #[serde(default, deserialize_with = "api::not_null")]
    #[schemars(with = "u64")]
    version: Option<u64>,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let cart = api::path_id(&req, "cartId")?;
    let product = api::path_id(&req, "productId")?;
    let body: PutLine = api::json_body(&req)?;
    let quantity = body.quantity.to_u32();
    if quantity == 0 {
        // A stale version never wins, removing included (as on DELETE).
        let removed =
            commerce::remove_cart_line(&deps.table, &cart, &product, body.version).await?;
        if let CartLineRemoved::VersionMismatch(v) = removed {
            return Err(Refused::VersionMismatch.because(format!(
                "The line is at version {v}, not {}: read the cart again, then change it",
                body.version.unwrap_or_default()
            )));
        }
        let removed = Stored {
            cart_id: cart,
            product_id: product,
            quantity: 0,
            updated_at: None,
            version: None,
        };
        return api::json(200, &removed);
    }
    let line = CartLine {
        cart_id: cart.clone(),
        product_id: product,
        quantity,
        updated_at: Timestamp::now(),
        version: 0,
    };
    match commerce::set_cart_line(&deps.table, &line, body.version).await? {
        CartLineSet::Stored(stored) => {
            let stored = Stored {
                cart_id: cart.clone(),
                product_id: stored.product_id,
                quantity: stored.quantity,
                updated_at: Some(stored.updated_at),
                version: Some(stored.version),
            };
            api::json(200, &stored)
        }
        CartLineSet::CartFull => Err(Refused::CartFull.because(format!(
            "Cart {cart} holds {MAX_CART_LINES} lines, the most a cart holds; remove one first"
        ))),
        CartLineSet::VersionMismatch(current) => {
            Err(Refused::VersionMismatch.because(match current {
                Some(v) => format!(
                    "The line is at version {v}, not {}: read the cart again, then change it",
                    body.version.unwrap_or_default()
                ),
                None => "There is no such line in the cart: give version 0 to add it".into(),
            }))
        }
    }
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
        for (product, body) in [
            ("coffee", r#"{"quantity":3}"#),
            ("chocolate", r#"{"quantity":5}"#),
        ] {
            assert_eq!(
                put(&table, "petes-cart", product, body).await.0,
                200,
                "{product}"
            );
        }
        let (s, b) = put(&table, "petes-cart", "coffee", r#"{"quantity":4}"#).await;
        assert_eq!((s, b["quantity"].as_u64()), (200, Some(4)));
        let items = all_items(&table).await;
        assert_eq!(items.len(), 3, "two lines and the cart's count");
        assert_eq!(items[2]["PK"].as_s().unwrap(), "CART#petes-cart");
        assert_eq!(items[2]["SK"].as_s().unwrap(), "PRODUCT#coffee");
        // A change is one write unit: the line, not the cart. (A new line also counts it in
        // the cart's record, in one transaction.)
        let last = table.meter().requests().last().cloned().unwrap();
        assert_eq!((last.operation, last.write_units), ("UpdateItem", 1.0));
        let (s, _) = put(&table, "petes-cart", "coffee", r#"{"quantity":0}"#).await;
        assert_eq!(s, 200);
        let items = all_items(&table).await;
        assert_eq!(items.len(), 2, "one line and the cart's count");
    }

    /// A stale version never wins, removing included: `quantity: 0` with the version of a line
    /// written since is a 409 `version_mismatch` and the line stays, as the same version on
    /// DELETE is (it used to answer 200 and delete the line); with the version now, it goes.
    #[tokio::test]
    async fn removing_with_a_stale_version_is_refused_and_the_line_stays() {
        let table = testkit::table().await;
        let (_, first) = put(&table, "c", "coffee", r#"{"quantity":3}"#).await;
        let read = first["version"].as_u64().unwrap();
        let changed = format!(r#"{{"quantity":4,"version":{read}}}"#);
        let (s, now) = put(&table, "c", "coffee", &changed).await;
        assert_eq!(s, 200, "{now}");
        let stale = format!(r#"{{"quantity":0,"version":{read}}}"#);
        let (s, b) = put(&table, "c", "coffee", &stale).await;
        assert_eq!(
            (s, b["code"].as_str()),
            (409, Some("version_mismatch")),
            "{b}"
        );
        let lines = || async {
            all_items(&table)
                .await
                .into_iter()
                .filter(|i| i["SK"].as_s().unwrap() == "PRODUCT#coffee")
                .count()
        };
        assert_eq!(lines().await, 1, "the line stays");
        let current = now["version"].as_u64().unwrap();
        let (s, b) = put(
            &table,
            "c",
            "coffee",
            &format!(r#"{{"quantity":0,"version":{current}}}"#),
        )
        .await;
        assert_eq!((s, b["quantity"].as_u64()), (200, Some(0)), "{b}");
        assert_eq!(lines().await, 0);
    }

    /// A cart holds at most 100 lines: the 101st is a 409 `cart_full` (5,000 lines were accepted,
    /// and every GET then read 136.5 units). Concurrent adds cannot pass the cap (a counter in
    /// the same transaction, not a count read first); changing a line of a full cart is fine,
    /// and removing one makes room.
    #[tokio::test]
    async fn a_cart_holds_at_most_max_lines_even_under_concurrent_adds() {
        let table = testkit::table().await;
        let max = crate::data::MAX_CART_LINES as usize;
        for n in 0..max - 5 {
            let (s, b) = put(&table, "full", &format!("p{n}"), r#"{"quantity":1}"#).await;
            assert_eq!(s, 200, "{b}");
        }
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let paths: Vec<String> = (0..12)
            .map(|n| h.path(&["full", &format!("new{n}")]))
            .collect();
        let adds = paths.iter().map(|path| h.put(path, r#"{"quantity":1}"#));
        let answers = futures::future::join_all(adds).await;
        let added = answers.iter().filter(|(s, _)| *s == 200).count();
        assert_eq!(added, 5, "{answers:?}");
        for (s, b) in answers.iter().filter(|(s, _)| *s != 200) {
            assert_eq!((*s, b["code"].as_str()), (409, Some("cart_full")), "{b}");
        }
        let lines = |items: &[model::Item]| {
            items
                .iter()
                .filter(|i| model::type_of(i) == Some("CartLine"))
                .count()
        };
        assert_eq!(lines(&all_items(&table).await), max);
        let (s, b) = put(&table, "full", "p0", r#"{"quantity":7}"#).await;
        assert_eq!(
            (s, &b["quantity"]),
            (200, &serde_json::json!(7)),
            "a change is no new line"
        );
        let (s, _) = put(&table, "full", "p1", r#"{"quantity":0}"#).await;
        assert_eq!(s, 200);
        let (s, b) = put(&table, "full", "another", r#"{"quantity":1}"#).await;
        assert_eq!(s, 200, "room again: {b}");
        assert_eq!(lines(&all_items(&table).await), max);
    }

    /// No lost update: a quantity change may name the version read; of two writers that read the
    /// same version one wins and the other is a 409 naming the version now.
    #[tokio::test]
    async fn two_writers_with_the_same_version_one_wins_one_is_409() {
        let table = testkit::table().await;
        let (s, b) = put(&table, "c", "tea", r#"{"quantity":1}"#).await;
        assert_eq!((s, &b["version"]), (200, &serde_json::json!(1)), "{b}");
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let path = h.path(&["c", "tea"]);
        let writers = [2, 3].map(|q| {
            let body = format!(r#"{{"quantity":{q},"version":1}}"#);
            let (h, path) = (&h, &path);
            async move { h.put(path, &body).await }
        });
        let answers = futures::future::join_all(writers).await;
        let mut statuses: Vec<u16> = answers.iter().map(|(s, _)| *s).collect();
        statuses.sort();
        assert_eq!(statuses, [200, 409], "{answers:?}");
        let lost = answers.iter().find(|(s, _)| *s == 409).unwrap();
        assert_eq!(lost.1["code"], "version_mismatch");
        assert!(
            lost.1["message"].as_str().unwrap().contains("version 2"),
            "{lost:?}"
        );
        let (s, b) = put(&table, "c", "tea", r#"{"quantity":5,"version":2}"#).await;
        assert_eq!((s, &b["version"]), (200, &serde_json::json!(3)), "{b}");
    }

    /// Without a version a PUT sets the line whatever it was, also while DELETEs remove it in
    /// between its steps (6 of 40 were a 409 `version_mismatch`): 20 parallel PUTs interleaved
    /// with 20 DELETEs of the same line are all answered 2xx, and the cart's line count still
    /// counts its lines.
    #[tokio::test]
    async fn puts_without_a_version_racing_deletes_are_never_a_409() {
        let table = testkit::table().await;
        let puts = Harness::new(&FUNCTION, handle, table.clone());
        let deletes = Harness::new(
            &crate::delete_cart_line::FUNCTION,
            crate::delete_cart_line::handle,
            table.clone(),
        );
        let path = puts.path(&["c", "tea"]);
        let calls = (1..=20u32).flat_map(|q| {
            let body = format!(r#"{{"quantity":{q}}}"#);
            let (puts, deletes, path) = (&puts, &deletes, &path);
            [
                futures::future::Either::Left(async move { puts.put(path, &body).await }),
                futures::future::Either::Right(async move { deletes.delete(path).await }),
            ]
        });
        let answers = futures::future::join_all(calls).await;
        let refused: Vec<_> = answers.iter().filter(|(s, _)| *s >= 300).collect();
        assert!(refused.is_empty(), "{refused:?}");
        let items = all_items(&table).await;
        let lines = items
            .iter()
            .filter(|i| model::type_of(i) == Some("CartLine"))
            .count();
        let count = items
            .iter()
            .find(|i| model::type_of(i) == Some("Cart"))
            .and_then(|c| c.get("LineCount"))
            .map(|n| n.as_n().unwrap().parse::<i64>().unwrap());
        assert_eq!(count.unwrap_or(0), lines as i64, "{items:?}");
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
            // A null version is not "no version": it once set the line whatever it was.
            (
                "c",
                "p",
                r#"{"quantity":0,"version":null}"#,
                400,
                "invalid_body",
            ),
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
