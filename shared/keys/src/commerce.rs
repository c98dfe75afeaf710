//! Commerce keys: customers and their orders (Good's data-modeling post), orders with line items
//! and tracking events and shopping carts (Naylor's post), order idempotency, and units sold per
//! product.
//!
//! Each key shape is declared once, below (`key_shapes!`: one line makes the builder and the
//! registry's kind); `docs/keys.md` shows them all as tables, generated from these declarations.
//!
//! Customers and order summaries are in GSI1 only when the customer has an account rep (a
//! sparse index). A status change rewrites every `<STATUS>#<orderId>` key of the order (the
//! stream's status projection), so each status list holds exactly the orders in that status.
//!
//! Order summaries sort before the customer's `A` record because `#` < `A`: reading the
//! collection backwards yields the customer first, then its newest orders (Good's data-modeling
//! post). Order ids are ULIDs, so their string order is creation order and a date range is a key
//! range.

use std::{borrow::Cow, fmt, str::FromStr};

use crate::multi::EntityType;
use crate::{
    Base, Composite, Date, Gsi1, Gsi2, Id, Index, IndexCondition, KeyCondition, KeyError,
    PrimaryKey, Quarter, Segment, Shard, SortCondition, SortableId, Timestamp,
};
use orders_by_status::{self as ix, CustomerOrdersByStatus, RepOrdersByStatus};

/// Static tags of commerce keys (the registry declares where each one stands).
pub mod tag {
    pub const CUSTOMER: &str = "CUSTOMER";
    pub const ORDER: &str = "ORDER";
    pub const ITEM: &str = "ITEM";
    pub const EVENT: &str = "EVENT";
    pub const CART: &str = "CART";
    pub const PRODUCT: &str = "PRODUCT";
    pub const IDEMPOTENCY: &str = "IDEMPOTENCY";
    pub const SALES: &str = "SALES";
    pub const ORDERS: &str = "ORDERS";
    pub const ORDER_ITEM: &str = "ORDERITEM";
    pub const WAREHOUSE: &str = crate::hr::tag::WAREHOUSE;
    pub const REP: &str = "REP";
    pub const SALES_PERIOD: &str = "SALESPERIOD";
    pub const RANKING: &str = "RANKING";
    /// Seed 000's appointments: an appointment's collection, and the two schedules that list
    /// them (their own GSI1 partitions: `CUSTOMER#` and `EMPLOYEE#` there are O9's and H2's).
    pub const APPOINTMENT: &str = "APPT";
    pub const CUSTOMER_APPOINTMENTS: &str = "CUSTOMERAPPTS";
    pub const EMPLOYEE_APPOINTMENTS: &str = "EMPLOYEEAPPTS";
    pub const EMPLOYEE: &str = crate::hr::tag::EMPLOYEE;
    /// The sort key of an entity's own record in its collection (the "A record" of Good's
    /// data-modeling post).
    pub const A_RECORD: &str = "A";
    /// The order summaries of Good's data-modeling post start with the delimiter (`#ORDER#`), so
    /// they sort before `A`.
    pub const LEADING: &str = "";
}

/// `Type` attribute values (Good's data-modeling post: every item has one).
pub mod types {
    pub const CUSTOMER: &str = "Customer";
    pub const ORDER_SUMMARY: &str = "Order";
    pub const ORDER_HEADER: &str = "OrderHeader";
    pub const ORDER_LINE: &str = "OrderItem";
    pub const TRACKING_EVENT: &str = "TrackingEvent";
    pub const CART: &str = "Cart";
    pub const CART_LINE: &str = "CartLine";
    pub const IDEMPOTENCY: &str = "Idempotency";
    pub const PRODUCT_SALES: &str = "ProductSales";
    pub const PRODUCT: &str = "Product";
    pub const INVENTORY: &str = "Inventory";
    pub const REP_SALES: &str = "RepSales";
    pub const APPOINTMENT: &str = "Appointment";
    pub const APPOINTMENT_EMPLOYEE: &str = "AppointmentEmployee";
}

/// A numeric SKU, 1 to [`Sku::MAX`]: 12 digits in a key (Naylor's post: a numeric SKU stored
/// as a string sort key, so lines share the order's collection with its tracking events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sku(u64);

impl Sku {
    pub const WIDTH: usize = 12;
    pub const MAX: u64 = 999_999_999_999;

    pub fn new(value: u64) -> Result<Sku, KeyError> {
        if value == 0 || value > Sku::MAX {
            return Err(KeyError::InvalidSku(value.to_string()));
        }
        Ok(Sku(value))
    }

    /// The decimal form a client writes: no sign, no leading zeros.
    pub fn parse(s: &str) -> Result<Sku, KeyError> {
        let invalid = || KeyError::InvalidSku(s.chars().take(20).collect());
        if s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid());
        }
        s.parse::<u64>()
            .ok()
            .and_then(|v| Sku::new(v).ok())
            .ok_or_else(invalid)
    }

    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Sku {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Segment for Sku {
    const SEG: crate::shape::Seg = crate::shape::Seg::Sku;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Owned(crate::pad(self.0, Sku::WIDTH).expect("at most 12 digits"))
    }
}

impl serde::Serialize for Sku {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Sku {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Sku::new(u64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// The life of an order. `OPEN` when placed; the others arrive as tracking events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
            .ok_or_else(|| KeyError::NotOneOf {
                value: s.to_owned(),
                allowed: OrderStatus::ALL.map(OrderStatus::as_str).join(", "),
            })
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Segment for OrderStatus {
    const SEG: crate::shape::Seg = crate::shape::Seg::Status;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_str())
    }
}

crate::serde_as_string!(OrderStatus, OrderStatus::from_str);

pub type OrderId = SortableId;
pub type EventId = SortableId;

crate::shape::key_shapes! {
    context: "commerce";
    /// The customer's own record.
    pub fn customer(customer: &Id) -> Base<CUSTOMER> { CUSTOMER # {customer} / A_RECORD }
    /// An order's summary in its customer's collection, before the customer's record (`#` < `A`).
    pub fn order_summary(customer: &Id, order: OrderId) -> Base<ORDER_SUMMARY> {
        CUSTOMER # {customer} / # ORDER # {order}
    }
    /// The order's own record.
    pub fn order_header(order: OrderId) -> Base<ORDER_HEADER> { ORDER # {order} / A_RECORD }
    /// A purchased item (its SKU in 12 digits).
    pub fn order_line(order: OrderId, sku: Sku) -> Base<ORDER_LINE> {
        ORDER # {order} / ITEM # {sku}
    }
    /// A tracking event.
    pub fn tracking_event(order: OrderId, event: EventId) -> Base<TRACKING_EVENT> {
        ORDER # {order} / EVENT # {event}
    }
    /// A cart's own record, its line count (the cap's counter). Outside C7's
    /// `begins_with(SK, "PRODUCT#")`, so reading the lines never returns it.
    pub fn cart(cart: &Id) -> Base<CART> { CART # {cart} / A_RECORD }
    /// One product's line in a cart (Naylor's post).
    pub fn cart_line(cart: &Id, product: &Id) -> Base<CART_LINE> {
        CART # {cart} / PRODUCT # {product}
    }
    /// The record of an order placed under an `Idempotency-Key`: its own partition, so it never
    /// shows up in the customer's collection, and expiring by TTL.
    pub fn idempotency(customer: &Id, key: &Id) -> Base<IDEMPOTENCY> {
        IDEMPOTENCY # {customer} # {key} / A_RECORD
    }
    /// One write shard of a product's units sold. Shards are separate partition keys, so a hot
    /// product's writes spread over partitions; a read sums them all. The shard is the writing
    /// stream consumer's (`store::aggregate::Lane::counter_shard`).
    pub fn product_sales(sku: Sku, shard: Shard) -> Base<PRODUCT_SALES> {
        SALES # {sku} # {shard} / A_RECORD
    }
    /// A product's own record. It carries the total inventory (O13), kept by the stream pipeline.
    pub fn product(sku: Sku) -> Base<PRODUCT> { PRODUCT # {sku} / A_RECORD }
    /// A product's stock in one warehouse (O12).
    pub fn inventory(sku: Sku, warehouse: &Id) -> Base<INVENTORY> {
        PRODUCT # {sku} / WAREHOUSE # {warehouse}
    }
    /// A rep's order total in a sales period (O14).
    pub fn rep_sales(period: Quarter, rep: &Id) -> Base<REP_SALES> {
        SALES_PERIOD # {period} / REP # {rep}
    }
    /// Seed 000's appointment, remodelled as it suggests (one customer, many employees): its own
    /// record, which never changes key.
    pub fn appointment(appointment: SortableId) -> Base<APPOINTMENT> {
        APPOINTMENT # {appointment} / A_RECORD
    }
    /// One employee of an appointment: an edge in the appointment's collection (`A` sorts
    /// before `EMPLOYEE#`: the record first, then its employees).
    pub fn appointment_employee(appointment: SortableId, employee: &Id) -> Base<APPOINTMENT_EMPLOYEE> {
        APPOINTMENT # {appointment} / EMPLOYEE # {employee}
    }
    /// GSI1 key of an appointment: its customer's schedule, by start time.
    pub fn customer_appointment_index(
        customer: &Id, start: Timestamp, appointment: SortableId,
    ) -> Gsi1<APPOINTMENT> {
        CUSTOMER_APPOINTMENTS # {customer} / {start} # {appointment}
    }
    /// GSI1 key of an appointment's employee edge: the employee's schedule, by start time.
    pub fn employee_appointment_index(
        employee: &Id, start: Timestamp, appointment: SortableId,
    ) -> Gsi1<APPOINTMENT_EMPLOYEE> {
        EMPLOYEE_APPOINTMENTS # {employee} / {start} # {appointment}
    }

    // Index keys (the order entry of AWS's relational example: GSI1 overloaded, GSI2
    // write-sharded).

    /// GSI1 key of an order line: a product's partition in GSI1 gathers its order lines and its
    /// warehouse inventories (O8).
    pub fn order_line_product_index(order: OrderId, sku: Sku) -> Gsi1<ORDER_LINE> {
        PRODUCT # {sku} / ORDER_ITEM # {order}
    }
    /// GSI1 key of an inventory, beside the product's order lines (`ORDERITEM#` < `WAREHOUSE#`:
    /// read backwards, inventories come first).
    pub fn inventory_product_index(sku: Sku, warehouse: &Id) -> Gsi1<INVENTORY> {
        PRODUCT # {sku} / WAREHOUSE # {warehouse}
    }
    /// GSI1 key of an order header (C4 by status).
    pub fn customer_order_status_index(
        customer: &Id, order: OrderId, status: OrderStatus,
    ) -> Gsi1<ORDER_HEADER> {
        CUSTOMER # {customer} / {status} # {order}
    }
    /// GSI1 key of a customer with an account rep (O9).
    pub fn rep_customer_index(rep: &Id, customer: &Id) -> Gsi1<CUSTOMER> {
        REP # {rep} / CUSTOMER # {customer}
    }
    /// GSI1 key of an order summary placed under an account rep (O10).
    pub fn rep_order_index(rep: &Id, order: OrderId, status: OrderStatus) -> Gsi1<ORDER_SUMMARY> {
        REP # {rep} / {status} # {order}
    }
    /// GSI1 key of a rep's sales (O14: read backwards, highest total first): the total in 19
    /// digits. Rewritten whenever the total changes; equal totals order by rep id.
    pub fn rep_ranking_index(
        period: Quarter, total_cents: u64, rep: &Id,
    ) -> Result<Gsi1<REP_SALES>> {
        RANKING # {period} / {RankedTotal::new(total_cents)?} # {rep}
    }
    /// GSI2 key of an order header placed on `shard` (O5).
    pub fn order_status_index(
        shard: Shard, order: OrderId, status: OrderStatus,
    ) -> Gsi2<ORDER_HEADER> {
        ORDERS # {shard} / {status} # {order}
    }
}

fn customer_pk(customer: &Id) -> String {
    Composite::new().lit(tag::CUSTOMER).seg(customer).build()
}

fn order_pk(order: OrderId) -> String {
    Composite::new().lit(tag::ORDER).seg(&order).build()
}

/// `#ORDER#`: the start of every order summary's sort key.
fn order_summary_prefix() -> Composite {
    Composite::new().lit(tag::LEADING).lit(tag::ORDER)
}

/// C1: the customer's record and its order summaries, nothing else: `SK BETWEEN #ORDER# AND A`,
/// read backwards from the `A` record (Good's data-modeling post).
pub fn customer_and_orders(customer: &Id) -> KeyCondition<Base> {
    KeyCondition::new(
        customer_pk(customer),
        SortCondition::Between(
            order_summary_prefix().build_delimited(),
            tag::A_RECORD.to_owned(),
        ),
    )
}

fn date_ms(d: i128) -> Result<u64, KeyError> {
    u64::try_from(d).map_err(|_| KeyError::InvalidDate(format!("{d} ms")))
}

/// The order ids of the dates `from..=to` (UTC): the smallest id of `from`'s first millisecond
/// and the largest of `to`'s last. Order ids are ULIDs, so a date range is an id range.
pub fn order_id_range(from: Date, to: Date) -> Result<(OrderId, OrderId), KeyError> {
    Ok((
        SortableId::floor(date_ms(from.start_ms())?),
        SortableId::ceiling(date_ms(to.end_ms())?),
    ))
}

/// C4: the customer's order summaries created on the dates `from..=to` (UTC).
pub fn orders_in_range(
    customer: &Id,
    from: Date,
    to: Date,
) -> Result<KeyCondition<Base>, KeyError> {
    let (lo, hi) = order_id_range(from, to)?;
    Ok(KeyCondition::new(
        customer_pk(customer),
        SortCondition::Between(
            order_summary_prefix().seg(&lo).build(),
            order_summary_prefix().seg(&hi).build(),
        ),
    ))
}

/// An appointment and its employees: its collection, the record first.
pub fn appointment_and_employees(appointment: SortableId) -> KeyCondition<Base> {
    let (pk, _) = self::appointment(appointment).into_parts();
    KeyCondition::new(pk, SortCondition::All)
}

/// A customer's appointments starting from `from` to `to`, both included, by start time.
pub fn customer_appointments(customer: &Id, from: Timestamp, to: Timestamp) -> KeyCondition<Gsi1> {
    let pk = Composite::new()
        .lit(tag::CUSTOMER_APPOINTMENTS)
        .seg(customer)
        .build();
    schedule_between(pk, from, to)
}

/// An employee's appointments starting from `from` to `to`, both included, by start time.
pub fn employee_appointments(employee: &Id, from: Timestamp, to: Timestamp) -> KeyCondition<Gsi1> {
    let pk = Composite::new()
        .lit(tag::EMPLOYEE_APPOINTMENTS)
        .seg(employee)
        .build();
    schedule_between(pk, from, to)
}

/// `<start>#<appointment>` from `from` to `to`: from `<from>#` to `<to>$`, `$` being the
/// character after the delimiter, so every id at `to` is inside and the next instant is not
/// (fixed-width timestamps differ before their end).
fn schedule_between(pk: String, from: Timestamp, to: Timestamp) -> KeyCondition<Gsi1> {
    let mut hi = Composite::new().seg(&to).build();
    hi.push(char::from(crate::DELIMITER as u8 + 1));
    KeyCondition::new(
        pk,
        SortCondition::Between(Composite::new().seg(&from).build_delimited(), hi),
    )
}

/// C5: the whole order collection: header, lines and tracking events (Naylor's post).
pub fn order_collection(order: OrderId) -> KeyCondition<Base> {
    KeyCondition::new(order_pk(order), SortCondition::All)
}

/// An order's lines alone (`begins_with(SK, "ITEM#")`): what a cancellation takes out of the
/// products' sales (`commerce-stream`).
pub fn order_lines(order: OrderId) -> KeyCondition<Base> {
    KeyCondition::new(
        order_pk(order),
        SortCondition::BeginsWith(Composite::new().lit(tag::ITEM).build_delimited()),
    )
}

/// Shards of the GSI2 order-status partition unless configured otherwise (the template parameter
/// `OrderStatusShards`, the functions' `ORDER_STATUS_SHARDS`). The formula of AWS's relational
/// example gives 13 for its own figures (3M orders, 20% OPEN, 250-byte order entities: see
/// [`crate::shard_count`]); padded to 15 as it advises. Orders placed before their header recorded
/// its shard were placed on 15.
pub const DEFAULT_ORDER_STATUS_SHARDS: u32 = 15;

/// The GSI2 shard of an order among `count`: a hash of its id, so a replayed placement lands on
/// the same shard. The header records it: the count may be raised later, and the order stays.
pub fn order_status_shard(order: OrderId, count: u32) -> Shard {
    Shard::of_weight(order_shard_weight(order), count)
}

/// What an order's status shard and its lines' sales shards are of any count
/// ([`Shard::of_weight`]): the code points of its id ([`crate::code_point_shard`]).
pub fn order_shard_weight(order: OrderId) -> u64 {
    crate::code_point_weight(&order.to_string())
}

fn order_status_pk(shard: Shard) -> String {
    Composite::new().lit(tag::ORDERS).seg(&shard).build()
}

/// `<STATUS>#<orderId>`: an order's sort key in every index that lists orders by status (O5's
/// GSI2, C4's and O10's GSI1). Their partition keys never change; a status change rewrites this.
pub fn status_sort_key(status: OrderStatus, order: OrderId) -> String {
    Composite::new().seg(&status).seg(&order).build()
}

/// The orders in `status` placed on the dates `from..=to`, among `<STATUS>#<orderId>` keys.
fn status_range(status: OrderStatus, from: Date, to: Date) -> Result<SortCondition, KeyError> {
    let (lo, hi) = order_id_range(from, to)?;
    Ok(SortCondition::Between(
        status_sort_key(status, lo),
        status_sort_key(status, hi),
    ))
}

/// O5, one shard: the orders in `status` placed on the dates `from..=to`.
pub fn order_status_range(
    shard: Shard,
    status: OrderStatus,
    from: Date,
    to: Date,
) -> Result<KeyCondition<Gsi2>, KeyError> {
    Ok(KeyCondition::new(
        order_status_pk(shard),
        status_range(status, from, to)?,
    ))
}

/// C4 by status: the customer's orders in `status` placed on the dates `from..=to`.
pub fn customer_orders_in_status(
    customer: &Id,
    status: OrderStatus,
    from: Date,
    to: Date,
) -> Result<KeyCondition<Gsi1>, KeyError> {
    Ok(KeyCondition::new(
        customer_pk(customer),
        status_range(status, from, to)?,
    ))
}

fn rep_pk(rep: &Id) -> String {
    Composite::new().lit(tag::REP).seg(rep).build()
}

/// O9: the customers of an account rep.
pub fn rep_customers(rep: &Id) -> KeyCondition<Gsi1> {
    KeyCondition::new(
        rep_pk(rep),
        SortCondition::BeginsWith(Composite::new().lit(tag::CUSTOMER).build_delimited()),
    )
}

/// O10, one status: the rep's orders in `status` placed on the dates `from..=to` (AWS's
/// relational example: "for each StatusCode").
pub fn rep_orders_in_status(
    rep: &Id,
    status: OrderStatus,
    from: Date,
    to: Date,
) -> Result<KeyCondition<Gsi1>, KeyError> {
    Ok(KeyCondition::new(
        rep_pk(rep),
        status_range(status, from, to)?,
    ))
}

/// The orders' multi-attribute indexes (C4 by status, O10; all indexes: [`crate::indexes`]),
/// beside GSI1's `<STATUS>#<orderId>` keys. Order headers and summaries carry these attributes as
/// they are, so the indexes rewrite no item.
pub mod orders_by_status {
    use super::{OrderStatus, types};
    use crate::{
        Id, Index,
        multi::{EntityType, StrValue},
    };

    use crate::key_attribute as attribute;

    attribute!(
        /// A customer's id (the order's `CustomerId`).
        CustomerId(Id) = "CustomerId", S, |id| id.as_str().to_owned()
    );
    impl StrValue for CustomerId {}

    attribute!(
        /// An account rep's id (the order's `AccountRepId`, present when placed under a rep).
        AccountRepId(Id) = "AccountRepId", S, |id| id.as_str().to_owned()
    );
    impl StrValue for AccountRepId {}

    attribute!(
        /// An order's status.
        Status(OrderStatus) = "Status", S, |s| s.as_str().to_owned()
    );
    impl StrValue for Status {}

    attribute!(
        /// An order's id: a ULID, which sorts by time.
        OrderId(super::OrderId) = "OrderId", S, |id| id.to_string()
    );
    impl StrValue for OrderId {}

    impl EntityType {
        pub const ORDER_HEADER: EntityType = EntityType(types::ORDER_HEADER);
        pub const ORDER_SUMMARY: EntityType = EntityType(types::ORDER_SUMMARY);
    }

    /// C4 by status: a customer's order headers (or summaries) by status, then order id (time).
    pub struct CustomerOrdersByStatus;

    impl Index for CustomerOrdersByStatus {
        const NAME: &'static str = "CustomerOrdersByStatus";
        type Partition = (CustomerId, EntityType);
        type Sort = (Status, OrderId);
    }

    /// O10: a rep's order summaries (or headers) by status, then order id (time).
    pub struct RepOrdersByStatus;

    impl Index for RepOrdersByStatus {
        const NAME: &'static str = "RepOrdersByStatus";
        type Partition = (AccountRepId, EntityType);
        type Sort = (Status, OrderId);
    }
}

/// C4 by status on the multi-attribute index `CustomerOrdersByStatus` (the same orders as
/// [`customer_orders_in_status`] on GSI1): `CustomerId = <id> AND Type = OrderHeader AND
/// Status = <STATUS> AND OrderId BETWEEN <first ULID of from> AND <last ULID of to>`. Nothing is
/// concatenated: a status change is one attribute update, no key is rewritten.
pub fn customer_orders_by_status(
    customer: &Id,
    status: OrderStatus,
    from: Date,
    to: Date,
) -> Result<IndexCondition, KeyError> {
    let (lo, hi) = order_id_range(from, to)?;
    Ok(
        CustomerOrdersByStatus::key((ix::CustomerId(customer.clone()), EntityType::ORDER_HEADER))
            .eq(ix::Status(status))
            .between(ix::OrderId(lo), ix::OrderId(hi)),
    )
}

/// O10, one status, on the multi-attribute index `RepOrdersByStatus` (the same orders as
/// [`rep_orders_in_status`] on GSI1): `AccountRepId = <rep> AND Type = Order AND Status =
/// <STATUS> AND OrderId BETWEEN ...`: the rep's order summaries.
pub fn rep_orders_by_status(
    rep: &Id,
    status: OrderStatus,
    from: Date,
    to: Date,
) -> Result<IndexCondition, KeyError> {
    let (lo, hi) = order_id_range(from, to)?;
    Ok(
        RepOrdersByStatus::key((ix::AccountRepId(rep.clone()), EntityType::ORDER_SUMMARY))
            .eq(ix::Status(status))
            .between(ix::OrderId(lo), ix::OrderId(hi)),
    )
}

fn product_pk(sku: Sku) -> String {
    Composite::new().lit(tag::PRODUCT).seg(&sku).build()
}

/// O12, every warehouse: a product's inventories, by warehouse id, and nothing else of its
/// partition (`begins_with(SK, WAREHOUSE#)`: not the product's own `A` record).
pub fn product_inventories(sku: Sku) -> KeyCondition<Base> {
    KeyCondition::new(
        product_pk(sku),
        SortCondition::BeginsWith(Composite::new().lit(tag::WAREHOUSE).build_delimited()),
    )
}

/// O8: a product's order lines and inventories, ONE GSI1 partition (AWS's relational example,
/// pattern 8).
pub fn product_order_items(sku: Sku) -> KeyCondition<Gsi1> {
    KeyCondition::new(product_pk(sku), SortCondition::All)
}

/// O8 on its own index (`IndexDesign` dedicated, [`crate::indexes::IndexDesign`]): a product's
/// order lines by order (time), in `OrderLinesByProduct`, whose keys are the line's own `Sku` and
/// `OrderId`. Only an order line carries both (a product, an inventory and a cart line have no
/// `OrderId`; an order and its events no `Sku`), so the index holds order lines and nothing
/// else. It projects what O8 shows of a line, its quantity and unit price, and its `Type`, by which
/// every reader decodes an item: the reader needs no second request.
pub mod order_lines_by_product {
    use super::{Sku, orders_by_status::OrderId};
    use crate::{Index, key_attribute as attribute, multi::Projection};

    attribute!(
        /// A product's SKU, as an order line's `Sku` holds it: a number.
        LineSku(Sku) = "Sku", N, |sku| i64::try_from(sku.get()).expect("at most 12 digits")
    );

    /// O8: a product's order lines by order.
    pub struct OrderLinesByProduct;

    impl Index for OrderLinesByProduct {
        const NAME: &'static str = "OrderLinesByProduct";
        type Partition = (LineSku,);
        type Sort = (OrderId,);
        const PROJECTION: Projection = Projection::Include(&["Type", "Quantity", "UnitPrice"]);
    }
}

/// An order line's key in `OrderLinesByProduct`: its own `Sku` and `OrderId` (nothing is added
/// to the item for it).
pub fn order_line_by_product(order: OrderId, sku: Sku) -> crate::IndexKey {
    use order_lines_by_product::{LineSku, OrderLinesByProduct};
    OrderLinesByProduct::item_key((LineSku(sku),), (orders_by_status::OrderId(order),))
}

/// O8 on `OrderLinesByProduct`: every order line of the product (read backwards: newest first).
pub fn order_lines_by_product(sku: Sku) -> crate::IndexCondition {
    use order_lines_by_product::{LineSku, OrderLinesByProduct};
    OrderLinesByProduct::key((LineSku(sku),)).build()
}

/// Digits of an order total in a ranking key: up to 10^19 - 1 cents, so every total a sum can
/// reach (a non-negative `i64`, at most 9,223,372,036,854,775,807) has its key. (15 digits until
/// issue 29: a rep past 10^15 cents made every later order of its quarter poison.)
pub const RANKED_TOTAL_WIDTH: usize = 19;

/// An order total in a ranking key: cents, [`RANKED_TOTAL_WIDTH`] digits (a wider one is an error).
pub struct RankedTotal(String);

impl RankedTotal {
    pub fn new(cents: u64) -> Result<RankedTotal, KeyError> {
        Ok(RankedTotal(crate::pad(cents, RANKED_TOTAL_WIDTH)?))
    }
}

impl Segment for RankedTotal {
    const SEG: crate::shape::Seg = crate::shape::Seg::Total;
    fn segment(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}

fn ranking_pk(period: Quarter) -> String {
    Composite::new().lit(tag::RANKING).seg(&period).build()
}

/// O14: the period's reps by order total (read backwards: highest first; equal totals by rep
/// id, descending).
pub fn rep_ranking(period: Quarter) -> KeyCondition<Gsi1> {
    KeyCondition::new(ranking_pk(period), SortCondition::All)
}

/// Every sales shard of a product, to be read together and summed.
pub fn product_sales_shards(sku: Sku, count: u32) -> Vec<PrimaryKey> {
    Shard::all(count).map(|s| product_sales(sku, s)).collect()
}

fn cart_pk(cart: &Id) -> String {
    Composite::new().lit(tag::CART).seg(cart).build()
}

/// C7: every line of a cart.
pub fn cart_lines(cart: &Id) -> KeyCondition<Base> {
    KeyCondition::new(
        cart_pk(cart),
        SortCondition::BeginsWith(Composite::new().lit(tag::PRODUCT).build_delimited()),
    )
}

/// This context's part of the registry's proof (`registry::tests`): every key its builders make
/// from one set of inputs, with its entity, and every read's key condition with the entities its decoder expects. Beside the declarations, so that a new key
/// shape or key condition and its line here are one change.
#[cfg(test)]
pub(crate) mod proof {
    use super::{types as ct, *};
    use crate::registry::proof::{Inputs, Made, Read, made as k, read as q};

    pub(crate) fn keys(i: &Inputs) -> Vec<Made> {
        let id = SortableId::at_ms(i.ms);
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        let quarter = crate::Quarter::of(date);
        vec![
            k(ct::CUSTOMER, customer(&i.a)),
            k(ct::ORDER_SUMMARY, order_summary(&i.a, id)),
            k(ct::ORDER_HEADER, order_header(id)),
            k(ct::ORDER_LINE, order_line(id, i.sku)),
            k(ct::TRACKING_EVENT, tracking_event(id, id)),
            k(ct::CART, cart(&i.a)),
            k(ct::CART_LINE, cart_line(&i.a, &i.b)),
            k(ct::IDEMPOTENCY, idempotency(&i.a, &i.b)),
            k(ct::PRODUCT_SALES, product_sales(i.sku, i.shard)),
            k(ct::ORDER_LINE, order_line_product_index(id, i.sku)),
            k(ct::ORDER_HEADER, order_status_index(i.shard, id, i.status)),
            k(ct::PRODUCT, product(i.sku)),
            k(ct::INVENTORY, inventory(i.sku, &i.b)),
            k(ct::REP_SALES, rep_sales(quarter, &i.a)),
            k(ct::INVENTORY, inventory_product_index(i.sku, &i.b)),
            k(
                ct::ORDER_HEADER,
                customer_order_status_index(&i.a, id, i.status),
            ),
            k(ct::CUSTOMER, rep_customer_index(&i.b, &i.a)),
            k(ct::ORDER_SUMMARY, rep_order_index(&i.b, id, i.status)),
            k(
                ct::REP_SALES,
                rep_ranking_index(quarter, i.ms, &i.a).unwrap(),
            ),
            k(ct::APPOINTMENT, appointment(id)),
            k(ct::APPOINTMENT_EMPLOYEE, appointment_employee(id, &i.b)),
            k(
                ct::APPOINTMENT,
                customer_appointment_index(&i.a, crate::Timestamp::from_ms(i.ms).unwrap(), id),
            ),
            k(
                ct::APPOINTMENT_EMPLOYEE,
                employee_appointment_index(&i.b, crate::Timestamp::from_ms(i.ms).unwrap(), id),
            ),
        ]
    }

    pub(crate) fn reads(i: &Inputs) -> Vec<Read> {
        let date = crate::Timestamp::from_ms(i.ms).unwrap().date();
        let at = crate::Timestamp::from_ms(i.ms).unwrap();
        vec![
            q(
                "C1",
                customer_and_orders(&i.a),
                &[ct::CUSTOMER, ct::ORDER_SUMMARY],
            ),
            q(
                "C4",
                orders_in_range(&i.a, date, date).unwrap(),
                &[ct::ORDER_SUMMARY],
            ),
            q(
                "C5",
                order_collection(SortableId::at_ms(i.ms)),
                &[ct::ORDER_HEADER, ct::ORDER_LINE, ct::TRACKING_EVENT],
            ),
            q(
                "order lines",
                order_lines(SortableId::at_ms(i.ms)),
                &[ct::ORDER_LINE],
            ),
            q("C7", cart_lines(&i.a), &[ct::CART_LINE]),
            q(
                "O12 every warehouse",
                product_inventories(i.sku),
                &[ct::INVENTORY],
            ),
            q(
                "O5",
                order_status_range(i.shard, i.status, date, date).unwrap(),
                &[ct::ORDER_HEADER],
            ),
            q(
                "C4s",
                customer_orders_in_status(&i.a, i.status, date, date).unwrap(),
                &[ct::ORDER_HEADER],
            ),
            q(
                "O8",
                product_order_items(i.sku),
                &[ct::ORDER_LINE, ct::INVENTORY],
            ),
            q("O9", rep_customers(&i.b), &[ct::CUSTOMER]),
            q(
                "O10",
                rep_orders_in_status(&i.b, i.status, date, date).unwrap(),
                &[ct::ORDER_SUMMARY],
            ),
            q(
                "O14",
                rep_ranking(crate::Quarter::of(date)),
                &[ct::REP_SALES],
            ),
            q(
                "an appointment",
                appointment_and_employees(SortableId::at_ms(i.ms)),
                &[ct::APPOINTMENT, ct::APPOINTMENT_EMPLOYEE],
            ),
            q(
                "a customer's appointments",
                customer_appointments(&i.a, at, at),
                &[ct::APPOINTMENT],
            ),
            q(
                "an employee's appointments",
                employee_appointments(&i.b, at, at),
                &[ct::APPOINTMENT_EMPLOYEE],
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KeyValue;
    use proptest::prelude::*;

    fn id(s: &str) -> Id {
        Id::parse("id", s).unwrap()
    }

    fn sku(n: u64) -> Sku {
        Sku::new(n).unwrap()
    }

    const ORDER: &str = "01ERKJ2D00ZQJ0TJ3A5ABH9Q1E";

    #[test]
    fn seed_000_formats_hold_verbatim() {
        // PK SK Type CustomerId OrderId
        // CUSTOMER#123 A Customer 123
        let c = customer(&id("123"));
        assert_eq!((c.pk(), c.sk()), ("CUSTOMER#123", "A"));
        let order = SortableId::parse(ORDER).unwrap();
        let s = order_summary(&id("123"), order);
        assert_eq!(s.pk(), "CUSTOMER#123");
        assert_eq!(s.sk(), "#ORDER#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E");
        // The A record sorts after every order: reading backwards meets the customer first.
        assert!(s.sk() < c.sk());
        let c1 = customer_and_orders(&id("123"));
        assert_eq!(
            c1.sort(),
            &SortCondition::Between("#ORDER#".into(), "A".into())
        );
        assert!(c1.matches(&c) && c1.matches(&s));
    }

    #[test]
    fn order_collection_keys() {
        let order = SortableId::parse(ORDER).unwrap();
        let h = order_header(order);
        assert_eq!((h.pk(), h.sk()), ("ORDER#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E", "A"));
        assert_eq!(order_line(order, sku(42)).sk(), "ITEM#000000000042");
        assert_eq!(order_line(order, sku(Sku::MAX)).sk(), "ITEM#999999999999");
        let event = SortableId::parse("01ERKJ2D00ZQJ0TJ3A5ABH9Q1F").unwrap();
        assert_eq!(
            tracking_event(order, event).sk(),
            "EVENT#01ERKJ2D00ZQJ0TJ3A5ABH9Q1F"
        );
        let all = order_collection(order);
        assert!(all.matches(&h) && all.matches(&tracking_event(order, event)));
        let lines = order_lines(order);
        assert_eq!(lines.sort(), &SortCondition::BeginsWith("ITEM#".into()));
        assert!(lines.matches(&order_line(order, sku(42))));
        assert!(!lines.matches(&h) && !lines.matches(&tracking_event(order, event)));
    }

    #[test]
    fn skus_are_bounded_and_written_one_way() {
        assert!(Sku::new(0).is_err());
        assert!(Sku::new(Sku::MAX + 1).is_err());
        assert_eq!(Sku::parse("42").unwrap(), sku(42));
        for bad in ["042", "+42", "-1", "", "0", "4 2", "1000000000000", "x"] {
            assert!(Sku::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn index_keys() {
        let order = SortableId::parse(ORDER).unwrap();
        let shard = order_status_shard(order, DEFAULT_ORDER_STATUS_SHARDS);
        assert_eq!(
            shard,
            order_status_shard(order, DEFAULT_ORDER_STATUS_SHARDS)
        );
        let k = order_status_index(shard, order, OrderStatus::Open);
        assert!(k.pk().starts_with("ORDERS#") && k.pk().len() == "ORDERS#00".len());
        assert_eq!(k.sk(), "OPEN#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E");
        let d = SortableId::parse(ORDER).unwrap().timestamp_ms();
        let d = crate::Timestamp::from_ms(d).unwrap().date();
        let range = order_status_range(shard, OrderStatus::Open, d, d).unwrap();
        assert!(range.matches(&k));
        let l = order_line_product_index(order, sku(7));
        assert_eq!(
            (l.pk(), l.sk()),
            (
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
    fn order_entry_keys_of_seed_003() {
        let order = SortableId::parse(ORDER).unwrap();
        let w = id("W1");
        assert_eq!(
            (inventory(sku(7), &w).pk(), inventory(sku(7), &w).sk()),
            ("PRODUCT#000000000007", "WAREHOUSE#W1")
        );
        assert_eq!(product(sku(7)).sk(), "A");
        // O8: one GSI1 partition holds both kinds; backwards, the inventories come first.
        let o8 = product_order_items(sku(7));
        let line = order_line_product_index(order, sku(7));
        let stock = inventory_product_index(sku(7), &w);
        assert!(o8.matches(&line) && o8.matches(&stock));
        assert!(stock.sk() > line.sk());
        assert!(!o8.matches(&inventory_product_index(sku(70), &w)));
        // O9 and O10 share the rep's partition without meeting.
        let rep = id("E100");
        let c = rep_customer_index(&rep, &id("123"));
        assert_eq!((c.pk(), c.sk()), ("REP#E100", "CUSTOMER#123"));
        let o = rep_order_index(&rep, order, OrderStatus::Open);
        assert_eq!(o.sk(), "OPEN#01ERKJ2D00ZQJ0TJ3A5ABH9Q1E");
        let day = crate::Timestamp::from_ms(order.timestamp_ms())
            .unwrap()
            .date();
        let o10 = rep_orders_in_status(&rep, OrderStatus::Open, day, day).unwrap();
        assert!(o10.matches(&o) && !o10.matches(&c));
        assert!(rep_customers(&rep).matches(&c) && !rep_customers(&rep).matches(&o));
        let shipped = rep_orders_in_status(&rep, OrderStatus::Shipped, day, day).unwrap();
        assert!(!shipped.matches(&o), "a status list holds only its status");
        // C4 by status, on the header.
        let h = customer_order_status_index(&id("123"), order, OrderStatus::Open);
        assert_eq!(h.pk(), "CUSTOMER#123");
        assert!(
            customer_orders_in_status(&id("123"), OrderStatus::Open, day, day)
                .unwrap()
                .matches(&h)
        );
    }

    #[test]
    fn rankings_sort_by_total_then_rep() {
        let q = Quarter::parse("2026-Q4").unwrap();
        let s = rep_sales(q, &id("E1"));
        assert_eq!((s.pk(), s.sk()), ("SALESPERIOD#2026-Q4", "REP#E1"));
        let k = |total, rep| rep_ranking_index(q, total, &id(rep)).unwrap();
        assert_eq!(k(12_345, "E1").pk(), "RANKING#2026-Q4");
        assert_eq!(k(12_345, "E1").sk(), "0000000000000012345#E1");
        assert!(
            k(100, "E1").sk() > k(99, "E9").sk(),
            "string order is total order"
        );
        assert!(k(100, "E2").sk() > k(100, "E1").sk(), "ties by rep id");
        let most = i64::MAX as u64;
        assert_eq!(
            k(most, "E1").sk(),
            "9223372036854775807#E1",
            "every i64 total"
        );
        assert!(rep_ranking_index(q, 10u64.pow(19), &id("E1")).is_err());
        assert!(rep_ranking(q).matches(&k(0, "E1")));
        assert!(!rep_ranking(Quarter::parse("2026-Q3").unwrap()).matches(&k(0, "E1")));
    }

    #[test]
    fn sales_shards_are_separate_partitions() {
        let a = product_sales(sku(42), Shard::new(0, 10).unwrap());
        let b = product_sales(sku(42), Shard::new(9, 10).unwrap());
        assert_eq!((a.pk(), a.sk()), ("SALES#000000000042#00", "A"));
        assert_eq!(b.pk(), "SALES#000000000042#09");
        let all = product_sales_shards(sku(42), 10);
        assert_eq!(all.len(), 10);
        assert!(all.contains(&b));
    }

    #[test]
    fn cart_and_idempotency_keys() {
        let l = cart_line(&id("petes-cart"), &id("coffee"));
        assert_eq!((l.pk(), l.sk()), ("CART#petes-cart", "PRODUCT#coffee"));
        assert!(cart_lines(&id("petes-cart")).matches(&l));
        let i = idempotency(&id("123"), &id("retry-1"));
        assert_eq!((i.pk(), i.sk()), ("IDEMPOTENCY#123#retry-1", "A"));
    }

    #[test]
    fn a_date_range_is_a_key_range_of_order_ids() {
        let from = Date::parse_iso("2020-11-25").unwrap();
        let to = Date::parse_iso("2020-12-01").unwrap();
        let range = orders_in_range(&id("1"), from, to).unwrap();
        let at = |iso: &str, ms_into_day: i128| {
            let d = Date::parse_iso(iso).unwrap();
            order_summary(
                &id("1"),
                SortableId::at_ms((d.start_ms() + ms_into_day) as u64),
            )
        };
        for inside in [
            at("2020-11-25", 0),
            at("2020-12-01", 86_399_999),
            at("2020-11-28", 5),
        ] {
            assert!(range.matches(&inside), "{inside}");
        }
        for outside in [at("2020-11-24", 86_399_999), at("2020-12-02", 0)] {
            assert!(!range.matches(&outside), "{outside}");
        }
        assert!(!range.matches(&customer(&id("1"))));
    }

    fn arb_id() -> impl Strategy<Value = Id> {
        "[A-Za-z0-9._-]{1,64}"
            .prop_filter("not . or ..", |s| s != "." && s != "..")
            .prop_map(|s| Id::parse("id", &s).unwrap())
    }

    proptest! {
        #[test]
        fn different_values_never_make_the_same_key(a in arb_id(), b in arb_id(), k1 in arb_id(), k2 in arb_id()) {
            prop_assert_eq!(customer(&a) == customer(&b), a == b);
            prop_assert_eq!(cart_line(&a, &k1) == cart_line(&b, &k2), a == b && k1 == k2);
            prop_assert_eq!(idempotency(&a, &k1) == idempotency(&b, &k2), a == b && k1 == k2);
        }

        /// C4 by status and O10 select the same orders in both key designs: the GSI1 condition
        /// matches an order's concatenated key exactly when the multi-attribute condition
        /// matches its attributes (same customer or rep, status, and an id in the date range).
        #[test]
        fn both_designs_select_the_same_orders(
            (owner, asked, same_owner) in (arb_id(), arb_id(), any::<bool>()),
            (status, wanted) in (0..8usize, prop_oneof![Just(None), (0..8usize).prop_map(Some)]),
            (day, back, days) in (0..56u8, 0..3u8, 0..3u8),
            ms_of_day in prop_oneof![Just(0u64), Just(86_399_999), 0..86_400_000u64],
        ) {
            let date = |d: u8| crate::Date::from_ymd(2026, 1 + d / 28, 1 + d % 28).unwrap();
            let status = OrderStatus::ALL[status];
            let wanted = wanted.map_or(status, |w| OrderStatus::ALL[w]);
            let owner = if same_owner { asked.clone() } else { owner };
            let placed = date(day).start_ms() as u64 + ms_of_day;
            let order = SortableId::at_ms(placed);
            let first = day.saturating_sub(back);
            let (from, to) = (date(first), date(first + days));
            let attributes = |entity: &'static str| {
                let owner = owner.clone();
                move |name: &str| match name {
                    "CustomerId" | "AccountRepId" => Some(KeyValue::S(owner.as_str().into())),
                    "Type" => Some(KeyValue::S(entity.into())),
                    "Status" => Some(KeyValue::S(status.as_str().into())),
                    "OrderId" => Some(KeyValue::S(order.to_string())),
                    _ => None,
                }
            };
            let header = customer_order_status_index(&owner, order, status);
            let c4 = customer_orders_in_status(&asked, wanted, from, to).unwrap().matches(&header);
            let c4_multi = customer_orders_by_status(&asked, wanted, from, to).unwrap();
            prop_assert_eq!(c4, c4_multi.matches(attributes(types::ORDER_HEADER)));
            prop_assert!(!c4_multi.matches(attributes(types::ORDER_SUMMARY)));
            let summary = rep_order_index(&owner, order, status);
            let o10 = rep_orders_in_status(&asked, wanted, from, to).unwrap().matches(&summary);
            let o10_multi = rep_orders_by_status(&asked, wanted, from, to).unwrap();
            prop_assert_eq!(o10, o10_multi.matches(attributes(types::ORDER_SUMMARY)));
            prop_assert!(!o10_multi.matches(attributes(types::ORDER_HEADER)));
        }

        #[test]
        fn line_keys_sort_as_skus(a in 1..=Sku::MAX, b in 1..=Sku::MAX) {
            let o = SortableId::at_ms(0);
            prop_assert_eq!(order_line(o, sku(a)).sk().cmp(order_line(o, sku(b)).sk()), a.cmp(&b));
        }
    }
}
