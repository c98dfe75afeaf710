//! C3: `POST /customers/{customerId}/orders` with `{"items": [{"sku", "quantity"}]}` and an
//! optional `Idempotency-Key` header.
//!
//! Prices come from the catalogue, never from the client: each line costs its product's price
//! (`PUT /products/{sku}`), read when the order is placed and checked again in its transaction, so
//! a price changed in between is not written (the order is priced again; still changing, 409
//! `price_changed`). A `unitPrice` in the body is refused (400 `unit_price_not_accepted`); a SKU
//! that is no product, or a product without a price, is a 422 naming it.
//!
//! One transaction: the customer must exist (ConditionCheck, an open question of Good's
//! data-modeling post), the order summary goes into the customer's collection, the header and
//! line items into the order's own, and each product's price is checked.
//! Under an `Idempotency-Key`, a retry returns the first attempt's response and writes nothing;
//! the same key with a different body is refused.

use api::declare::*;
use std::collections::HashSet;

use crate::data::{
    self as commerce, IdempotencyKey, ORDER_STATUS_KEYS, ORDER_STATUS_SHARDS, OrderDesign,
    OrderRequest, PlaceOutcome, PricedOrder, Unpriced,
};
use keys::{
    Id, SortableId, Timestamp,
    commerce::{OrderId, OrderStatus, Sku},
};
use lambda_http::http::header::{CONTENT_TYPE, LOCATION};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "place-order",
    Access::owner("customerId", Refused::CustomerNotFound.refusal()),
    &Route::post(
        "/customers/{customerId}/orders",
        "C3: place an order at the catalogue's prices (all or nothing, idempotent with an Idempotency-Key)",
        &[Pattern {
            id: "C3",
            route: "`POST /customers/{customerId}/orders` `{items: [{sku, quantity}]}` (1 to 48 lines), `Idempotency-Key` header",
            index: Index::Table,
            request: "BatchGetItem the products (strongly consistent, for their prices); TransactWriteItems: ConditionCheck customer exists; Put idempotency record (if a key); Put summary, header, lines (all `attribute_not_exists`); ConditionCheck each product's price unchanged",
            returns: "201 `{orderId, customerId, status, createdAt, currency, total, items}`, `Location`; 404 unknown customer; 422 unknown or unpriced SKU, mixed currencies, key reused with another body; 409 price changed",
            example: Example::sub("123", "/customers/123/orders")
                .with_headers(&[("Idempotency-Key", "3f1c2a9e-7b4d-4e8a-9c1f-2b6d8e0a5c71")])
                .with_body(
                    r#"{"items": [{"sku": 1001, "quantity": 2}, {"sku": 42, "quantity": 1}]}"#,
                ),
        }],
    ),
)
.needs(Needs::TABLE.with_settings(&[ORDER_STATUS_SHARDS, ORDER_STATUS_KEYS, INDEX_DESIGN]));

api::refusals! {
    CustomerNotFound = crate::refusals::CUSTOMER_NOT_FOUND,
    UnitPriceNotAccepted = Refusal::new(400, "unit_price_not_accepted", "an order line gives a `unitPrice`: prices come from the catalogue"),
    DuplicateSku = Refusal::new(400, "duplicate_sku", "two order lines name the same SKU"),
    UnknownSku = Refusal::new(422, "unknown_sku", "an order line names a SKU no product has"),
    SkuNotForSale = Refusal::new(422, "sku_not_for_sale", "an order line names a product without a price"),
    MixedCurrencies = Refusal::new(422, "mixed_currencies", "the products are priced in different currencies"),
    PriceChanged = Refusal::new(409, "price_changed", "a product's price kept changing while the order was placed; nothing was written"),
    InvalidIdempotencyKey = crate::replay::INVALID_KEY,
    IdempotencyKeyReused = crate::replay::KEY_REUSED,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::created::<Placed>("the order placed (or, with `Idempotent-Replayed`, the one placed before)")
        .body::<PlaceOrder>()
        .refusals(Refused::ALL)
        .more(|| {
            serde_json::json!({
                "parameters": [{
                    "name": "Idempotency-Key",
                    "in": "header",
                    "description": "a retry with the same key and body within 24 hours answers the first order again; any other value is a 400 `invalid_idempotency_key`",
                    "schema": { "type": "string", "minLength": 1, "maxLength": keys::MAX_ID_LEN, "pattern": "^[A-Za-z0-9._-]+$" },
                }],
                "responses": { "201": {
                    "headers": {
                        "Location": { "description": "the order's page", "schema": { "type": "string" } },
                        "Idempotent-Replayed": {
                            "description": "`true` when this answers an earlier request with the same key",
                            "schema": { "type": "string", "enum": ["true"] },
                        },
                    },
                    "links": {
                        "GetOrder": { "operationId": "getOrder", "parameters": { "orderId": "$response.body#/orderId" } },
                        "AddOrderEvent": { "operationId": "addOrderEvent", "parameters": { "orderId": "$response.body#/orderId" } },
                    },
                } },
            })
        })
        .worst(worst),
];

/// An order as placed.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "PlacedOrder")]
struct Placed<'a> {
    order_id: OrderId,
    customer_id: &'a Id,
    status: OrderStatus,
    created_at: Timestamp,
    /// ISO 4217, the products'
    #[schemars(regex(pattern = "^[A-Z]{3}$"))]
    currency: &'a str,
    /// cents: each line's quantity times its product's price
    total: i64,
    items: Vec<crate::views::OrderLine>,
}

/// C3's costliest order: the most lines, each of the most units of a product at its largest
/// and dearest, under an `Idempotency-Key`, by customer 123, whose account rep's sales the
/// stream also derives.
fn worst() -> api::function::Worst {
    use api::function::{Worst, leak};
    let skus: Vec<u64> = (0..MAX_LINES as u64).map(|i| Sku::MAX - i).collect();
    let items: Vec<_> = skus
        .iter()
        .map(|sku| json!({ "sku": sku, "quantity": MAX_QUANTITY }))
        .collect();
    let request = Example::sub("123", "/customers/123/orders")
        .with_headers(&[("Idempotency-Key", "0b9e4f7a-2c1d-4e8b-9a6f-3d5c7e1b2a40")])
        .with_body(leak(json!({ "items": items }).to_string()));
    let what = format!(
        "{MAX_LINES} lines of {MAX_QUANTITY} units, each product at its largest, an \
         `Idempotency-Key`, a customer under an account rep"
    );
    skus.iter().fold(Worst::new(what, request), |w, sku| {
        w.after("put-product", crate::put_product::largest(*sku))
    })
}

/// At most this many lines: the transaction holds 4 + 2 × lines actions (a put and a price
/// check per line), within DynamoDB's 100.
pub const MAX_LINES: usize = 48;
const MAX_QUANTITY: u32 = model::commerce::OrderLine::MAX_QUANTITY;
/// How long a key is remembered. A retry after that places a new order.
pub const IDEMPOTENCY_TTL_SECONDS: i64 = 24 * 3600;

/// The order's lines.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
struct PlaceOrder {
    /// at most 48 lines, one per SKU: the transaction holds two actions per line (the line and
    /// its product's price check) within DynamoDB's 100
    #[schemars(length(min = 1, max = MAX_LINES))]
    items: Vec<Line>,
}

/// a product and how many; its price is the catalogue's (a `unitPrice` is refused, `null`
/// included: 400 `unit_price_not_accepted`)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "OrderLineRequest")]
struct Line {
    #[schemars(with = "Sku")]
    sku: api::Bounded<1, { Sku::MAX as i64 }>,
    quantity: api::Bounded<1, { MAX_QUANTITY as i64 }>,
    /// Refused when given, `null` included: the price is the catalogue's.
    #[serde(default, deserialize_with = "given")]
    #[schemars(skip)]
    unit_price: Option<serde_json::Value>,
}

/// Any value given, `null` too (serde's `Option` would read `null` as absent).
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

fn invalid(msg: impl Into<String>) -> ApiError {
    Common::InvalidBody.because(msg)
}

fn validate(body: &PlaceOrder) -> Result<(), ApiError> {
    if body.items.is_empty() || body.items.len() > MAX_LINES {
        return Err(invalid(format!("items: give 1 to {MAX_LINES} lines")));
    }
    let mut seen = HashSet::new();
    for (i, l) in body.items.iter().enumerate() {
        if l.unit_price.is_some() {
            return Err(Refused::UnitPriceNotAccepted.because(format!(
                    "items[{i}].unitPrice: prices come from the catalogue (PUT /products/{{sku}}); leave unitPrice out"
                ),
            ));
        }
        if !seen.insert(l.sku) {
            return Err(Refused::DuplicateSku.because(format!(
                "items[{i}].sku: {} appears twice; give one line per SKU with the total quantity",
                l.sku
            )));
        }
    }
    Ok(())
}

/// The answer to a placed order (and what a retry under its key replays).
fn response(priced: &PricedOrder) -> String {
    let order = &priced.order;
    let placed = Placed {
        order_id: order.order_id,
        customer_id: &order.customer,
        status: OrderStatus::Open,
        created_at: order.created_at,
        currency: &priced.currency,
        total: order.total(),
        items: order
            .lines
            .iter()
            .map(|(sku, quantity, price)| crate::views::OrderLine {
                sku: *sku,
                quantity: *quantity,
                unit_price: *price,
            })
            .collect(),
    };
    serde_json::to_string(&placed).unwrap_or_default()
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let customer = api::path_id(&req, "customerId")?;
    let key = crate::replay::key(&req)?;
    let body: PlaceOrder = api::json_body(&req)?;
    validate(&body)?;

    let order_id = SortableId::new();
    let created_ms = order_id.timestamp_ms();
    let created_at =
        Timestamp::from_ms(created_ms).map_err(|e| ApiError::from(store::StoreError::from(e)))?;
    let items = body
        .items
        .iter()
        .map(|l| Ok((Sku::new(l.sku.to_u64())?, l.quantity.to_u32())))
        .collect::<Result<Vec<_>, keys::KeyError>>()
        .map_err(|e| invalid(e.to_string()))?;
    let request = OrderRequest {
        customer: customer.clone(),
        order_id,
        created_at,
        items,
        design: OrderDesign::of(deps)?,
    };
    let request_hash = request_hash(&request.items);
    let line_of = |sku: Sku| {
        request
            .items
            .iter()
            .position(|(s, _)| *s == sku)
            .unwrap_or_default()
    };
    // Priced, then placed with a check that each price is still the one read; a price changed
    // in between writes nothing, and the order is priced again.
    let mut changed = None;
    for _ in 0..commerce::PRICE_ATTEMPTS {
        let priced = match commerce::price_order(&deps.table, &request).await? {
            Ok(priced) => priced,
            Err(unpriced) => return Err(refused(unpriced, line_of)),
        };
        // The answer is made before the write (a retry under the same key replays it, as the
        // order's idempotency record keeps it), so it does not name the account rep the order
        // records: GET /orders/{orderId} does.
        let answer = response(&priced);
        let idempotency = key.as_ref().map(|key| IdempotencyKey {
            key: key.clone(),
            request_hash: request_hash.clone(),
            response: answer.clone(),
            expires_at: (created_ms / 1000) as i64 + IDEMPOTENCY_TTL_SECONDS,
        });
        match commerce::place_priced(&deps.table, &priced, idempotency.as_ref()).await? {
            PlaceOutcome::Placed => return created(answer, order_id, false),
            PlaceOutcome::PriceChanged(sku) => changed = Some(sku),
            PlaceOutcome::CustomerNotFound => {
                return Err(Refused::CustomerNotFound.because(format!(
                    "There is no customer {customer}; create it with PUT /customers/{customer} first."
                )));
            }
            PlaceOutcome::Replayed {
                order_id,
                response,
                same_request: true,
            } => return created(response, order_id, true),
            PlaceOutcome::Replayed {
                same_request: false,
                ..
            } => {
                return Err(Refused::IdempotencyKeyReused.because(
                    "This Idempotency-Key was used for a different order; use a new key for a new order.",
                ));
            }
        }
    }
    let sku = changed.expect("set by every attempt");
    Err(Refused::PriceChanged.because(format!(
        "items[{}].sku: the price of product {sku} kept changing while the order was placed; nothing was written, try again",
        line_of(sku)
    )))
}

/// The refusal of an order that cannot be priced; `line_of` a SKU is its line's index.
fn refused(unpriced: Unpriced, line_of: impl Fn(Sku) -> usize) -> ApiError {
    match unpriced {
        Unpriced::UnknownSku(sku) => Refused::UnknownSku.because(format!(
            "items[{}].sku: no product has SKU {sku}",
            line_of(sku)
        )),
        Unpriced::UnpricedSku(sku) => Refused::SkuNotForSale.because(format!(
            "items[{}].sku: product {sku} has no price, so it is not for sale",
            line_of(sku)
        )),
        Unpriced::MixedCurrencies(prices) => Refused::MixedCurrencies.because(format!(
            "items: the products are priced in different currencies ({}); place one order per currency",
            prices
                .iter()
                .map(|(sku, c)| format!("{sku}: {c}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// 201 with `body`, the answer made of the order when it was placed (the JSON [`response`]
/// wrote), and its page as `Location`; `replayed`: a retry's answer.
fn created(body: String, order_id: OrderId, replayed: bool) -> Result<Response<Body>, ApiError> {
    let res = Response::builder()
        .status(201)
        .header(CONTENT_TYPE, "application/json")
        .header(LOCATION, format!("/orders/{order_id}"))
        .body(Body::Text(body))
        .map_err(|e| ApiError::from(store::StoreError::Corrupt(e.to_string())))?;
    Ok(if replayed {
        crate::replay::replayed(res)
    } else {
        res
    })
}

/// A digest of the order's lines, to tell a retry from a different order under the same key.
fn request_hash(items: &[(Sku, u32)]) -> String {
    let canonical: Vec<_> = items.iter().map(|(s, q)| (s.get(), q)).collect();
    crate::replay::digest(&serde_json::to_vec(&canonical).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use store::Table;
    use testkit::{Call, Harness, all_items};

    const BODY: &str = r#"{"items":[{"sku":42,"quantity":2},{"sku":7,"quantity":1}]}"#;

    /// Products 42 and 7 in the catalogue, at 12.50 and 0.99 USD.
    async fn catalogue(table: &Table) {
        crate::fixtures::priced_product(table, 42, 1250).await;
        crate::fixtures::priced_product(table, 7, 99).await;
    }

    async fn table_with_customer() -> Table {
        let table = testkit::table().await;
        crate::fixtures::customer(&table, "123").await;
        catalogue(&table).await;
        table.meter().reset();
        table
    }

    fn harness(table: &Table) -> Harness {
        Harness::new(&FUNCTION, handle, table.clone())
    }

    /// [`table_with_customer`] and a harness of the function on it: where most tests start.
    async fn placing() -> (Table, Harness) {
        let table = table_with_customer().await;
        let h = harness(&table);
        (table, h)
    }

    /// A request with `Idempotency-Key: key`, if any.
    fn with_key<'h>(h: &'h Harness, key: Option<&str>) -> Call<'h> {
        match key {
            Some(k) => h.with_header("Idempotency-Key", k),
            None => h.anyone(),
        }
    }

    async fn post(h: &Harness, customer: &str, body: &str, key: Option<&str>) -> (u16, Value) {
        let path = format!("/customers/{customer}/orders");
        with_key(h, key).post(&path, body).await
    }

    fn count(items: &[model::Item], ty: &str) -> usize {
        items
            .iter()
            .filter(|i| i["Type"].as_s().unwrap() == ty)
            .count()
    }

    #[tokio::test]
    async fn places_summary_header_and_lines_in_one_transaction() {
        let (table, h) = placing().await;
        let (s, body) = post(&h, "123", BODY, None).await;
        assert_eq!(s, 201);
        assert_eq!(body["total"], 2 * 1250 + 99);
        assert_eq!(body["status"], "OPEN");
        let id = body["orderId"].as_str().unwrap();
        let requests = table.meter().requests();
        let ops = table.meter().operations();
        // The products read for their prices, the customer for its account rep (both strongly
        // consistent), then one transaction.
        assert_eq!(ops, ["BatchGetItem", "GetItem", "TransactWriteItems"]);
        assert_eq!(requests[0].read_units, 2.0);
        assert_eq!(requests[1].read_units, 1.0);

        let items = all_items(&table).await;
        let keys: Vec<(String, String)> = items
            .iter()
            .map(|i| {
                (
                    i["PK"].as_s().unwrap().clone(),
                    i["SK"].as_s().unwrap().clone(),
                )
            })
            .collect();
        assert!(keys.contains(&("CUSTOMER#123".into(), format!("#ORDER#{id}"))));
        assert!(keys.contains(&(format!("ORDER#{id}"), "A".into())));
        assert!(keys.contains(&(format!("ORDER#{id}"), "ITEM#000000000042".into())));
        assert!(keys.contains(&(format!("ORDER#{id}"), "ITEM#000000000007".into())));
        assert_eq!(
            items.len(),
            7,
            "customer + 2 products + summary + header + 2 lines"
        );
        assert!(
            items.iter().all(|i| i.contains_key("Type")),
            "every item has a Type"
        );
    }

    #[tokio::test]
    async fn an_order_records_its_customers_rep_in_the_reps_and_customers_status_lists() {
        let table = testkit::table().await;
        let h = harness(&table);
        hr::fixtures::org(&table).await;
        hr::fixtures::employee(&table, "E1", "Ada Lovelace").await;
        crate::fixtures::customer_of_rep(&table, "123", "E1").await;
        catalogue(&table).await;
        let (s, body) = post(&h, "123", BODY, None).await;
        assert_eq!(s, 201, "{body}");
        let id = body["orderId"].as_str().unwrap();
        let items = all_items(&table).await;
        let of_type = |ty: &str| {
            items
                .iter()
                .find(|i| i["Type"].as_s().unwrap() == ty)
                .unwrap()
                .clone()
        };
        let (summary, header) = (of_type("Order"), of_type("OrderHeader"));
        for item in [&summary, &header] {
            assert_eq!(item["AccountRepId"].as_s().unwrap(), "E1");
        }
        let gsi1 = |i: &model::Item| {
            (
                i["GSI1PK"].as_s().unwrap().clone(),
                i["GSI1SK"].as_s().unwrap().clone(),
            )
        };
        assert_eq!(gsi1(&summary), ("REP#E1".into(), format!("OPEN#{id}")));
        assert_eq!(gsi1(&header), ("CUSTOMER#123".into(), format!("OPEN#{id}")));
    }

    /// In the multi-attribute design the header and the summary carry no GSI1 keys: the
    /// indexes C4 by status and O10 read key on attributes the order holds anyway, and a GSI1
    /// entry no one reads costs a write unit with every write of the order. The lines keep
    /// theirs (O8).
    #[tokio::test]
    async fn the_multi_attribute_design_writes_no_gsi1_keys_on_headers_and_summaries() {
        let table = testkit::table().await;
        hr::fixtures::org(&table).await;
        hr::fixtures::employee(&table, "E1", "Ada Lovelace").await;
        crate::fixtures::customer_of_rep(&table, "123", "E1").await;
        catalogue(&table).await;
        let deps = testkit::deps(table.clone(), FUNCTION.needs)
            .with_setting(&crate::data::ORDER_STATUS_KEYS, "multi-attribute")
            .unwrap();
        let h = Harness::with_deps(&FUNCTION, handle, deps);
        let (s, body) = h.post("/customers/123/orders", BODY).await;
        assert_eq!(s, 201, "{body}");
        let items = all_items(&table).await;
        let gsi1 = |ty: &str| {
            let of_type: Vec<_> = items
                .iter()
                .filter(|i| i["Type"].as_s().unwrap() == ty)
                .collect();
            assert!(!of_type.is_empty(), "{ty}");
            of_type
                .iter()
                .all(|i| i.contains_key("GSI1PK") && i.contains_key("GSI1SK"))
        };
        assert!(!gsi1("OrderHeader") && !gsi1("Order"));
        assert!(
            gsi1("OrderItem"),
            "the lines stay in their product's partition"
        );
        let header = items
            .iter()
            .find(|i| i["Type"].as_s().unwrap() == "OrderHeader")
            .unwrap();
        assert!(!header.keys().any(|k| k.starts_with("GSI1")), "{header:?}");
        assert!(
            header.contains_key("GSI2PK"),
            "O5 reads GSI2 in every design"
        );
    }

    #[tokio::test]
    async fn the_header_records_its_o5_shard_among_the_configured_count() {
        let table = table_with_customer().await;
        let deps = testkit::deps(table.clone(), FUNCTION.needs)
            .with_setting(&ORDER_STATUS_SHARDS, "4")
            .unwrap();
        let h = Harness::with_deps(&FUNCTION, handle, deps);
        for _ in 0..12 {
            let (s, body) = h.post("/customers/123/orders", BODY).await;
            assert_eq!(s, 201, "{body}");
        }
        let items = all_items(&table).await;
        let mut shards = std::collections::BTreeSet::new();
        for i in &items {
            match i["Type"].as_s().unwrap().as_str() {
                "OrderHeader" => {
                    let shard: u32 = i["StatusShard"].as_n().unwrap().parse().unwrap();
                    assert!(shard < 4, "{i:?}");
                    assert_eq!(i["GSI2PK"].as_s().unwrap(), &format!("ORDERS#{shard:02}"));
                    shards.insert(shard);
                }
                "Order" => assert!(!i.contains_key("StatusShard"), "on the header only"),
                _ => {}
            }
        }
        assert!(
            shards.len() > 1,
            "12 orders spread over the shards: {shards:?}"
        );
    }

    #[tokio::test]
    async fn without_a_rep_the_summary_stays_out_of_gsi1() {
        let (table, h) = placing().await;
        let (s, _) = post(&h, "123", BODY, None).await;
        assert_eq!(s, 201);
        let summary = all_items(&table)
            .await
            .into_iter()
            .find(|i| i["Type"].as_s().unwrap() == "Order")
            .unwrap();
        assert!(!summary.contains_key("GSI1PK") && !summary.contains_key("AccountRepId"));
    }

    #[tokio::test]
    async fn unknown_customer_is_404_and_writes_nothing() {
        let table = testkit::table().await;
        catalogue(&table).await;
        let before = all_items(&table).await;
        let h = harness(&table);
        let (s, body) = post(&h, "nobody", BODY, None).await;
        assert_eq!(
            (s, body["code"].as_str().unwrap()),
            (404, "customer_not_found")
        );
        assert_eq!(all_items(&table).await, before);
    }

    #[tokio::test]
    async fn a_retry_with_the_same_key_returns_the_same_order_and_writes_nothing() {
        let (table, h) = placing().await;
        let (s1, first) = post(&h, "123", BODY, Some("retry-1")).await;
        let before = all_items(&table).await;
        let (s2, second) = post(&h, "123", BODY, Some("retry-1")).await;
        assert_eq!((s1, s2), (201, 201));
        assert_eq!(first, second);
        assert_eq!(all_items(&table).await, before, "the retry wrote nothing");
        let (s3, other) = post(
            &h,
            "123",
            r#"{"items":[{"sku":7,"quantity":5}]}"#,
            Some("retry-1"),
        )
        .await;
        assert_eq!(
            (s3, other["code"].as_str().unwrap()),
            (422, "idempotency_key_reused")
        );
        assert_eq!(all_items(&table).await, before);
        // The same key for another customer is another key.
        crate::fixtures::customer(&table, "456").await;
        let (s4, third) = post(&h, "456", BODY, Some("retry-1")).await;
        assert_eq!(s4, 201);
        assert_ne!(third["orderId"], first["orderId"]);
    }

    /// A key that is not a valid id is refused, never ignored (ignored, a retry became a second
    /// order): non-ASCII, empty, too long, with a delimiter.
    #[tokio::test]
    async fn an_invalid_idempotency_key_is_a_400_not_ignored() {
        let (table, h) = placing().await;
        let before = all_items(&table).await;
        for key in ["ké", "", &"k".repeat(65), "a#b", "a b"] {
            let answer = post(&h, "123", BODY, Some(key)).await;
            testkit::assert_refused(&answer, 400, "invalid_idempotency_key", key);
        }
        assert_eq!(all_items(&table).await, before, "nothing written");
    }

    /// TTL deletes lazily: an idempotency record past its expiry is treated as absent, so the
    /// key places a new order instead of replaying (or refusing as reused) the old one.
    #[tokio::test]
    async fn an_expired_idempotency_record_does_not_replay() {
        let (table, h) = placing().await;
        let (s, old) = post(&h, "123", BODY, Some("reused-later")).await;
        assert_eq!(s, 201);
        // Age the record past its expiry (TTL has not deleted it yet).
        let key = keys::commerce::idempotency(
            &Id::parse("c", "123").unwrap(),
            &Id::parse("k", "reused-later").unwrap(),
        );
        let past = store::Update::new().set(
            model::commerce::Idempotency::EXPIRES_AT,
            model::n((keys::now_ms() / 1000) as i64 - 60),
        );
        table.update(&key, &past, None).await.unwrap();
        let other = r#"{"items":[{"sku":7,"quantity":3}]}"#;
        let (s, new) = post(&h, "123", other, Some("reused-later")).await;
        assert_eq!(s, 201, "{new}");
        assert_ne!(new["orderId"], old["orderId"], "a new order, not a replay");
        // And the renewed record replays the new order.
        let (s, again) = post(&h, "123", other, Some("reused-later")).await;
        assert_eq!((s, &again), (201, &new));
    }

    /// Each line costs its product's catalogue price; the client names products and quantities
    /// only. The order records the products' currency.
    #[tokio::test]
    async fn lines_are_priced_from_the_catalogue() {
        let (table, h) = placing().await;
        let (s, body) = post(&h, "123", BODY, None).await;
        assert_eq!(s, 201, "{body}");
        assert_eq!(
            body["items"],
            serde_json::json!([
                {"sku": 42, "quantity": 2, "unitPrice": 1250},
                {"sku": 7, "quantity": 1, "unitPrice": 99},
            ])
        );
        assert_eq!(
            (&body["total"], &body["currency"]),
            (&serde_json::json!(2599), &serde_json::json!("USD"))
        );
        let items = all_items(&table).await;
        let line = items
            .iter()
            .find(|i| i["SK"].as_s().unwrap() == "ITEM#000000000042")
            .unwrap();
        assert_eq!(line["UnitPrice"].as_n().unwrap(), "1250");
        for ty in ["Order", "OrderHeader"] {
            let order = items
                .iter()
                .find(|i| i["Type"].as_s().unwrap() == ty)
                .unwrap();
            assert_eq!(order["Currency"].as_s().unwrap(), "USD", "{ty}");
        }
    }

    /// A client's price is refused, not ignored (it was taken: an order at 0 cents, or one that
    /// inflated revenue); an unknown SKU, a product without a price and mixed currencies are
    /// 422s naming what is wrong. Nothing is written.
    #[tokio::test]
    async fn a_client_price_an_unknown_or_unpriced_sku_are_refused() {
        let table = table_with_customer().await;
        crate::fixtures::product(&table, 5).await;
        let euro = crate::data::products::Price {
            cents: 300,
            currency: "EUR".into(),
        };
        crate::data::products::put_product(
            &table,
            Sku::new(8).unwrap(),
            "Euro tea",
            None,
            Some(&euro),
            Timestamp::now(),
        )
        .await
        .unwrap();
        let before = all_items(&table).await;
        let h = harness(&table);
        for (body, status, code, names) in [
            (
                r#"{"items":[{"sku":42,"quantity":1,"unitPrice":0}]}"#,
                400,
                "unit_price_not_accepted",
                "items[0].unitPrice",
            ),
            (
                r#"{"items":[{"sku":42,"quantity":1},{"sku":999,"quantity":1}]}"#,
                422,
                "unknown_sku",
                "items[1].sku: no product has SKU 999",
            ),
            (
                r#"{"items":[{"sku":5,"quantity":1}]}"#,
                422,
                "sku_not_for_sale",
                "product 5 has no price",
            ),
            (
                r#"{"items":[{"sku":42,"quantity":1},{"sku":8,"quantity":1}]}"#,
                422,
                "mixed_currencies",
                "8: EUR",
            ),
        ] {
            let (s, b) = post(&h, "123", body, None).await;
            assert_eq!(
                (s, b["code"].as_str().unwrap()),
                (status, code),
                "{body}: {b}"
            );
            let message = b["message"].as_str().unwrap();
            assert!(message.contains(names), "{message}");
        }
        assert_eq!(all_items(&table).await, before, "nothing written");
    }

    /// DynamoDB (Local here) applies a transaction once per ClientRequestToken: the same token
    /// with the same input a second time is a success that writes nothing, where a new token
    /// finds the first write and is cancelled by its `attribute_not_exists`.
    #[tokio::test]
    async fn a_repeated_token_with_the_same_input_succeeds_and_writes_once() {
        let table = testkit::table().await;
        let line = model::commerce::CartLine {
            cart_id: Id::parse("c", "cart").unwrap(),
            product_id: Id::parse("p", "tea").unwrap(),
            quantity: 1,
            updated_at: Timestamp::parse("2020-01-01T00:00:00.000Z").unwrap(),
            version: 1,
        };
        let send = |token: Option<&'static str>| {
            let table = table.clone();
            let line = line.clone();
            async move {
                let mut tx = table.transaction();
                if let Some(t) = token {
                    tx.idempotent_on(&["test", table.name(), t]);
                }
                tx.put(&line, Some(store::Condition::Absent)).unwrap();
                tx.send().await
            }
        };
        send(Some("one")).await.unwrap();
        send(Some("one"))
            .await
            .expect("the same token and input: success, nothing written again");
        assert_eq!(all_items(&table).await.len(), 1);
        assert!(
            send(None).await.is_err(),
            "a new token is a new request: the line exists"
        );
    }

    #[tokio::test]
    async fn fifty_parallel_orders_on_one_customer_are_fifty_orders() {
        let (table, h) = placing().await;
        let calls = (0..50).map(|_| post(&h, "123", BODY, None));
        let results = futures::future::join_all(calls).await;
        assert!(results.iter().all(|(s, _)| *s == 201), "{results:?}");
        let items = all_items(&table).await;
        assert_eq!(count(&items, "Order"), 50);
        assert_eq!(count(&items, "OrderHeader"), 50);
        assert_eq!(count(&items, "OrderItem"), 100);
    }

    #[tokio::test]
    async fn twenty_parallel_retries_with_one_key_are_one_order() {
        let (table, h) = placing().await;
        let calls = (0..20).map(|_| post(&h, "123", BODY, Some("same-key")));
        let results = futures::future::join_all(calls).await;
        assert!(results.iter().all(|(s, _)| *s == 201), "{results:?}");
        let ids: HashSet<_> = results
            .iter()
            .map(|(_, b)| b["orderId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids.len(), 1, "every retry answers with the one order");
        let items = all_items(&table).await;
        assert_eq!(count(&items, "Order"), 1);
        assert_eq!(count(&items, "Idempotency"), 1);
    }

    /// A price read back beyond what `PUT /products` accepts (written by hand: i64::MAX cents)
    /// cannot be multiplied into a total: a 500 and nothing written, never a panic nor a
    /// wrapped, plausible total.
    #[tokio::test]
    async fn a_stored_price_whose_total_overflows_writes_nothing() {
        let table = table_with_customer().await;
        crate::fixtures::priced_product(&table, 5, i64::MAX).await;
        let before = all_items(&table).await;
        let h = harness(&table);
        let answer = post(&h, "123", r#"{"items":[{"sku":5,"quantity":2}]}"#, None).await;
        testkit::assert_refused(&answer, 500, "internal_error", "a total past i64");
        assert_eq!(all_items(&table).await, before, "nothing written");
    }

    #[tokio::test]
    async fn bad_input_is_4xx_and_writes_nothing() {
        let table = table_with_customer().await;
        let before = all_items(&table).await;
        let too_many = format!(
            r#"{{"items":[{}]}}"#,
            (1..=49)
                .map(|i| format!(r#"{{"sku":{i},"quantity":1}}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        type Case<'a> = ((&'a str, &'a str, Option<&'a str>), u16, &'static str);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (("123", "", None), 400, "missing_body"),
            (("123", "not json", None), 400, "invalid_json"),
            (("123", r#"{}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[]}"#, None), 400, "invalid_body"),
            (("123", &too_many, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":"42","quantity":1}]}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":42.5,"quantity":1}]}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":42,"quantity":0}]}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":42,"quantity":-1}]}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":42}]}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":42,"quantity":1,"unitPrice":1}]}"#, None), 400, "unit_price_not_accepted"),
            // A unitPrice of null is a unitPrice given, refused like any other (it was a 201).
            (("123", r#"{"items":[{"sku":42,"quantity":1,"unitPrice":null}]}"#, None), 400, "unit_price_not_accepted"),
            (("123", r#"{"items":[{"sku":0,"quantity":1}]}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":1000000000000,"quantity":1}]}"#, None), 400, "invalid_body"),
            (("123", r#"{"items":[{"sku":1,"quantity":1},{"sku":1,"quantity":2}]}"#, None), 400, "duplicate_sku"),
            (("123", BODY, Some("has space")), 400, "invalid_idempotency_key"),
            (("123", BODY, Some("a#b")), 400, "invalid_idempotency_key"),
            (("1#2", BODY, None), 400, "invalid_parameter"),
            (("", BODY, None), 400, "invalid_parameter"),
            (("ghost", BODY, None), 404, "customer_not_found"),
        ];
        let h = harness(&table);
        testkit::assert_errors(cases, async |(customer, body, key)| {
            let mut ev = with_key(&h, *key).event("POST", "/customers/x/orders", &[], Some(body));
            ev["pathParameters"]["customerId"] = serde_json::json!(customer);
            h.send(&ev).await
        })
        .await;
        assert_eq!(all_items(&table).await, before, "nothing written");
    }
}
