//! Commerce's fixtures: the customers, orders, tracking events, products and inventories every
//! test starts from, written through this crate's own writes ([`crate::data`]) as the functions
//! write them (so a fixture can never hold an item the code would not), and the writes only
//! seeds, tools and tests make. Not behind a feature: one build serves the functions, the tools
//! and the tests, and a Lambda binary's link drops what it never calls.

use keys::{Id, SortableId, Timestamp, commerce::Sku};
use model::commerce::{CartLine, Inventory, Order, TrackingEvent};
use store::Table;

use store::StoreError;

use crate::data::{self as commerce, IdempotencyKey, NewOrder, PlaceOutcome, StatusKeys, products};

/// The three order dates of Good's data-modeling post: 2020-11-25, 2020-12-01, 2020-12-06
/// (midnight UTC).
pub const ORDER_DATES_MS: [u64; 3] = [1_606_262_400_000, 1_606_780_800_000, 1_607_212_800_000];

pub fn id(s: &str) -> Id {
    Id::parse("id", s).expect("a valid test id")
}

pub fn sku(n: u64) -> Sku {
    Sku::new(n).expect("a valid test SKU")
}

pub fn at(ms: u64) -> Timestamp {
    Timestamp::from_ms(ms).expect("a test instant before 9999")
}

/// A customer named after its id (`<id>@example.com`).
pub async fn customer(table: &Table, customer: &str) -> Id {
    let c = id(customer);
    commerce::put_customer(
        table,
        table,
        &c,
        &format!("Customer {customer}"),
        &format!("{customer}@example.com"),
        commerce::RepChange::Keep,
        at(1_604_188_800_000),
    )
    .await
    .expect("put customer");
    c
}

/// A customer (as [`customer`]) looked after by the account rep `rep`, an existing employee.
pub async fn customer_of_rep(table: &Table, customer: &str, rep: &str) -> Id {
    let c = id(customer);
    let put = commerce::put_customer(
        table,
        table,
        &c,
        &format!("Customer {customer}"),
        &format!("{customer}@example.com"),
        commerce::RepChange::Assign(id(rep)),
        at(1_604_188_800_000),
    )
    .await
    .expect("put customer");
    assert!(
        matches!(put, commerce::CustomerPut::Stored(..)),
        "the rep {rep} exists"
    );
    c
}

/// An order of `customer` placed at `ms`, with (sku, quantity, unit price) lines.
pub async fn order(table: &Table, customer: &str, ms: u64, lines: &[(u64, u32, i64)]) -> Order {
    order_in(table, StatusKeys::default(), customer, ms, lines).await
}

/// [`order`] as the writers of key design `design` place it.
pub async fn order_in(
    table: &Table,
    design: StatusKeys,
    customer: &str,
    ms: u64,
    lines: &[(u64, u32, i64)],
) -> Order {
    let new = NewOrder {
        customer: id(customer),
        order_id: SortableId::at_ms(ms),
        created_at: at(ms),
        lines: lines.iter().map(|(s, q, p)| (sku(*s), *q, *p)).collect(),
        design: crate::data::OrderDesign {
            status_keys: design,
            ..Default::default()
        },
    };
    let outcome = place_order(table, &new, None).await.expect("place order");
    assert_eq!(outcome, PlaceOutcome::Placed, "the customer exists");
    // Read back: the order records its customer's rep at the time.
    table
        .get::<model::commerce::OrderHeader>(
            &keys::commerce::order_header(new.order_id),
            store::Read::Strong,
        )
        .await
        .expect("read the order")
        .expect("the order exists")
        .0
}

/// `statuses` added to `order` as its tracking events (written), the first a second after the
/// order was placed and each a second after the one before.
pub async fn tracking_events(
    table: &Table,
    order: &Order,
    statuses: &[keys::commerce::OrderStatus],
) {
    let placed = order.order_id.timestamp_ms();
    for (second, status) in (1..).zip(statuses) {
        let event_id = SortableId::at_ms(placed + 1000 * second);
        let event = model::commerce::TrackingEvent {
            order_id: order.order_id,
            event_id,
            status: *status,
            note: None,
            at: at(event_id.timestamp_ms()),
        };
        let added = add_tracking_event(table, &event).await;
        assert!(added.expect("a tracking event"), "the order exists");
    }
}

/// Good's data-modeling post: customer `customer` and an order on each of the post's three dates
/// (one line each).
pub async fn customer_with_seed_orders(table: &Table, customer: &str) -> Vec<Order> {
    self::customer(table, customer).await;
    let mut orders = Vec::new();
    for (i, ms) in ORDER_DATES_MS.into_iter().enumerate() {
        orders.push(order(table, customer, ms, &[(i as u64 + 1, 1, 100)]).await);
    }
    orders
}

/// A product named after its SKU, without a price (written).
pub async fn product(table: &Table, n: u64) -> Sku {
    put_product(table, n, None).await
}

/// A product named after its SKU, priced at `cents` USD (written).
pub async fn priced_product(table: &Table, n: u64, cents: i64) -> Sku {
    let price = products::Price {
        cents,
        currency: "USD".into(),
    };
    put_product(table, n, Some(&price)).await
}

async fn put_product(table: &Table, n: u64, price: Option<&products::Price>) -> Sku {
    products::put_product(
        table,
        sku(n),
        &format!("Product {n}"),
        None,
        price,
        at(1_790_000_000_000),
    )
    .await
    .expect("a product");
    sku(n)
}

/// `quantity` of product `n` in `warehouse` (written; needs [`org`] and [`product`]).
pub async fn inventory(table: &Table, n: u64, warehouse: &str, quantity: u32) {
    let stored = put_inventory(
        table,
        &model::commerce::Inventory {
            sku: sku(n),
            warehouse_id: id(warehouse),
            quantity,
            updated_at: at(1_790_000_000_000),
            version: 0,
        },
    )
    .await
    .expect("an inventory");
    assert!(
        matches!(stored, products::InventoryPut::Stored(_)),
        "product {n} and warehouse {warehouse} exist"
    );
}

// ---------------------------------------------------------------------------------------------
// The seed loader's and tests' writes: no function makes them

/// Places an order as [`commerce::place`] does, with the lines' prices taken as given: the seed
/// loaders and tests write orders so. The API prices orders from the catalogue
/// ([`commerce::price_order`], [`commerce::place_priced`]).
pub async fn place_order(
    table: &Table,
    order: &NewOrder,
    idempotency: Option<&IdempotencyKey>,
) -> Result<PlaceOutcome, StoreError> {
    commerce::place(table, order, idempotency, &commerce::Checked::default()).await
}

/// [`place_order`], recording the order's currency (the seed loaders' orders, priced as their
/// products are).
pub async fn place_order_in(
    table: &Table,
    order: &NewOrder,
    currency: &str,
) -> Result<PlaceOutcome, StoreError> {
    let currency = currency.to_owned();
    let checked = commerce::Checked {
        prices: &[],
        currency: Some(&currency),
    };
    commerce::place(table, order, None, &checked).await
}

/// Appends a tracking event to an existing order; `false` when the order does not exist.
pub async fn add_tracking_event(table: &Table, event: &TrackingEvent) -> Result<bool, StoreError> {
    match commerce::append_tracking_event(table, event, None).await? {
        commerce::EventAdded::Added => Ok(true),
        commerce::EventAdded::NoOrder => Ok(false),
        commerce::EventAdded::Full | commerce::EventAdded::Replayed { .. } => {
            Err(StoreError::Corrupt(format!(
                "order {} has {} events already",
                event.order_id,
                commerce::MAX_ORDER_EVENTS
            )))
        }
    }
}

/// Sets one line of a cart whatever it was ([`commerce::set_cart_line`] without a version): the
/// seed loader's and tests' write. A full cart is an error here.
pub async fn put_cart_line(table: &Table, line: &CartLine) -> Result<(), StoreError> {
    match commerce::set_cart_line(table, line, None).await? {
        commerce::CartLineSet::Stored(_) => Ok(()),
        other => Err(StoreError::Corrupt(format!("cart line not set: {other:?}"))),
    }
}

/// Sets a product's stock in a warehouse, whatever it was (the seed loaders' and tests' write):
/// [`products::set_inventory`] without an expected version.
pub async fn put_inventory(
    table: &Table,
    inventory: &Inventory,
) -> Result<products::InventoryPut, StoreError> {
    Ok(
        products::set_inventory(table, table, Default::default(), inventory, None)
            .await?
            .0,
    )
}
