//! Orders (C3, C6): an order placed at the catalogue's prices, once under an idempotency key, and
//! a tracking event appended to it.

use keys::{
    Id, Timestamp,
    commerce::{self as k, OrderId, OrderStatus},
    indexes::IndexDesign,
};
use model::{
    commerce::{Customer, Idempotency, Order, OrderHeader, OrderLine, OrderSummary, TrackingEvent},
    n, s,
};

use super::{
    products,
    status::{StatusKeys, order_shards},
};
use store::{Condition, Deps, Read, StoreError, Table, Update};

// ---------------------------------------------------------------------------------------------
// C3: place an order

/// A new order as the handler validated it.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub customer: Id,
    pub order_id: OrderId,
    pub created_at: Timestamp,
    /// (sku, quantity, unit price in cents); SKUs distinct.
    pub lines: Vec<(k::Sku, u32, i64)>,
    /// The deployment's design, which decides the keys its items carry.
    pub design: OrderDesign,
}

/// What a deployment decides about the keys of an order's items, read once from the function's
/// settings ([`OrderDesign::of`]): a handler passes it on and never looks inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderDesign {
    /// How many GSI2 shards O5 reads (`ORDER_STATUS_SHARDS`); the header records its own.
    pub status_shards: u32,
    /// The key design of C4 by status and O10 (`ORDER_STATUS_KEYS`): whether the header and the
    /// summary carry GSI1's status keys.
    pub status_keys: StatusKeys,
    /// The index design (`INDEX_DESIGN`): whether the lines carry GSI1's keys (O8).
    pub index_design: IndexDesign,
}

impl Default for OrderDesign {
    /// The template's defaults: what tests and tools write unless they say otherwise.
    fn default() -> OrderDesign {
        OrderDesign {
            status_shards: k::DEFAULT_ORDER_STATUS_SHARDS,
            status_keys: StatusKeys::default(),
            index_design: IndexDesign::default(),
        }
    }
}

impl OrderDesign {
    /// The design `deps` read at start-up; an error if the function did not declare its settings.
    pub fn of(deps: &Deps) -> Result<OrderDesign, StoreError> {
        Ok(OrderDesign {
            status_shards: order_shards(deps)?,
            status_keys: StatusKeys::of(deps)?,
            index_design: store::index_design(deps)?,
        })
    }
}

impl NewOrder {
    /// The sum of the lines' quantity × unit price, in cents; `None` when it does not fit an
    /// `i64` (a price read back corrupt: the API's bounds keep a real order below 5 × 10^13).
    pub fn checked_total(&self) -> Option<i64> {
        self.lines.iter().try_fold(0i64, |total, (_, q, p)| {
            total.checked_add(i64::from(*q).checked_mul(*p)?)
        })
    }

    /// [`NewOrder::checked_total`] of an order known to fit: [`place_order`] and
    /// [`price_order`] refuse one that does not before anything reads this (an
    /// overflow saturates, never wraps into a plausible total).
    pub fn total(&self) -> i64 {
        self.checked_total().unwrap_or(i64::MAX)
    }

    /// Refuses an order whose total does not fit an `i64` (a corrupt price) before anything is
    /// written.
    fn fits(&self) -> Result<(), StoreError> {
        match self.checked_total() {
            Some(_) => Ok(()),
            None => Err(StoreError::Corrupt(format!(
                "order {}: its lines' total does not fit an i64 (a price out of range)",
                self.order_id
            ))),
        }
    }

    /// The order as its summary and header hold it, placed under `rep`.
    pub fn order(&self, rep: Option<Id>) -> Order {
        Order {
            order_id: self.order_id,
            customer_id: self.customer.clone(),
            status: OrderStatus::Open,
            created_at: self.created_at,
            total: self.total(),
            item_count: self.lines.len() as u64,
            last_event_id: None,
            event_count: None,
            account_rep_id: rep,
            status_shard: None,
            currency: None,
        }
    }

    /// The order's header: the order with its GSI2 shard.
    /// Its line items.
    pub fn lines(&self) -> Vec<OrderLine> {
        self.lines
            .iter()
            .map(|(sku, quantity, unit_price)| OrderLine {
                order_id: self.order_id,
                sku: *sku,
                quantity: *quantity,
                unit_price: *unit_price,
            })
            .collect()
    }

    pub fn header(&self, rep: Option<Id>) -> OrderHeader {
        OrderHeader(Order {
            status_shard: Some(k::order_status_shard(
                self.order_id,
                self.design.status_shards,
            )),
            ..self.order(rep)
        })
    }
}

/// Seconds since the Unix epoch, as TTL attributes count.
fn now_seconds() -> i64 {
    (keys::now_ms() / 1000) as i64
}

/// A client retry's key and what the first attempt answered.
#[derive(Debug, Clone)]
pub struct IdempotencyKey {
    pub key: Id,
    /// A digest of the request body: the same key with another body is refused.
    pub request_hash: String,
    /// The response body to replay on a retry.
    pub response: String,
    pub expires_at: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PlaceOutcome {
    Placed,
    CustomerNotFound,
    /// A product's price changed between the order's read and its write; nothing written:
    /// price it again ([`PRICE_ATTEMPTS`] times at most).
    PriceChanged(k::Sku),
    /// The idempotency key was used before: the first attempt's order and response, and whether
    /// its request was the same as this one.
    Replayed {
        order_id: OrderId,
        response: String,
        same_request: bool,
    },
}

/// What keeps an order from being priced at the catalogue's prices; nothing is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Unpriced {
    /// No product has this SKU.
    UnknownSku(k::Sku),
    /// The product has no price: it is not for sale.
    UnpricedSku(k::Sku),
    /// The lines' products are priced in different currencies.
    MixedCurrencies(Vec<(k::Sku, String)>),
}

/// How many times an order is tried when its customer's rep changes under it.
const REP_ATTEMPTS: u32 = 3;

/// How many times an order is priced when a product's price changes between the read and the
/// write.
pub const PRICE_ATTEMPTS: u32 = 3;

/// An order as a customer asks for it: products and quantities. The prices are the catalogue's.
#[derive(Debug, Clone)]
pub struct OrderRequest {
    pub customer: Id,
    pub order_id: OrderId,
    pub created_at: Timestamp,
    /// (sku, quantity); SKUs distinct.
    pub items: Vec<(k::Sku, u32)>,
    pub design: OrderDesign,
}

/// An order priced at the catalogue's prices ([`price_order`]): what [`place_priced`] writes, in
/// its currency, and the prices its transaction checks are still the catalogue's.
#[derive(Debug, Clone)]
pub struct PricedOrder {
    pub order: NewOrder,
    pub currency: String,
    prices: Vec<(k::Sku, products::Price)>,
}

/// Prices `request` at the catalogue's prices: its products are read (ONE strongly consistent
/// BatchGetItem) and each line priced from its product.
pub async fn price_order(
    table: &Table,
    request: &OrderRequest,
) -> Result<Result<PricedOrder, Unpriced>, StoreError> {
    let skus: Vec<_> = request.items.iter().map(|(sku, _)| *sku).collect();
    let products = products::catalogue(table, &skus).await?;
    let mut prices = Vec::with_capacity(skus.len());
    for sku in &skus {
        let Some(product) = products.iter().find(|p| p.sku == *sku) else {
            return Ok(Err(Unpriced::UnknownSku(*sku)));
        };
        let Some(price) = products::Price::of(product) else {
            return Ok(Err(Unpriced::UnpricedSku(*sku)));
        };
        prices.push((*sku, price));
    }
    if prices
        .iter()
        .any(|(_, p)| p.currency != prices[0].1.currency)
    {
        let mixed = prices
            .iter()
            .map(|(s, p)| (*s, p.currency.clone()))
            .collect();
        return Ok(Err(Unpriced::MixedCurrencies(mixed)));
    }
    let priced = PricedOrder {
        order: NewOrder {
            customer: request.customer.clone(),
            order_id: request.order_id,
            created_at: request.created_at,
            lines: request
                .items
                .iter()
                .zip(&prices)
                .map(|((sku, q), (_, p))| (*sku, *q, p.cents))
                .collect(),
            design: request.design,
        },
        currency: prices[0].1.currency.clone(),
        prices,
    };
    priced.order.fits()?;
    Ok(Ok(priced))
}

/// Places an order [`price_order`] priced, as [`place`] writes it, with in the same transaction
/// a check per product that its price is still the one read: a price changed in between cancels
/// the write ([`PlaceOutcome::PriceChanged`]: price it again). Under `idempotency`, the record
/// keeps the answer the caller made of this order, which a retry under the key gets.
pub async fn place_priced(
    table: &Table,
    priced: &PricedOrder,
    idempotency: Option<&IdempotencyKey>,
) -> Result<PlaceOutcome, StoreError> {
    let checked = Checked {
        prices: &priced.prices,
        currency: Some(&priced.currency),
    };
    place(table, &priced.order, idempotency, &checked).await
}

/// The products' prices an order was priced at (checked in its transaction), and its currency.
#[derive(Default)]
pub(crate) struct Checked<'a> {
    pub(crate) prices: &'a [(k::Sku, products::Price)],
    pub(crate) currency: Option<&'a String>,
}

/// Places an order (the API's [`place_priced`], the fixtures' `place_order`): the customer
/// is read (strongly consistent) for its account rep, which the order records, then one transaction
/// writes:
/// 1. a check that the customer exists and still has that rep (else it is read again);
/// 2. the idempotency record, if a key was given, must not exist yet;
/// 3. the summary in the customer's collection, the header and the lines in the order's own.
///
/// A cancellation caused only by conflicting concurrent transactions is retried with backoff;
/// a used idempotency key is answered with the first attempt's response.
///
/// The lines' prices are taken as given: the seed loaders and tests write orders so. The API
/// prices orders from the catalogue ([`price_order`], [`place_priced`]).
pub(crate) async fn place(
    table: &Table,
    order: &NewOrder,
    idempotency: Option<&IdempotencyKey>,
    checked: &Checked<'_>,
) -> Result<PlaceOutcome, StoreError> {
    order.fits()?;
    for _ in 0..REP_ATTEMPTS {
        let Some(customer) = table
            .get::<Customer>(&k::customer(&order.customer), Read::Strong)
            .await?
        else {
            return Ok(PlaceOutcome::CustomerNotFound);
        };
        match place_with_rep(table, order, customer.account_rep_id, idempotency, checked).await? {
            Some(outcome) => return Ok(outcome),
            None => continue,
        }
    }
    Err(StoreError::Throttled(
        "the customer's account rep kept changing while the order was placed".into(),
    ))
}

/// One try of [`place_order`] with the rep read; `None` when the customer's rep changed (or the
/// customer went) since it was read.
async fn place_with_rep(
    table: &Table,
    order: &NewOrder,
    rep: Option<Id>,
    idempotency: Option<&IdempotencyKey>,
    checked: &Checked<'_>,
) -> Result<Option<PlaceOutcome>, StoreError> {
    let mut tx = table.transaction();
    if let Some(idem) = idempotency {
        // The client's key names the operation; the order id, this call of it (a client's retry
        // after a lost answer is a new call, answered from the idempotency record instead). The
        // table too: DynamoDB scopes a token to the account and Region, not the table, so the
        // same order placed in two tables (two stacks, two test tables) within its 10 minutes
        // would be refused as a mismatch.
        tx.idempotent_on(&[
            "C3",
            table.name(),
            order.customer.as_str(),
            idem.key.as_str(),
            &order.order_id.to_string(),
        ]);
    }
    let same_rep = match &rep {
        Some(rep) => Condition::Equals(Customer::ACCOUNT_REP_ID, s(rep.as_str())),
        None => Condition::AttributeAbsent(Customer::ACCOUNT_REP_ID),
    };
    let customer = tx.check(
        &k::customer(&order.customer),
        Condition::Exists.and(same_rep),
    )?;
    let key_used = idempotency
        .map(|idem| {
            let record = Idempotency {
                customer_id: order.customer.clone(),
                idempotency_key: idem.key.clone(),
                order_id: order.order_id,
                request_hash: idem.request_hash.clone(),
                response: idem.response.clone(),
                expires_at: idem.expires_at,
            };
            // A record past its expiry counts as absent: TTL deletes lazily (often days late),
            // so the condition, not the deletion, decides. Two racing requests still make one
            // order: the first replaces the expired record, the second finds the new one.
            let expired = Condition::AtMost(Idempotency::EXPIRES_AT, n(now_seconds()));
            tx.put(&record, Some(Condition::Absent.or(expired)))
        })
        .transpose()?;
    let currency = checked.currency.cloned();
    let summary = Order {
        currency: currency.clone(),
        ..order.order(rep.clone())
    };
    // Headers and summaries without GSI1's status keys in the multi-attribute design, lines
    // without theirs where O8 reads its own index: no reader reads those copies there.
    let keys = order.design.status_keys;
    tx.put_item(
        model::to_item_with_gsi1(&OrderSummary(summary), keys.writes_gsi1())?,
        Some(Condition::Absent),
    )?;
    let OrderHeader(header) = order.header(rep);
    let header = OrderHeader(Order { currency, ..header });
    tx.put_item(
        model::to_item_with_gsi1(&header, keys.writes_gsi1())?,
        Some(Condition::Absent),
    )?;
    for line in order.lines() {
        tx.put_item(
            model::to_item_with_gsi1(&line, order.design.index_design.writes_gsi1())?,
            Some(Condition::Absent),
        )?;
    }
    let prices = checked
        .prices
        .iter()
        .map(|(sku, price)| Ok((*sku, tx.check(&k::product(*sku), price.unchanged())?)))
        .collect::<Result<Vec<_>, StoreError>>()?;

    match tx.send().await {
        Ok(()) => Ok(Some(PlaceOutcome::Placed)),
        Err(e) if customer.failed(&e) => Ok(None),
        Err(e) if let Some((sku, _)) = prices.iter().find(|(_, part)| part.failed(&e)) => {
            Ok(Some(PlaceOutcome::PriceChanged(*sku)))
        }
        Err(e) if key_used.is_some_and(|part| part.failed(&e)) => {
            let idem = idempotency.expect("a part for it exists");
            let record: Idempotency = table
                .get(&k::idempotency(&order.customer, &idem.key), Read::Strong)
                .await?
                .ok_or_else(|| StoreError::Corrupt("idempotency record vanished".into()))?;
            Ok(Some(PlaceOutcome::Replayed {
                order_id: record.order_id,
                same_request: record.request_hash == idem.request_hash,
                response: record.response,
            }))
        }
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------------
// C6: append a tracking event

/// The most tracking events an order takes: C5 reads them all with the order, so its read stays
/// small (an order collection of at most 1 + 48 lines + 50 events).
pub const MAX_ORDER_EVENTS: i64 = 50;

/// The largest order line there can be (the highest SKU, its keys): pages of a product's lines
/// are read within the read budget at this size (or an inventory's, the larger).
pub const LARGEST_ORDER_LINE_BYTES: u32 = 1024;

/// What appending a tracking event did.
#[derive(Debug, Clone, PartialEq)]
pub enum EventAdded {
    Added,
    /// No such order; nothing written.
    NoOrder,
    /// The order has [`MAX_ORDER_EVENTS`] events already; nothing written.
    Full,
    /// The key was used before (nothing written): the event it added, and whether it asked the
    /// same.
    Replayed {
        event: TrackingEvent,
        same_request: bool,
    },
}

/// Appends a tracking event to an existing order, counted on its header (`EventCount`) in the
/// same transaction, on condition that the order has fewer than [`MAX_ORDER_EVENTS`]. `named`
/// by an `Idempotency-Key` ([`crate::replay`]), the header is marked with the key and the
/// event's id in the same write, on condition that the mark is not there yet: a retry is
/// refused by it and answered with the event the first added. An order's marks are at most
/// its [`MAX_ORDER_EVENTS`], about 60 bytes each.
pub async fn append_tracking_event(
    table: &Table,
    event: &TrackingEvent,
    named: Option<&crate::replay::Named>,
) -> Result<EventAdded, StoreError> {
    let header = k::order_header(event.order_id);
    let mut tx = table.transaction();
    let room = Condition::AttributeAbsent(Order::EVENT_COUNT).or(Condition::AtMost(
        Order::EVENT_COUNT,
        n(MAX_ORDER_EVENTS - 1),
    ));
    let mut count = Update::new().add(Order::EVENT_COUNT, 1);
    let mut condition = Condition::Exists.and(room);
    if let Some(named) = named {
        let remembered = format!("{} {}", named.request_hash, event.event_id);
        count = count.set_named(named.mark(), s(remembered));
        condition = condition.and(Condition::NamedAbsent(named.mark()));
    }
    let order = tx.update(&header, &count, Some(condition))?;
    tx.put(event, Some(Condition::Absent))?;
    match tx.send().await {
        Ok(()) => Ok(EventAdded::Added),
        Err(e) if order.failed(&e) => {
            let Some(item) = table.get_item(&header, Read::Strong, None).await? else {
                return Ok(EventAdded::NoOrder);
            };
            let remembered = named.and_then(|named| {
                let mark = item.get(&named.mark())?.as_s().ok()?;
                let (hash, event) = mark.split_once(' ')?;
                Some((
                    hash == named.request_hash,
                    keys::SortableId::parse(event).ok()?,
                ))
            });
            let Some((same_request, first)) = remembered else {
                return Ok(EventAdded::Full);
            };
            let event = table
                .get(&k::tracking_event(event.order_id, first), Read::Strong)
                .await?
                .ok_or_else(|| StoreError::Corrupt(format!("the event {first} a key names")))?;
            Ok(EventAdded::Replayed {
                event,
                same_request,
            })
        }
        Err(e) => Err(e),
    }
}
