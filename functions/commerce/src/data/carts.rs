//! Shopping carts (C7): a line set, changed or removed, the cart's line count beside it.

use keys::{
    Id,
    commerce::{self as k},
};
use model::{
    Entity,
    commerce::{Cart, CartLine},
    n, s,
};

use store::{Condition, Read, StoreError, Table, Update};

// ---------------------------------------------------------------------------------------------
// C7: shopping cart

/// The most lines a cart holds: a full cart is one query of about 15 KB (2 read units), far within
/// the README's cost and Lambda's 6 MB answer (5,000 lines read 136.5 units and answered 659 KB).
pub const MAX_CART_LINES: i64 = 100;

/// What a cart line write did.
#[derive(Debug, Clone, PartialEq)]
pub enum CartLineSet {
    /// The line as stored.
    Stored(CartLine),
    /// The line is new and the cart holds [`MAX_CART_LINES`] already; nothing written.
    CartFull,
    /// The line's version is not the one the write named: its version now (`None`: no such
    /// line). Nothing written.
    VersionMismatch(Option<u64>),
}

/// How many times a line set without a version is tried: each try after the first follows a
/// removal of the line by another request between its two steps (the add found the line, the
/// change did not), so this many removals would have to interleave with one PUT to exhaust it.
const UNVERSIONED_ATTEMPTS: usize = 32;

/// Sets one line of a cart: one small item per product, so changing a line costs one small write
/// however big the cart (Naylor's post). A new line is added in ONE transaction with the cart's
/// line count, on condition that the count is below [`MAX_CART_LINES`], so concurrent adds
/// cannot pass the cap; an existing line is changed in ONE UpdateItem. With `expected`, only if
/// the line's version is still that one (0: a line not there yet). Without, the line is set
/// whatever it was: a line removed between the two steps is added again (the count follows).
pub async fn set_cart_line(
    table: &Table,
    line: &CartLine,
    expected: Option<u64>,
) -> Result<CartLineSet, StoreError> {
    let attempts = match expected {
        None => UNVERSIONED_ATTEMPTS,
        Some(_) => 1,
    };
    for _ in 0..attempts {
        if let Some(done) = try_set_cart_line(table, line, expected).await? {
            return Ok(done);
        }
    }
    Err(StoreError::Throttled(
        "the cart line kept being removed while it was set".into(),
    ))
}

/// One try of [`set_cart_line`]: add the line if it is not there, else change it; `None` when
/// it was there for the add and gone for the change (removed in between) and no version was
/// named, so it is to be added again.
async fn try_set_cart_line(
    table: &Table,
    line: &CartLine,
    expected: Option<u64>,
) -> Result<Option<CartLineSet>, StoreError> {
    let key = k::cart_line(&line.cart_id, &line.product_id);
    if expected.is_none_or(|v| v == 0) {
        let added = CartLine {
            version: 1,
            ..line.clone()
        };
        let mut tx = table.transaction();
        let put = tx.put(&added, Some(Condition::Absent))?;
        let room = Condition::AttributeAbsent(Cart::LINE_COUNT)
            .or(Condition::AtMost(Cart::LINE_COUNT, n(MAX_CART_LINES - 1)));
        let count = tx.update(
            &k::cart(&line.cart_id),
            &line_count_change(&line.cart_id, 1),
            Some(room),
        )?;
        match tx.send().await {
            Ok(()) => return Ok(Some(CartLineSet::Stored(added))),
            Err(e) if put.failed(&e) => {}
            Err(e) if count.failed(&e) => return Ok(Some(CartLineSet::CartFull)),
            Err(e) => return Err(e),
        }
    }
    let same_version = line_at(expected);
    let update = Update::new()
        .set(CartLine::QUANTITY, n(line.quantity))
        .set(CartLine::UPDATED_AT, s(line.updated_at.to_string()))
        .add(CartLine::VERSION, 1);
    match table.update(&key, &update, Some(same_version)).await {
        Ok(item) => Ok(Some(CartLineSet::Stored(model::from_item(item)?))),
        Err(StoreError::ConditionFailed) if expected.is_none() => Ok(None),
        Err(StoreError::ConditionFailed) => {
            let current: Option<CartLine> = table.get(&key, Read::Strong).await?;
            Ok(Some(CartLineSet::VersionMismatch(
                current.map(|l| l.version),
            )))
        }
        Err(e) => Err(e),
    }
}

/// The cart's line count moved by `by`, its record created if it is not there (with the cart's
/// first line, or by `make reconcile REPAIR=1` for lines written before carts had one).
pub fn line_count_change(cart: &Id, by: i64) -> Update {
    Update::new()
        .set_if_absent(model::attr::TYPE, s(Cart::TYPE))
        .set_if_absent(Cart::CART_ID, s(cart.as_str()))
        .add(Cart::LINE_COUNT, by)
}

/// The line is there and, with `expected`, at that version (0: written before versions).
fn line_at(expected: Option<u64>) -> Condition {
    match expected {
        None => Condition::Exists,
        Some(0) => Condition::Exists.and(
            Condition::AttributeAbsent(CartLine::VERSION)
                .or(Condition::Equals(CartLine::VERSION, n(0))),
        ),
        Some(v) => Condition::Exists.and(Condition::Equals(CartLine::VERSION, n(v))),
    }
}

/// What removing a cart line did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CartLineRemoved {
    Removed,
    /// It was not there; nothing written.
    Absent,
    /// It is at this version, not the one the removal named; nothing written.
    VersionMismatch(u64),
}

/// Removes one line of a cart and counts it out of the cart, in ONE transaction; with
/// `expected`, only if the line is still at that version.
pub async fn remove_cart_line(
    table: &Table,
    cart: &Id,
    product: &Id,
    expected: Option<u64>,
) -> Result<CartLineRemoved, StoreError> {
    let key = k::cart_line(cart, product);
    let mut tx = table.transaction();
    let line = tx.delete(&key, Some(line_at(expected)))?;
    tx.update(&k::cart(cart), &line_count_change(cart, -1), None)?;
    match tx.send().await {
        Ok(()) => Ok(CartLineRemoved::Removed),
        Err(e) if line.failed(&e) => Ok(match table.get::<CartLine>(&key, Read::Strong).await? {
            Some(current) if expected.is_some() => {
                CartLineRemoved::VersionMismatch(current.version)
            }
            _ => CartLineRemoved::Absent,
        }),
        Err(e) => Err(e),
    }
}

/// Removes one line of a cart whatever its version ([`remove_cart_line`]); `false` when it was
/// not there (nothing written).
pub async fn delete_cart_line(table: &Table, cart: &Id, product: &Id) -> Result<bool, StoreError> {
    Ok(remove_cart_line(table, cart, product, None).await? == CartLineRemoved::Removed)
}
