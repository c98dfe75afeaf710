//! How commerce's records are shown to clients (camelCase JSON): customers, orders, carts,
//! products and inventories, reps' sales. The wire format is this context's contract, kept apart
//! from how its items are stored; the generic shapes (a derived value, its drift note, a sharded
//! counter) are `api::views`'.

use model::commerce::{CartLine, Customer, Order, OrderLine, TrackingEvent};
use serde_json::{Value, json};

use api::views::{derived, with_drift};

pub fn customer(c: &Customer) -> Value {
    let mut drift = Vec::new();
    let view = json!({
        "customerId": c.customer_id,
        "name": c.name,
        "email": c.email,
        "createdAt": c.created_at,
        "updatedAt": c.updated_at,
        "orderCount": derived(&c.order_count, "orderCount", &mut drift),
        "lifetimeValue": derived(&c.lifetime_value, "lifetimeValue", &mut drift),
        "accountRepId": c.account_rep_id,
    });
    with_drift(view, drift)
}

pub fn order_summary(o: &Order) -> Value {
    json!({
        "orderId": o.order_id,
        "customerId": o.customer_id,
        "status": o.status,
        "createdAt": o.created_at,
        "currency": o.currency,
        "total": o.total,
        "itemCount": o.item_count,
        "accountRepId": o.account_rep_id,
    })
}

/// A rep's line of a sales-period ranking (O14): its order total (cents) and order count,
/// both derived by the stream pipeline (`null` and named when they drifted).
pub fn rep_sales(r: &model::commerce::RepSales) -> Value {
    let mut drift = Vec::new();
    let view = json!({
        "repId": r.rep_id,
        "total": derived(&r.total, "total", &mut drift),
        "orderCount": derived(&r.order_count, "orderCount", &mut drift),
    });
    with_drift(view, drift)
}

pub fn order_line(l: &OrderLine) -> Value {
    json!({ "sku": l.sku, "quantity": l.quantity, "unitPrice": l.unit_price })
}

pub fn tracking_event(e: &TrackingEvent) -> Value {
    json!({ "eventId": e.event_id, "status": e.status, "note": e.note, "at": e.at })
}

pub fn cart_line(l: &CartLine) -> Value {
    json!({
        "productId": l.product_id,
        "quantity": l.quantity,
        "updatedAt": l.updated_at,
        "version": l.version,
    })
}

/// A product (O13) with its total inventory over every warehouse, derived by the stream
/// pipeline (shown as the customer's counters are: `null` and named when it drifted).
pub fn product(p: &model::commerce::Product) -> Value {
    let mut drift = Vec::new();
    let view = json!({
        "sku": p.sku,
        "name": p.name,
        "description": p.description,
        "price": p.price,
        "currency": p.currency,
        "createdAt": p.created_at,
        "updatedAt": p.updated_at,
        "totalInventory": derived(&p.total_inventory, "totalInventory", &mut drift),
    });
    with_drift(view, drift)
}

/// A product's stock in one warehouse (O12).
pub fn inventory(i: &model::commerce::Inventory) -> Value {
    json!({
        "sku": i.sku,
        "warehouseId": i.warehouse_id,
        "quantity": i.quantity,
        "updatedAt": i.updated_at,
        "version": i.version,
    })
}
