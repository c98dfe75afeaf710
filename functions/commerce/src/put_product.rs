//! `PUT /products/{sku}` with `{"name", "description"?, "price"?, "currency"?}` (the OE-Product
//! of AWS's relational example): creates the product (201) or replaces its name, description and
//! price (200), keeping its total inventory, which the stream pipeline derives from its
//! inventories. One UpdateItem. Staff only.
//!
//! The price (cents, 0 to 10^8) and its currency (ISO 4217) are given together: they are what an
//! order line of the product costs (C3 takes no price from the customer). A product without one
//! is not for sale.
//!
//! A PUT replaces: a description or price that is absent or `null` removes the one stored.

use crate::data::products;
use crate::views as view;
use api::declare::*;
use keys::{Timestamp, commerce::Sku};
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-product",
    Access::Staff,
    &Route::put(
        "/products/{sku}",
        "Create or replace a product (the order entry of AWS's relational example); keeps its derived total inventory",
        &[Pattern {
            id: "",
            route: "`PUT /products/{sku}` `{name, description?, price?, currency?}` (staff)",
            index: Index::Table,
            request: "UpdateItem `PRODUCT#<sku>` / `A` (keeps the derived total inventory)",
            returns: "the product; 201 / 200",
            example: Example::staff("/products/1004")
                .with_body(r#"{"name": "Coffee tamper", "description": "Stainless steel, 58 mm", "price": 2450, "currency": "USD"}"#),
        }],
    ),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] =
    &[Contract::put::<view::Product>("replaced", "created").body::<PutProduct>()
        .worst(|| {
                    api::function::Worst::new(
                        format!("a name of {MAX_NAME_CHARS} and a description of {MAX_DESCRIPTION_CHARS} characters of 4 bytes, the highest price"),
                        largest(keys::commerce::Sku::MAX),
                    )
                }),
];

/// The request that writes the largest product at `sku`: the longest name and description, of
/// the widest characters, at the highest price (C3's worst case orders them).
pub fn largest(sku: u64) -> Example {
    use api::function::{leak, widest_text};
    let body = serde_json::json!({
        "name": widest_text(MAX_NAME_CHARS),
        "description": widest_text(MAX_DESCRIPTION_CHARS),
        "price": MAX_PRICE,
        "currency": "USD",
    });
    Example::staff(leak(format!("/products/{sku}"))).with_body(leak(body.to_string()))
}
const MAX_NAME_CHARS: usize = model::commerce::Product::MAX_NAME_CHARS;
const MAX_DESCRIPTION_CHARS: usize = model::commerce::Product::MAX_DESCRIPTION_CHARS;
const MAX_PRICE: i64 = model::commerce::Product::MAX_PRICE;

/// A product's name, description and price.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct PutProduct {
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    name: String,
    /// absent or null removes the description; may hold line feeds and tabs (`x-lines`)
    #[serde(default)]
    #[schemars(length(max = MAX_DESCRIPTION_CHARS), extend("x-lines" = true))]
    description: Option<String>,
    /// cents of `currency`, what an order line of the product costs; given with `currency`;
    /// absent or null: the product is not for sale
    #[serde(default)]
    price: Option<api::Bounded<0, MAX_PRICE>>,
    /// ISO 4217, given with `price`
    #[serde(default)]
    #[schemars(regex(pattern = "^[A-Z]{3}$"))]
    currency: Option<String>,
}

/// The price and currency given, both or neither.
fn price(body: &PutProduct) -> Result<Option<products::Price>, ApiError> {
    let invalid = |msg: String| Common::InvalidBody.because(msg);
    match (body.price, &body.currency) {
        (None, None) => Ok(None),
        (Some(cents), Some(currency)) => {
            if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
                return Err(invalid(
                    "currency: give an ISO 4217 code, three capital letters (USD, EUR...)".into(),
                ));
            }
            Ok(Some(products::Price {
                cents: cents.get(),
                currency: currency.clone(),
            }))
        }
        _ => Err(invalid(
            "price, currency: give both (a price in cents and its currency) or neither".into(),
        )),
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let sku = api::path(&req, "sku", Sku::parse)?;
    // A description is paragraphs: it keeps line feeds (openapi.yaml: `x-lines`).
    let body: PutProduct = api::json_body_keeping_lines(&req, &["description"])?;
    let name = api::text_field("name", &body.name, MAX_NAME_CHARS)?;
    if let Some(d) = &body.description
        && d.chars().count() > MAX_DESCRIPTION_CHARS
    {
        return Err(Common::InvalidBody.because(format!(
            "description: give at most {MAX_DESCRIPTION_CHARS} characters"
        )));
    }
    let price = price(&body)?;
    let (product, created) = products::put_product(
        &deps.table,
        sku,
        name,
        body.description.as_deref(),
        price.as_ref(),
        Timestamp::now(),
    )
    .await?;
    api::json(if created { 201 } else { 200 }, &view::product(&product))
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{Entity, commerce::Product};
    use serde_json::{Value, json};
    use store::{Table, Update};
    use testkit::Harness;
    use testkit::all_items;

    async fn put(table: &Table, sku: &str, body: &str) -> (u16, Value) {
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.as_staff().put(&h.path(&[sku]), body).await
    }

    /// A price is cents and a currency, given together; a PUT without one takes it away (the
    /// product is then not for sale).
    #[tokio::test]
    async fn a_price_is_set_with_its_currency_and_removed_by_a_put_without() {
        let table = testkit::table().await;
        let priced = r#"{"name":"Espresso cup","price":1250,"currency":"USD"}"#;
        let (s, p) = put(&table, "42", priced).await;
        assert_eq!(s, 201, "{p}");
        assert_eq!((&p["price"], &p["currency"]), (&json!(1250), &json!("USD")));
        let stored = &all_items(&table).await[0];
        assert_eq!(stored["Price"].as_n().unwrap(), "1250");
        for (body, names) in [
            (r#"{"name":"x","price":1250}"#, "price, currency"),
            (r#"{"name":"x","currency":"USD"}"#, "price, currency"),
            (r#"{"name":"x","price":-1,"currency":"USD"}"#, "price"),
            (
                r#"{"name":"x","price":100000001,"currency":"USD"}"#,
                "price",
            ),
            (r#"{"name":"x","price":1,"currency":"usd"}"#, "currency"),
            (r#"{"name":"x","price":1,"currency":"DOLLAR"}"#, "currency"),
        ] {
            let answer = put(&table, "42", body).await;
            testkit::assert_refused(&answer, 400, "invalid_body", body);
            let message = answer.1["message"].as_str().unwrap();
            assert!(message.contains(names), "{message}");
        }
        let (s, p) = put(&table, "42", r#"{"name":"Espresso cup"}"#).await;
        assert_eq!(
            (s, &p["price"], &p["currency"]),
            (200, &Value::Null, &Value::Null)
        );
        let stored = &all_items(&table).await[0];
        assert!(!stored.contains_key("Price") && !stored.contains_key("Currency"));
    }

    #[tokio::test]
    async fn creates_then_replaces_in_one_write_each_keeping_the_total_inventory() {
        let table = testkit::table().await;
        let padded = r#"{"name":"  Espresso cup ","description":"Porcelain, 80 ml"}"#;
        let (s, p) = put(&table, "42", padded).await;
        assert_eq!(s, 201, "{p}");
        assert_eq!(
            (
                &p["sku"],
                &p["name"],
                &p["description"],
                &p["totalInventory"]
            ),
            (
                &json!(42),
                &json!("Espresso cup"),
                &json!("Porcelain, 80 ml"),
                &json!(0)
            ),
            "the name is trimmed; nothing in stock yet"
        );
        assert_eq!(p["createdAt"], p["updatedAt"]);
        let requests = table.meter().requests();
        assert_eq!(
            (
                requests.len(),
                requests[0].operation,
                requests[0].write_units
            ),
            (1, "UpdateItem", 1.0),
            "one write of one small item (a product is in no index)"
        );

        // What the stream pipeline keeps is kept by a replace.
        let key = keys::commerce::product(crate::fixtures::sku(42));
        let total = Update::new().set(Product::TOTAL_INVENTORY, model::n(7));
        table.update(&key, &total, None).await.unwrap();
        table.meter().reset();
        let (s, p2) = put(
            &table,
            "42",
            r#"{"name":"Espresso cup","description":null}"#,
        )
        .await;
        assert_eq!(s, 200, "{p2}");
        assert_eq!(p2["totalInventory"], 7);
        assert_eq!(p2["description"], Value::Null, "null removes it");
        assert_eq!(p2["createdAt"], p["createdAt"], "creation time is kept");
        let requests = table.meter().requests();
        assert_eq!(
            (
                requests.len(),
                requests[0].operation,
                requests[0].write_units
            ),
            (1, "UpdateItem", 1.0)
        );
        let items = all_items(&table).await;
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["PK"].as_s().unwrap(), "PRODUCT#000000000042");
        assert_eq!(items[0]["SK"].as_s().unwrap(), "A");
        assert_eq!(items[0]["Type"].as_s().unwrap(), Product::TYPE);
        assert!(!items[0].contains_key(Product::DESCRIPTION));
        assert!(!items[0].contains_key("GSI1PK"), "a product is in no index");

        // Absent is the same as null: no description.
        let (s, p3) = put(&table, "42", r#"{"name":"Cup"}"#).await;
        assert_eq!((s, &p3["description"]), (200, &Value::Null));
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = testkit::table().await;
        let long_name = format!(r#"{{"name":"{}"}}"#, "n".repeat(MAX_NAME_CHARS + 1));
        let long_description = format!(
            r#"{{"name":"Cup","description":"{}"}}"#,
            "é".repeat(MAX_DESCRIPTION_CHARS + 1)
        );
        let huge = format!(r#"{{"name":"{}"}}"#, "n".repeat(api::MAX_BODY_BYTES));
        let good = r#"{"name":"Cup"}"#;
        type Case<'a> = ((&'a str, &'a str), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("0", good), 400, "invalid_parameter"),
            (("042", good), 400, "invalid_parameter"),
            (("abc", good), 400, "invalid_parameter"),
            (("-1", good), 400, "invalid_parameter"),
            (("1.5", good), 400, "invalid_parameter"),
            (("1000000000000", good), 400, "invalid_parameter"),
            (("4#2", good), 400, "invalid_parameter"),
            (("42", ""), 400, "missing_body"),
            (("42", "{"), 400, "invalid_json"),
            (("42", "[]"), 400, "invalid_body"),
            (("42", "{}"), 400, "invalid_body"),
            (("42", r#"{"name":null}"#), 400, "invalid_body"),
            (("42", r#"{"name":5}"#), 400, "invalid_body"),
            (("42", r#"{"name":"   "}"#), 400, "invalid_body"),
            (("42", &long_name), 400, "invalid_body"),
            (("42", &long_description), 400, "invalid_body"),
            (("42", r#"{"name":"Cup","description":5}"#), 400, "invalid_body"),
            (("42", r#"{"name":"Cup","totalInventory":100}"#), 400, "invalid_body"),
            (("42", r#"{"name":"Cup","sku":42}"#), 400, "invalid_body"),
            (("42", &huge), 413, "body_too_large"),
        ];
        testkit::assert_errors(cases, async |(sku, body)| put(&table, sku, body).await).await;
        assert!(table.meter().requests().is_empty(), "nothing even sent");
        assert!(all_items(&table).await.is_empty(), "nothing written");

        // The limits themselves are fine.
        let longest = format!(
            r#"{{"name":"{}","description":"{}"}}"#,
            "n".repeat(MAX_NAME_CHARS),
            "é".repeat(MAX_DESCRIPTION_CHARS)
        );
        assert_eq!(put(&table, "999999999999", &longest).await.0, 201);
    }
}
