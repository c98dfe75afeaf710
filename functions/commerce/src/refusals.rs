//! Commerce's refusals that several functions share: each function's `Refused` names the ones it
//! answers (`api::refusals!`), so the code and its meaning are written once.

use api::Refusal;

pub const CUSTOMER_NOT_FOUND: Refusal = Refusal::new(
    404,
    "customer_not_found",
    "no customer has that id, or the caller may not see it",
);
pub const CART_NOT_FOUND: Refusal =
    Refusal::new(404, "cart_not_found", "the cart is not the caller's");
pub const ORDER_NOT_FOUND: Refusal = Refusal::new(
    404,
    "order_not_found",
    "no order has that id, or the caller may not see it",
);
pub const PRODUCT_NOT_FOUND: Refusal =
    Refusal::new(404, "product_not_found", "no product has that SKU");
pub const INVENTORY_NOT_FOUND: Refusal = Refusal::new(
    404,
    "inventory_not_found",
    "the warehouse holds no inventory of that product",
);
/// A write that named a version no longer the item's (optimistic locking).
pub const VERSION_MISMATCH: Refusal = Refusal::new(
    409,
    "version_mismatch",
    "the item was written since the version given was read; nothing was written",
);
