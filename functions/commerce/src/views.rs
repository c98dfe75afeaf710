//! How commerce's records are shown to clients (camelCase JSON): customers, orders, carts,
//! products and inventories, reps' sales. The wire format is this context's contract, kept apart
//! from how its items are stored: each view is a type whose JSON Schema is `openapi.yaml`'s
//! (descriptions from these comments). The generic shapes (a derived value, its drift note, a
//! sharded counter) are `api::wire`'.

use api::wire::{DerivedInteger, Drift, derived};
use keys::{
    Id, Timestamp,
    commerce::{OrderId, OrderStatus, Sku},
};
use model::commerce::{
    CartLine as CartLineRecord, Customer as CustomerRecord, Order, OrderLine as OrderLineRecord,
    TrackingEvent as EventRecord,
};
use schemars::JsonSchema;
use serde::Serialize;

/// A customer and what the stream pipeline derives of their orders.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub customer_id: Id,
    pub name: String,
    pub email: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// orders placed, less those since cancelled or returned
    pub order_count: DerivedInteger,
    /// cents, the totals of those orders
    pub lifetime_value: DerivedInteger,
    /// the employee who looks after the customer
    pub account_rep_id: Option<Id>,
    #[serde(rename = "_drift", skip_serializing_if = "Vec::is_empty")]
    #[schemars(skip)]
    drift: Drift,
}

/// An order as its customer's list, a rep's list and its own page show it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderSummary {
    pub order_id: OrderId,
    pub customer_id: Id,
    pub status: OrderStatus,
    pub created_at: Timestamp,
    /// ISO 4217, the products' when placed; null for orders placed before prices came from the
    /// catalogue
    pub currency: Option<String>,
    /// cents
    pub total: i64,
    #[schemars(range(min = 1))]
    pub item_count: u64,
    /// the customer's account rep when the order was placed
    pub account_rep_id: Option<Id>,
}

/// A rep's line of a sales-period ranking (O14): its order total (cents) and order count,
/// both derived by the stream pipeline (`null` and named when they drifted).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
pub struct RepSales {
    pub rep_id: Id,
    /// cents, the totals of the period's orders placed under the rep, less those since
    /// cancelled or returned
    pub total: DerivedInteger,
    /// those orders
    pub order_count: DerivedInteger,
    #[serde(rename = "_drift", skip_serializing_if = "Vec::is_empty")]
    #[schemars(skip)]
    drift: Drift,
}

/// A line of an order: a product, how many, at what price.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    pub sku: Sku,
    #[schemars(range(min = 1, max = model::commerce::OrderLine::MAX_QUANTITY))]
    pub quantity: u32,
    /// cents
    #[schemars(range(min = 0, max = model::commerce::Product::MAX_PRICE))]
    pub unit_price: i64,
}

/// A tracking event of an order.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackingEvent {
    pub event_id: OrderId,
    pub status: OrderStatus,
    pub note: Option<String>,
    pub at: Timestamp,
}

/// A line of a cart.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CartLine {
    pub product_id: Id,
    #[schemars(range(min = 1, max = model::commerce::CartLine::MAX_QUANTITY))]
    pub quantity: u32,
    pub updated_at: Timestamp,
    /// counts the line's writes (0: written before versions); what a PUT may name
    pub version: u64,
}

/// A product (O13) with its total inventory over every warehouse.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub sku: Sku,
    pub name: String,
    pub description: Option<String>,
    /// cents of `currency`; null: not for sale
    #[schemars(range(min = 0, max = model::commerce::Product::MAX_PRICE))]
    pub price: Option<i64>,
    /// ISO 4217
    #[schemars(regex(pattern = "^[A-Z]{3}$"))]
    pub currency: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// the sum of the product's inventories in every warehouse, kept by the stream pipeline (it
    /// follows an inventory write within seconds)
    pub total_inventory: DerivedInteger,
    #[serde(rename = "_drift", skip_serializing_if = "Vec::is_empty")]
    #[schemars(skip)]
    drift: Drift,
}

/// A product's stock in one warehouse (O12).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Inventory {
    pub sku: Sku,
    pub warehouse_id: Id,
    #[schemars(range(min = 0, max = model::commerce::Inventory::MAX_STOCK))]
    pub quantity: u32,
    pub updated_at: Timestamp,
    /// counts the inventory's writes (0: written before versions); what a PUT of an absolute
    /// quantity names
    pub version: u64,
}

pub fn customer(c: &CustomerRecord) -> Customer {
    let mut drift = Vec::new();
    Customer {
        customer_id: c.customer_id.clone(),
        name: c.name.clone(),
        email: c.email.clone(),
        created_at: c.created_at,
        updated_at: c.updated_at,
        order_count: derived(&c.order_count, "orderCount", &mut drift),
        lifetime_value: derived(&c.lifetime_value, "lifetimeValue", &mut drift),
        account_rep_id: c.account_rep_id.clone(),
        drift,
    }
}

pub fn order_summary(o: &Order) -> OrderSummary {
    OrderSummary {
        order_id: o.order_id,
        customer_id: o.customer_id.clone(),
        status: o.status,
        created_at: o.created_at,
        currency: o.currency.clone(),
        total: o.total,
        item_count: o.item_count,
        account_rep_id: o.account_rep_id.clone(),
    }
}

pub fn rep_sales(r: &model::commerce::RepSales) -> RepSales {
    let mut drift = Vec::new();
    RepSales {
        rep_id: r.rep_id.clone(),
        total: derived(&r.total, "total", &mut drift),
        order_count: derived(&r.order_count, "orderCount", &mut drift),
        drift,
    }
}

pub fn order_line(l: &OrderLineRecord) -> OrderLine {
    OrderLine {
        sku: l.sku,
        quantity: l.quantity,
        unit_price: l.unit_price,
    }
}

pub fn tracking_event(e: &EventRecord) -> TrackingEvent {
    TrackingEvent {
        event_id: e.event_id,
        status: e.status,
        note: e.note.clone(),
        at: e.at,
    }
}

pub fn cart_line(l: &CartLineRecord) -> CartLine {
    CartLine {
        product_id: l.product_id.clone(),
        quantity: l.quantity,
        updated_at: l.updated_at,
        version: l.version,
    }
}

pub fn product(p: &model::commerce::Product) -> Product {
    let mut drift = Vec::new();
    Product {
        sku: p.sku,
        name: p.name.clone(),
        description: p.description.clone(),
        price: p.price,
        currency: p.currency.clone(),
        created_at: p.created_at,
        updated_at: p.updated_at,
        total_inventory: derived(&p.total_inventory, "totalInventory", &mut drift),
        drift,
    }
}

pub fn inventory(i: &model::commerce::Inventory) -> Inventory {
    Inventory {
        sku: i.sku,
        warehouse_id: i.warehouse_id.clone(),
        quantity: i.quantity,
        updated_at: i.updated_at,
        version: i.version,
    }
}
