//! Commerce entities: customers and their orders (Good's data-modeling post), orders with line
//! items and tracking events and shopping carts (Naylor's post), order idempotency, and units sold
//! per product. Their keys are in `keys::commerce`.

use keys::{
    Gsi1Key, Gsi2Key, Id, PrimaryKey, Quarter, Shard, Timestamp,
    commerce::{self as k, EventId, OrderId, OrderStatus, Sku, types},
};

use crate::{Entity, record};

record! {
    /// A customer's own record (the `A` record of Good's data-modeling post).
    pub struct Customer {
        customer_id: Id => CUSTOMER_ID = "CustomerId",
        name: String => NAME = "Name",
        email: String => EMAIL = "Email",
        created_at: Timestamp => CREATED_AT = "CreatedAt",
        updated_at: Timestamp => UPDATED_AT = "UpdatedAt",
        /// Derived by the stream pipeline from the customer's orders.
        #[serde(default)]
        order_count: crate::Derived => ORDER_COUNT = "OrderCount",
        /// Derived: sum of order totals, in cents.
        #[serde(default)]
        lifetime_value: crate::Derived => LIFETIME_VALUE = "LifetimeValue",
        /// The employee who looks after the customer (the account rep of AWS's relational example),
        /// if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        account_rep_id: Option<Id> => ACCOUNT_REP_ID = "AccountRepId",
    }
}

impl Customer {
    /// The most characters of its name and of its email (`put-customer` refuses more).
    pub const MAX_NAME_CHARS: usize = 200;
    pub const MAX_EMAIL_CHARS: usize = 254;
}

impl Entity for Customer {
    const TYPE: &'static str = types::CUSTOMER;
    fn key(&self) -> PrimaryKey {
        k::customer(&self.customer_id)
    }
    /// In its rep's GSI1 partition (O9); not in GSI1 without a rep.
    fn gsi1(&self) -> Option<Gsi1Key> {
        self.account_rep_id
            .as_ref()
            .map(|rep| k::rep_customer_index(rep, &self.customer_id))
    }
}

record! {
    /// An order, as its customer's collection ([`OrderSummary`]) and its own collection
    /// ([`OrderHeader`]) both hold it.
    pub struct Order {
        order_id: OrderId => ORDER_ID = "OrderId",
        customer_id: Id => CUSTOMER_ID = "CustomerId",
        status: OrderStatus => STATUS = "Status",
        created_at: Timestamp => CREATED_AT = "CreatedAt",
        /// Sum of quantity × unit price, in cents.
        total: i64 => TOTAL = "Total",
        item_count: u64 => ITEM_COUNT = "ItemCount",
        /// On the header only: how many tracking events the order has (their cap's counter,
        /// written with each event; absent on orders without events).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event_count: Option<u64> => EVENT_COUNT = "EventCount",
        /// The tracking event whose status `status` is (set by the stream pipeline).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_event_id: Option<EventId> => LAST_EVENT_ID = "LastEventId",
        /// The customer's account rep when the order was placed (it stays theirs if the
        /// customer changes rep later).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        account_rep_id: Option<Id> => ACCOUNT_REP_ID = "AccountRepId",
        /// On the header only: its GSI2 shard (O5), chosen when placed among the shards then
        /// configured, so raising the count later leaves placed orders where readers find them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status_shard: Option<Shard> => STATUS_SHARD = "StatusShard",
        /// The currency of `total` and of the lines' prices (ISO 4217), the products' at the
        /// time of the order; absent on orders placed before prices came from the catalogue.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        currency: Option<String> => CURRENCY = "Currency",
    }
}

/// What an order header or summary may hold.
impl Order {
    /// The largest order header or summary there can be: the longest ids, a currency, and on the
    /// header an `Idempotency-Key` mark for each of its 50 tracking events (commerce's
    /// `MAX_ORDER_EVENTS`). Pages of orders are read within the read budget at this size; a test
    /// writes the largest and measures it.
    pub const LARGEST_BYTES: u32 = 4 * 1024;
}

impl Order {
    /// The header's GSI2 shard: as recorded, or, for a header placed before shards were
    /// recorded, where it was placed then (the default count).
    pub fn status_shard(&self) -> Shard {
        self.status_shard
            .unwrap_or_else(|| k::order_status_shard(self.order_id, k::DEFAULT_ORDER_STATUS_SHARDS))
    }

    /// Whether the order is a sale, counted in the sums derived from it (the customer's
    /// `OrderCount` and `LifetimeValue`, the day's `Orders` and `Revenue`, the rep's `OrderCount`
    /// and `Total`, its products' units sold and revenue): from the moment it is placed until a
    /// tracking event cancels or returns it, and again if a later event takes it out of those
    /// states.
    pub fn is_sale(&self) -> bool {
        is_sale(self.status)
    }
}

/// Whether an order in `status` is a sale ([`Order::is_sale`]).
pub fn is_sale(status: OrderStatus) -> bool {
    !matches!(status, OrderStatus::Cancelled | OrderStatus::Returned)
}

/// An order's summary in its customer's collection (Good's data-modeling post: `#ORDER#<id>`
/// under the customer).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct OrderSummary(pub Order);

impl Entity for OrderSummary {
    const TYPE: &'static str = types::ORDER_SUMMARY;
    fn key(&self) -> PrimaryKey {
        k::order_summary(&self.0.customer_id, self.0.order_id)
    }
    /// In its rep's GSI1 partition, by status and date (O10); not in GSI1 without a rep.
    fn gsi1(&self) -> Option<Gsi1Key> {
        let o = &self.0;
        o.account_rep_id
            .as_ref()
            .map(|rep| k::rep_order_index(rep, o.order_id, o.status))
    }
}

/// An order's own record, at the head of its collection (lines, tracking events), in the GSI2
/// status index (O5) and in its customer's GSI1 partition by status (C4 by status).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct OrderHeader(pub Order);

impl Entity for OrderHeader {
    const TYPE: &'static str = types::ORDER_HEADER;
    fn key(&self) -> PrimaryKey {
        k::order_header(self.0.order_id)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        let o = &self.0;
        Some(k::customer_order_status_index(
            &o.customer_id,
            o.order_id,
            o.status,
        ))
    }
    fn gsi2(&self) -> Option<Gsi2Key> {
        let o = &self.0;
        Some(k::order_status_index(
            o.status_shard(),
            o.order_id,
            o.status,
        ))
    }
}

record! {
    /// A purchased item (Naylor's post), in its order's collection and its product's GSI1
    /// partition.
    pub struct OrderLine {
        order_id: OrderId => ORDER_ID = "OrderId",
        sku: Sku => SKU = "Sku",
        quantity: u32 => QUANTITY = "Quantity",
        /// In cents.
        unit_price: i64 => UNIT_PRICE = "UnitPrice",
    }
}

impl OrderLine {
    /// Quantity × unit price, in cents; `None` when it does not fit an `i64`: a line read back
    /// with a corrupt price, which must neither wrap into a plausible total nor stand in as one
    /// (place-order bounds both: at most 10^4 × 10^8).
    pub fn amount(&self) -> Option<i64> {
        i64::from(self.quantity).checked_mul(self.unit_price)
    }
}

impl OrderLine {
    /// The most units of one product in one order line (C3).
    pub const MAX_QUANTITY: u32 = 10_000;
}

impl Entity for OrderLine {
    const TYPE: &'static str = types::ORDER_LINE;
    fn key(&self) -> PrimaryKey {
        k::order_line(self.order_id, self.sku)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::order_line_product_index(self.order_id, self.sku))
    }
}

record! {
    /// A tracking event (Naylor's post), in its order's collection, oldest first.
    pub struct TrackingEvent {
        order_id: OrderId => ORDER_ID = "OrderId",
        event_id: EventId => EVENT_ID = "EventId",
        status: OrderStatus => STATUS = "Status",
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String> => NOTE = "Note",
        at: Timestamp => AT = "At",
    }
}

impl Entity for TrackingEvent {
    const TYPE: &'static str = types::TRACKING_EVENT;
    fn key(&self) -> PrimaryKey {
        k::tracking_event(self.order_id, self.event_id)
    }
}

record! {
    /// One product's line in a cart (Naylor's post: one small item per product).
    pub struct CartLine {
        cart_id: Id => CART_ID = "CartId",
        product_id: Id => PRODUCT_ID = "ProductId",
        quantity: u32 => QUANTITY = "Quantity",
        updated_at: Timestamp => UPDATED_AT = "UpdatedAt",
        /// Counts the line's writes (1 when added; 0: written before versions): a quantity
        /// change may name the version read, and a write in between refuses it.
        #[serde(default)]
        version: u64 => VERSION = "Version",
    }
}

record! {
    /// A cart's own record: how many lines it has, kept in the same transaction as each line
    /// added or removed, so the cap holds under concurrent writers.
    pub struct Cart {
        cart_id: Id => CART_ID = "CartId",
        #[serde(default)]
        line_count: i64 => LINE_COUNT = "LineCount",
    }
}

impl Entity for Cart {
    const TYPE: &'static str = types::CART;
    fn key(&self) -> PrimaryKey {
        k::cart(&self.cart_id)
    }
}

impl CartLine {
    /// The most units of a product in one cart line (`put-cart-line` refuses more).
    pub const MAX_QUANTITY: u32 = 1000;
}

impl Entity for CartLine {
    const TYPE: &'static str = types::CART_LINE;
    fn key(&self) -> PrimaryKey {
        k::cart_line(&self.cart_id, &self.product_id)
    }
}

record! {
    /// What the first attempt of an order placed under an `Idempotency-Key` answered.
    pub struct Idempotency {
        customer_id: Id => CUSTOMER_ID = "CustomerId",
        idempotency_key: Id => IDEMPOTENCY_KEY = "IdempotencyKey",
        order_id: OrderId => ORDER_ID = "OrderId",
        /// A digest of the request body: the same key with another body is refused.
        request_hash: String => REQUEST_HASH = "RequestHash",
        /// The response body to replay on a retry.
        response: String => RESPONSE = "Response",
        /// Epoch seconds: DynamoDB's TTL deletes the record after that.
        expires_at: i64 => EXPIRES_AT = "ExpiresAt",
    }
}

impl Entity for Idempotency {
    const TYPE: &'static str = types::IDEMPOTENCY;
    fn key(&self) -> PrimaryKey {
        k::idempotency(&self.customer_id, &self.idempotency_key)
    }
}

record! {
    /// One write shard of a product's units sold and revenue (derived by the stream pipeline).
    pub struct ProductSales {
        sku: Sku => SKU = "Sku",
        shard: Shard => SHARD = "Shard",
        #[serde(default)]
        units_sold: crate::Derived => UNITS_SOLD = "UnitsSold",
        /// In cents.
        #[serde(default)]
        revenue: crate::Derived => REVENUE = "Revenue",
    }
}

impl Entity for ProductSales {
    const TYPE: &'static str = types::PRODUCT_SALES;
    fn key(&self) -> PrimaryKey {
        k::product_sales(self.sku, self.shard)
    }
}

record! {
    /// A product (the OE-Product of AWS's relational example): its own record carries its total
    /// inventory over all warehouses (O13), derived by the stream pipeline from its inventories.
    pub struct Product {
        sku: Sku => SKU = "Sku",
        name: String => NAME = "Name",
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String> => DESCRIPTION = "Description",
        created_at: Timestamp => CREATED_AT = "CreatedAt",
        updated_at: Timestamp => UPDATED_AT = "UpdatedAt",
        /// Its price in cents of `currency`: what an order line of it costs. A product without
        /// one is not for sale.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        price: Option<i64> => PRICE = "Price",
        /// ISO 4217, three capital letters; set with the price.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        currency: Option<String> => CURRENCY = "Currency",
        /// Derived: the sum of the product's inventories' quantities.
        #[serde(default)]
        total_inventory: crate::Derived => TOTAL_INVENTORY = "TotalInventory",
    }
}

/// The bounds of a product's fields: `put-product` refuses more (a 400 that names the field) and
/// the views' schemas state them in `openapi.yaml`.
impl Product {
    /// The most characters of its name, and of its description.
    pub const MAX_NAME_CHARS: usize = 200;
    pub const MAX_DESCRIPTION_CHARS: usize = 2000;
    /// A price's most, in cents: $1,000,000. With C3's bounds (48 lines of at most 10,000 units)
    /// an order's total stays below 5 × 10^13 cents.
    pub const MAX_PRICE: i64 = 100_000_000;
}

impl Entity for Product {
    const TYPE: &'static str = types::PRODUCT;
    fn key(&self) -> PrimaryKey {
        k::product(self.sku)
    }
}

record! {
    /// A product's stock in one warehouse (O12), in the product's partition and in its GSI1
    /// partition beside its order lines (O8).
    pub struct Inventory {
        sku: Sku => SKU = "Sku",
        warehouse_id: Id => WAREHOUSE_ID = "WarehouseId",
        quantity: u32 => QUANTITY = "Quantity",
        updated_at: Timestamp => UPDATED_AT = "UpdatedAt",
        /// Counts the writes of the item (1 when created; 0: written before versions): a client
        /// that sets an absolute quantity names the version it read, and a write in between
        /// refuses it.
        #[serde(default)]
        version: u64 => VERSION = "Version",
    }
}

impl Inventory {
    /// The most one warehouse may hold of one product (a bound, so a total over many warehouses
    /// stays far within a number DynamoDB and every client can hold exactly).
    pub const MAX_STOCK: u32 = 1_000_000_000;
}

impl Entity for Inventory {
    const TYPE: &'static str = types::INVENTORY;
    fn key(&self) -> PrimaryKey {
        k::inventory(self.sku, &self.warehouse_id)
    }
    fn gsi1(&self) -> Option<Gsi1Key> {
        Some(k::inventory_product_index(self.sku, &self.warehouse_id))
    }
}

record! {
    /// An account rep's orders in one sales period (derived by the stream pipeline from placed
    /// orders). Its GSI1 key (O14's ranking) is written with its total, so it is not an
    /// [`Entity::gsi1`]: see `store::aggregate`.
    pub struct RepSales {
        period: Quarter => PERIOD = "Period",
        rep_id: Id => REP_ID = "RepId",
        /// In cents.
        #[serde(default)]
        total: crate::Derived => TOTAL = "Total",
        #[serde(default)]
        order_count: crate::Derived => ORDER_COUNT = "OrderCount",
    }
}

impl Entity for RepSales {
    const TYPE: &'static str = types::REP_SALES;
    fn key(&self) -> PrimaryKey {
        k::rep_sales(self.period, &self.rep_id)
    }
}
