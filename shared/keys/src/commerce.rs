//! Commerce keys: customers and their orders (seed 000), orders with line items and tracking
//! events (seed 004), shopping carts (seed 004), and order idempotency.
//!
//! | item            | PK                          | SK                 |
//! |-----------------|-----------------------------|--------------------|
//! | customer        | `CUSTOMER#<customerId>`     | `A`                |
//! | order summary   | `CUSTOMER#<customerId>`     | `#ORDER#<orderId>` |
//! | order header    | `ORDER#<orderId>`           | `A`                |
//! | order line      | `ORDER#<orderId>`           | `ITEM#<sku:12>`    |
//! | tracking event  | `ORDER#<orderId>`           | `EVENT#<eventId>`  |
//! | cart line       | `CART#<cartId>`             | `PRODUCT#<productId>` |
//! | idempotency     | `IDEMPOTENCY#<customerId>#<key>` | `A`           |
//!
//! Index keys written now so the cross-customer patterns need no backfill:
//!
//! | item         | index | partition key              | sort key                    | pattern |
//! |--------------|-------|----------------------------|-----------------------------|---------|
//! | order header | GSI2  | `ORDERS#<shard:2>`         | `<STATUS>#<orderId>`        | O5: orders by status and date, all customers, 15 shards read in parallel |
//! | order line   | GSI1  | `PRODUCT#<sku:12>`         | `ORDERITEM#<orderId>`       | O8: order items of a product |
//!
//! Order summaries sort before the customer's `A` record because `#` < `A`: reading the
//! collection backwards yields the customer first, then its newest orders (seed 000). Order ids
//! are ULIDs, so their string order is creation order and a date range is a key range.

use std::{fmt, str::FromStr};

use crate::{
    Date, Id, Key, KeyError, Shard, SortableId, code_point_shard, value::pad, value::unpad,
};

pub const CUSTOMER_PREFIX: &str = "CUSTOMER#";
pub const ORDER_PREFIX: &str = "ORDER#";
pub const CART_PREFIX: &str = "CART#";
pub const IDEMPOTENCY_PREFIX: &str = "IDEMPOTENCY#";

/// The sort key of an entity's own record in its collection (seed 000's "A record").
pub const A_RECORD: &str = "A";
/// Order summaries in a customer's collection: a `begins_with` prefix.
pub const ORDER_SUMMARY_PREFIX: &str = "#ORDER#";
/// Line items in an order's collection.
pub const LINE_PREFIX: &str = "ITEM#";
/// Tracking events in an order's collection.
pub const EVENT_PREFIX: &str = "EVENT#";
/// Lines in a cart's collection.
pub const CART_LINE_PREFIX: &str = "PRODUCT#";

/// Width of a numeric SKU in a sort key: 12 digits.
pub const SKU_WIDTH: usize = 12;
/// The largest SKU that fits.
pub const MAX_SKU: u64 = 999_999_999_999;

/// `Type` attribute values (seed 000: every item has one).
pub mod types {
    pub const CUSTOMER: &str = "Customer";
    pub const ORDER_SUMMARY: &str = "Order";
    pub const ORDER_HEADER: &str = "OrderHeader";
    pub const ORDER_LINE: &str = "OrderItem";
    pub const TRACKING_EVENT: &str = "TrackingEvent";
    pub const CART_LINE: &str = "CartLine";
    pub const IDEMPOTENCY: &str = "Idempotency";
    pub const PRODUCT_SALES: &str = "ProductSales";
}

/// The life of an order. `OPEN` when placed; the others arrive as tracking events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderStatus {
    Open,
    Processing,
    Shipped,
    InTransit,
    OutForDelivery,
    Delivered,
    Cancelled,
    Returned,
}

impl OrderStatus {
    pub const ALL: [OrderStatus; 8] = [
        OrderStatus::Open,
        OrderStatus::Processing,
        OrderStatus::Shipped,
        OrderStatus::InTransit,
        OrderStatus::OutForDelivery,
        OrderStatus::Delivered,
        OrderStatus::Cancelled,
        OrderStatus::Returned,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::Open => "OPEN",
            OrderStatus::Processing => "PROCESSING",
            OrderStatus::Shipped => "SHIPPED",
            OrderStatus::InTransit => "IN_TRANSIT",
            OrderStatus::OutForDelivery => "OUT_FOR_DELIVERY",
            OrderStatus::Delivered => "DELIVERED",
            OrderStatus::Cancelled => "CANCELLED",
            OrderStatus::Returned => "RETURNED",
        }
    }
}

impl FromStr for OrderStatus {
    type Err = KeyError;
    fn from_str(s: &str) -> Result<Self, KeyError> {
        OrderStatus::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| KeyError::Malformed(s.to_owned()))
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

pub type OrderId = SortableId;
pub type EventId = SortableId;

pub fn customer_pk(customer: &Id) -> String {
    format!("{CUSTOMER_PREFIX}{customer}")
}

/// The customer's own record: `CUSTOMER#<id>`, `A`.
pub fn customer(customer: &Id) -> Key {
    Key::new(customer_pk(customer), A_RECORD)
}

/// An order's summary in its customer's collection: `CUSTOMER#<id>`, `#ORDER#<orderId>`.
pub fn order_summary(customer: &Id, order: OrderId) -> Key {
    Key::new(
        customer_pk(customer),
        format!("{ORDER_SUMMARY_PREFIX}{order}"),
    )
}

/// Sort-key bounds (inclusive) of the order summaries created on the dates `from..=to` (UTC).
pub fn order_summary_range(from: Date, to: Date) -> Result<(String, String), KeyError> {
    let ms = |v: i128| u64::try_from(v).map_err(|_| KeyError::InvalidDate(format!("{v}")));
    Ok((
        format!(
            "{ORDER_SUMMARY_PREFIX}{}",
            SortableId::floor(ms(from.start_ms())?)
        ),
        format!(
            "{ORDER_SUMMARY_PREFIX}{}",
            SortableId::ceiling(ms(to.end_ms())?)
        ),
    ))
}

pub fn order_pk(order: OrderId) -> String {
    format!("{ORDER_PREFIX}{order}")
}

/// The order's own record: `ORDER#<orderId>`, `A`.
pub fn order_header(order: OrderId) -> Key {
    Key::new(order_pk(order), A_RECORD)
}

/// A purchased item: `ORDER#<orderId>`, `ITEM#<sku, 12 digits>` (seed 004: a numeric SKU stored
/// as a string sort key so lines share the order's collection with its tracking events).
pub fn order_line(order: OrderId, sku: u64) -> Result<Key, KeyError> {
    Ok(Key::new(
        order_pk(order),
        format!("{LINE_PREFIX}{}", pad(sku, SKU_WIDTH)?),
    ))
}

/// A tracking event: `ORDER#<orderId>`, `EVENT#<eventId>`.
pub fn tracking_event(order: OrderId, event: EventId) -> Key {
    Key::new(order_pk(order), format!("{EVENT_PREFIX}{event}"))
}

/// Shards of the GSI2 order-status partition. Seed 003's formula gives 13 for its example
/// (3M orders, 20% OPEN, 250-byte order entities: see [`crate::shard_count`]); padded to 15 as
/// the seed advises.
pub const ORDER_STATUS_SHARDS: u32 = 15;

/// GSI2 key of an order header: `ORDERS#<shard>`, `<STATUS>#<orderId>`. The shard is a hash of
/// the order id, so the same order always lands on the same shard.
pub fn order_status_index(order: OrderId, status: OrderStatus) -> Key {
    let shard = code_point_shard(&order.to_string(), ORDER_STATUS_SHARDS);
    Key::new(
        format!("ORDERS#{}", shard.key()),
        format!("{status}#{order}"),
    )
}

/// GSI2 partition key of one shard, and sort-key bounds of the orders in `status` placed on the
/// dates `from..=to`.
pub fn order_status_range(
    shard: Shard,
    status: OrderStatus,
    from: Date,
    to: Date,
) -> Result<(String, String, String), KeyError> {
    let ms = |v: i128| u64::try_from(v).map_err(|_| KeyError::InvalidDate(format!("{v}")));
    Ok((
        format!("ORDERS#{}", shard.key()),
        format!("{status}#{}", SortableId::floor(ms(from.start_ms())?)),
        format!("{status}#{}", SortableId::ceiling(ms(to.end_ms())?)),
    ))
}

/// GSI1 key of an order line: `PRODUCT#<sku>`, `ORDERITEM#<orderId>`: a product's partition in
/// GSI1 gathers its order lines (and, later, its warehouse inventories).
pub fn order_line_product_index(order: OrderId, sku: u64) -> Result<Key, KeyError> {
    Ok(Key::new(
        format!("PRODUCT#{}", pad(sku, SKU_WIDTH)?),
        format!("ORDERITEM#{order}"),
    ))
}

/// One write shard of a product's units sold: `SALES#<sku>#<shard>`, `A`. Shards are separate
/// partition keys, so a hot product's writes spread over partitions; a read sums them all.
pub fn product_sales(sku: u64, shard: Shard) -> Result<Key, KeyError> {
    Ok(Key::new(
        format!("SALES#{}#{}", pad(sku, SKU_WIDTH)?, shard.key()),
        A_RECORD,
    ))
}

pub fn cart_pk(cart: &Id) -> String {
    format!("{CART_PREFIX}{cart}")
}

/// One product's line in a cart: `CART#<cartId>`, `PRODUCT#<productId>` (seed 004).
pub fn cart_line(cart: &Id, product: &Id) -> Key {
    Key::new(cart_pk(cart), format!("{CART_LINE_PREFIX}{product}"))
}

/// The record of an order placed under an `Idempotency-Key`: its own partition, so it never
/// shows up in the customer's collection, and expiring by TTL.
pub fn idempotency(customer: &Id, key: &Id) -> Key {
    Key::new(format!("{IDEMPOTENCY_PREFIX}{customer}#{key}"), A_RECORD)
}

/// The order id of an order summary sort key.
pub fn parse_order_summary_sk(sk: &str) -> Result<OrderId, KeyError> {
    sk.strip_prefix(ORDER_SUMMARY_PREFIX)
        .and_then(|id| SortableId::parse(id).ok())
        .ok_or_else(|| KeyError::Malformed(sk.to_owned()))
}

/// The customer id of a customer partition key.
pub fn parse_customer_pk(pk: &str) -> Result<Id, KeyError> {
    pk.strip_prefix(CUSTOMER_PREFIX)
        .and_then(|id| Id::parse("customerId", id).ok())
        .ok_or_else(|| KeyError::Malformed(pk.to_owned()))
}

/// The order id of an order partition key.
pub fn parse_order_pk(pk: &str) -> Result<OrderId, KeyError> {
    pk.strip_prefix(ORDER_PREFIX)
        .and_then(|id| SortableId::parse(id).ok())
        .ok_or_else(|| KeyError::Malformed(pk.to_owned()))
}

/// The SKU of an order line sort key.
pub fn parse_order_line_sk(sk: &str) -> Result<u64, KeyError> {
    sk.strip_prefix(LINE_PREFIX)
        .and_then(|n| unpad(n, SKU_WIDTH))
        .ok_or_else(|| KeyError::Malformed(sk.to_owned()))
}

/// The event id of a tracking event sort key.
pub fn parse_tracking_event_sk(sk: &str) -> Result<EventId, KeyError> {
    sk.strip_prefix(EVENT_PREFIX)
        .and_then(|id| SortableId::parse(id).ok())
        .ok_or_else(|| KeyError::Malformed(sk.to_owned()))
}

/// The product id of a cart line sort key.
pub fn parse_cart_line_sk(sk: &str) -> Result<Id, KeyError> {
    sk.strip_prefix(CART_LINE_PREFIX)
        .and_then(|id| Id::parse("productId", id).ok())
        .ok_or_else(|| KeyError::Malformed(sk.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn id(s: &str) -> Id {
        Id::parse("id", s).unwrap()
    }

    #[test]
    fn seed_000_formats_hold_verbatim() {
        // PK SK Type CustomerId OrderId
        // CUSTOMER#123 A Customer 123
        let c = customer(&id("123"));
        assert_eq!((c.pk.as_str(), c.sk.as_str()), ("CUSTOMER#123", "A"));
        let order = SortableId::parse("01ERKJ2D00ZQJ0TJ3A5ABH9Q1E").unwrap();
        let s = order_summary(&id("123"), order);
        assert_eq!(s.pk, "CUSTOMER#123");
        assert_eq!(s.sk, "#ORDER#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E");
        // The A record sorts after every order: reading backwards meets the customer first.
        assert!(s.sk.as_str() < c.sk.as_str());
        assert!(ORDER_SUMMARY_PREFIX < A_RECORD);
    }

    #[test]
    fn order_collection_keys() {
        let order = SortableId::parse("01ERKJ2D00ZQJ0TJ3A5ABH9Q1E").unwrap();
        assert_eq!(
            order_header(order),
            Key::new("ORDER#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E", "A")
        );
        assert_eq!(order_line(order, 42).unwrap().sk, "ITEM#000000000042");
        assert!(order_line(order, MAX_SKU).is_ok());
        assert!(matches!(
            order_line(order, MAX_SKU + 1),
            Err(KeyError::Overflow { .. })
        ));
        let event = SortableId::parse("01ERKJ2D00ZQJ0TJ3A5ABH9Q1F").unwrap();
        assert_eq!(
            tracking_event(order, event).sk,
            "EVENT#01ERKJ2D00ZQJ0TJ3A5ABH9Q1F"
        );
    }

    #[test]
    fn index_keys() {
        let order = SortableId::parse("01ERKJ2D00ZQJ0TJ3A5ABH9Q1E").unwrap();
        let k = order_status_index(order, OrderStatus::Open);
        assert!(k.pk.starts_with("ORDERS#") && k.pk.len() == "ORDERS#00".len());
        assert_eq!(k.sk, "OPEN#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E");
        let shard = code_point_shard(&order.to_string(), ORDER_STATUS_SHARDS);
        let d = Date::new(
            time::OffsetDateTime::from_unix_timestamp((order.timestamp_ms() / 1000) as i64)
                .unwrap()
                .date(),
        )
        .unwrap();
        let (pk, lo, hi) = order_status_range(shard, OrderStatus::Open, d, d).unwrap();
        assert_eq!(pk, k.pk);
        assert!(lo.as_str() <= k.sk.as_str() && k.sk.as_str() <= hi.as_str());
        assert_eq!(
            order_line_product_index(order, 7).unwrap(),
            Key::new(
                "PRODUCT#000000000007",
                "ORDERITEM#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E"
            )
        );
        for st in OrderStatus::ALL {
            assert_eq!(st.as_str().parse::<OrderStatus>().unwrap(), st);
        }
        assert!("open".parse::<OrderStatus>().is_err());
    }

    #[test]
    fn sales_shards_are_separate_partitions() {
        let a = product_sales(42, Shard::new(0, 10).unwrap()).unwrap();
        let b = product_sales(42, Shard::new(9, 10).unwrap()).unwrap();
        assert_eq!(a, Key::new("SALES#000000000042#00", "A"));
        assert_eq!(b.pk, "SALES#000000000042#09");
    }

    #[test]
    fn cart_and_idempotency_keys() {
        assert_eq!(
            cart_line(&id("petes-cart"), &id("coffee")),
            Key::new("CART#petes-cart", "PRODUCT#coffee")
        );
        assert_eq!(
            idempotency(&id("123"), &id("retry-1")),
            Key::new("IDEMPOTENCY#123#retry-1", "A")
        );
    }

    #[test]
    fn a_date_range_is_a_key_range_of_order_ids() {
        let from = Date::parse_iso("2020-11-25").unwrap();
        let to = Date::parse_iso("2020-12-01").unwrap();
        let (lo, hi) = order_summary_range(from, to).unwrap();
        let at = |iso: &str, ms_into_day: i128| {
            let d = Date::parse_iso(iso).unwrap();
            order_summary(
                &id("1"),
                SortableId::at_ms((d.start_ms() + ms_into_day) as u64),
            )
            .sk
        };
        for inside in [
            at("2020-11-25", 0),
            at("2020-12-01", 86_399_999),
            at("2020-11-28", 5),
        ] {
            assert!(lo <= inside && inside <= hi, "{inside}");
        }
        for outside in [at("2020-11-24", 86_399_999), at("2020-12-02", 0)] {
            assert!(!(lo <= outside && outside <= hi), "{outside}");
        }
    }

    fn arb_id() -> impl Strategy<Value = Id> {
        "[A-Za-z0-9._-]{1,64}".prop_map(|s| Id::parse("id", &s).unwrap())
    }

    proptest! {
        #[test]
        fn keys_round_trip(c in arb_id(), p in arb_id(), ms in 0u64..(1 << 47), sku in 0..=MAX_SKU) {
            let order = SortableId::at_ms(ms);
            prop_assert_eq!(parse_customer_pk(&customer(&c).pk).unwrap(), c.clone());
            prop_assert_eq!(parse_order_summary_sk(&order_summary(&c, order).sk).unwrap(), order);
            prop_assert_eq!(parse_order_pk(&order_header(order).pk).unwrap(), order);
            prop_assert_eq!(parse_order_line_sk(&order_line(order, sku).unwrap().sk).unwrap(), sku);
            prop_assert_eq!(parse_tracking_event_sk(&tracking_event(order, order).sk).unwrap(), order);
            prop_assert_eq!(parse_cart_line_sk(&cart_line(&c, &p).sk).unwrap(), p);
        }

        #[test]
        fn different_values_never_make_the_same_key(a in arb_id(), b in arb_id(), k1 in arb_id(), k2 in arb_id()) {
            prop_assert_eq!(customer(&a) == customer(&b), a == b);
            prop_assert_eq!(cart_line(&a, &k1) == cart_line(&b, &k2), a == b && k1 == k2);
            prop_assert_eq!(idempotency(&a, &k1) == idempotency(&b, &k2), a == b && k1 == k2);
        }

        #[test]
        fn line_keys_sort_as_skus(a in 0..=MAX_SKU, b in 0..=MAX_SKU) {
            let o = SortableId::at_ms(0);
            prop_assert_eq!(order_line(o, a).unwrap().sk.cmp(&order_line(o, b).unwrap().sk), a.cmp(&b));
        }

        #[test]
        fn no_customer_key_falls_under_another_entity_prefix(c in arb_id(), k in arb_id(), ms in 0u64..(1 << 47)) {
            let o = SortableId::at_ms(ms);
            let pks = [customer(&c).pk, order_header(o).pk, cart_line(&c, &k).pk, idempotency(&c, &k).pk];
            let prefixes = [CUSTOMER_PREFIX, ORDER_PREFIX, CART_PREFIX, IDEMPOTENCY_PREFIX];
            for (i, pk) in pks.iter().enumerate() {
                for (j, prefix) in prefixes.iter().enumerate() {
                    prop_assert_eq!(pk.starts_with(prefix), i == j, "{} vs {}", pk, prefix);
                }
            }
        }
    }
}
