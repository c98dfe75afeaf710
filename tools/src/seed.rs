//! The seeds' own example rows, so the local stack answers at once:
//! - seed 000: customer 123 and its orders of 2020-11-25, 2020-12-01 and 2020-12-06 (order ids are
//!   the first ULIDs of those dates, so they are the same on every machine), plus a tracking event;
//! - seed 004: Pete's cart (coffee, veggies and chocolates).
//!
//! Loading twice changes nothing: every write is an upsert or refuses to overwrite.

use keys::{Date, Id, SortableId, commerce::EventId, iso_timestamp};
use store::{
    StoreError, Table,
    commerce::{self, CartLine, NewOrder, PlaceOutcome, TrackingEvent},
};

pub const CUSTOMER: &str = "123";
pub const ORDER_DATES: [&str; 3] = ["2020-11-25", "2020-12-01", "2020-12-06"];
pub const CART: &str = "petes-cart";
pub const CART_LINES: [(&str, u32); 3] = [("coffee", 2), ("veggies", 1), ("chocolates", 5)];

fn id(s: &str) -> Id {
    Id::parse("seed id", s).expect("seed ids are valid")
}

/// The order id of a seed order date.
pub fn order_id(date: &str) -> SortableId {
    let ms = Date::parse_iso(date)
        .expect("seed dates are valid")
        .start_ms();
    SortableId::floor(ms as u64)
}

fn already_there(e: &StoreError) -> bool {
    matches!(e, StoreError::TransactionCanceled(r) if r.iter().any(|r| r == "ConditionalCheckFailed"))
}

/// Loads the seed rows; returns how many items were new.
pub async fn load(table: &Table) -> Result<usize, StoreError> {
    let mut written = 0;
    let customer = id(CUSTOMER);
    let (_, created) = commerce::put_customer(
        table,
        &customer,
        "Customer 123",
        "customer123@example.com",
        "2020-11-01T00:00:00.000Z",
    )
    .await?;
    written += usize::from(created);

    for (i, date) in ORDER_DATES.iter().enumerate() {
        let order_id = order_id(date);
        let order = NewOrder {
            customer: customer.clone(),
            order_id,
            created_at: iso_timestamp(order_id.timestamp_ms()).unwrap_or_default(),
            lines: vec![(1001 + i as u64, 1 + i as u32, 1250), (42, 1, 499)],
        };
        match commerce::place_order(table, &order, None).await {
            Ok(PlaceOutcome::Placed) => written += 4,
            Ok(other) => {
                return Err(StoreError::Corrupt(format!(
                    "seeding order {date}: {other:?}"
                )));
            }
            Err(e) if already_there(&e) => {}
            Err(e) => return Err(e),
        }
    }

    let last = order_id(ORDER_DATES[2]);
    let event: EventId = SortableId::floor(last.timestamp_ms() + 3_600_000);
    let record = TrackingEvent {
        order_id: last.to_string(),
        event_id: event.to_string(),
        status: "PROCESSING".into(),
        note: Some("Payment received".into()),
        at: iso_timestamp(event.timestamp_ms()).unwrap_or_default(),
    };
    match commerce::add_tracking_event(table, last, event, &record).await {
        Ok(_) => written += 1,
        Err(e) if already_there(&e) => {}
        Err(e) => return Err(e),
    }

    let cart = id(CART);
    for (product, quantity) in CART_LINES {
        let line = CartLine {
            cart_id: CART.into(),
            product_id: product.into(),
            quantity,
            updated_at: "2022-12-15T00:00:00.000Z".into(),
        };
        commerce::put_cart_line(table, &cart, &id(product), &line).await?;
    }
    Ok(written)
}
