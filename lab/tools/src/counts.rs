//! `make reconcile`'s check of the two caps' counters, and their correction.
//!
//! A cart's record (`CART#<cartId>` / `A`) counts its lines (`LineCount`, at most 100) and an
//! order's header counts its tracking events (`EventCount`, at most 50), each in the same
//! transaction as the line or event written, so a cap holds under concurrent writers. This check
//! proves the counters true: it counts each cart's lines and each order's events as the scan goes
//! and compares. A cart whose lines were written before the counter existed has lines and no
//! record: that is drift too (stored [`ABSENT`]), and the correction writes its record.
//!
//! A value is named `cart <cartId> LineCount` or `order <orderId> header EventCount`. What is held
//! while the table is read is one count and one stored value per cart and per order, never the
//! items. A correction adds the difference, conditioned on the counter being as read (absent, for
//! a cart without its record), so a line or event written since makes it write nothing.

use std::collections::HashMap;

use commerce::data::line_count_change;
use keys::{Id, SortableId, commerce as k};
use model::{
    Entity, Item,
    commerce::{Cart, CartLine, Order, OrderHeader, TrackingEvent},
    n,
};
use store::{Condition, StoreError, Table, Update};

use crate::reconcile::values::Values;

/// How a counter that is not there (a cart without its record) is shown.
pub const ABSENT: &str = "(absent)";

/// How the counter of events whose order has no header is shown: nothing to correct.
pub const NO_HEADER: &str = "(no order header)";

/// One counter as read: what the scan counted and what the counter holds.
#[derive(Default)]
struct Count {
    counted: i64,
    /// The counter's value as text; `None`: its record is not there.
    stored: Option<String>,
}

/// What a read of the table learns about the counters, folded in item by item.
#[derive(Default)]
pub struct Counts {
    carts: HashMap<String, Count>,
    orders: HashMap<String, Count>,
}

fn text<'a>(item: &'a Item, attr: &str) -> Option<&'a str> {
    item.get(attr)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// The counter's value as text: its number, [`ABSENT`] when the record lacks it.
fn counter(item: &Item, attr: &str) -> String {
    match item.get(attr) {
        None => ABSENT.to_owned(),
        Some(v) => v.as_n().map_or_else(|_| format!("{v:?}"), Clone::clone),
    }
}

fn cart_name(cart: &str) -> String {
    format!("cart {cart} {}", Cart::LINE_COUNT)
}

fn order_name(order: &str) -> String {
    format!("order {order} header {}", Order::EVENT_COUNT)
}

impl Counts {
    /// Takes in one item of the table.
    pub fn read(&mut self, item: &Item) {
        let (map, id, counted, stored) = match model::type_of(item) {
            Some(CartLine::TYPE) => (&mut self.carts, text(item, CartLine::CART_ID), 1, None),
            Some(Cart::TYPE) => (
                &mut self.carts,
                text(item, Cart::CART_ID),
                0,
                Some(counter(item, Cart::LINE_COUNT)),
            ),
            Some(TrackingEvent::TYPE) => (
                &mut self.orders,
                text(item, TrackingEvent::ORDER_ID),
                1,
                None,
            ),
            Some(OrderHeader::TYPE) => (
                &mut self.orders,
                text(item, Order::ORDER_ID),
                0,
                Some(counter(item, Order::EVENT_COUNT)),
            ),
            _ => return,
        };
        let count = map.entry(id.unwrap_or_default().to_owned()).or_default();
        count.counted += counted;
        if stored.is_some() {
            count.stored = stored;
        }
    }

    /// Expected and stored values of every counter, once every item is read. A counter absent
    /// from its record counts 0 (the caps read it so): only a count above 0 makes it drift.
    pub fn finish(self) -> (Values, Values) {
        let mut expected = Values::new();
        let mut stored = Values::new();
        let all = [
            (self.carts, cart_name as fn(&str) -> String, ABSENT),
            (self.orders, order_name, NO_HEADER),
        ];
        for (counts, name, no_record) in all {
            for (id, count) in counts {
                let have = count.stored.unwrap_or_else(|| no_record.to_owned());
                if count.counted == 0 && have == ABSENT {
                    continue;
                }
                expected.insert(name(&id), count.counted.to_string());
                stored.insert(name(&id), have);
            }
        }
        (expected, stored)
    }
}

/// Whether `name` is a value this check names.
pub fn owns(name: &str) -> bool {
    let words: Vec<&str> = name.split(' ').collect();
    matches!(
        words[..],
        ["cart", _, Cart::LINE_COUNT] | ["order", _, "header", Order::EVENT_COUNT]
    )
}

/// Writes one correction: the counter moved from `have`, as read, to `want`; `false` when it
/// changed since (nothing written).
pub async fn correct(
    table: &Table,
    name: &str,
    want: &str,
    have: &str,
) -> Result<bool, StoreError> {
    let bad = |what: &str| StoreError::Corrupt(format!("{name}: {what}"));
    let want: i64 = want.parse().map_err(|_| bad("the count is not a number"))?;
    let attr = if name.starts_with("cart ") {
        Cart::LINE_COUNT
    } else {
        Order::EVENT_COUNT
    };
    let (from, as_read) = if have == ABSENT {
        (0, Condition::AttributeAbsent(attr))
    } else {
        let v: i64 = have
            .parse()
            .map_err(|_| bad("the counter holds no number: rewrite it by hand"))?;
        (v, Condition::Equals(attr, n(v)))
    };
    let written = match name.split(' ').collect::<Vec<_>>()[..] {
        ["cart", cart, Cart::LINE_COUNT] => {
            let cart = Id::parse("cartId", cart).map_err(|_| bad("no cart id"))?;
            // Written as the carts' own writes write it, its record made if it is not there.
            let update = line_count_change(&cart, want - from);
            table.update(&k::cart(&cart), &update, Some(as_read)).await
        }
        ["order", order, "header", Order::EVENT_COUNT] => {
            if have == NO_HEADER {
                return Err(bad("its order has no header: remove the events by hand"));
            }
            let order = SortableId::parse(order).map_err(|_| bad("no order id"))?;
            let update = Update::new().add(Order::EVENT_COUNT, want - from);
            let key = k::order_header(order);
            table
                .update(&key, &update, Some(Condition::Exists.and(as_read)))
                .await
        }
        _ => return Err(bad("not a counter this check keeps")),
    };
    match written {
        Ok(_) => Ok(true),
        Err(StoreError::ConditionFailed) => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::reconcile::{Scan, compare};
    use commerce::fixtures::{add_tracking_event, put_cart_line};
    use commerce::fixtures::{at, customer, id, order};
    use keys::commerce::{EventId, OrderStatus};
    use model::s;

    /// The counters' drift `make reconcile` reports.
    async fn reported(table: &Table) -> Vec<(String, String, String)> {
        let report = crate::reconcile::run(table).await.unwrap();
        report.drift.into_iter().filter(|d| owns(&d.0)).collect()
    }

    fn line(cart: &str, product: &str) -> CartLine {
        CartLine {
            cart_id: id(cart),
            product_id: id(product),
            quantity: 1,
            updated_at: at(1_577_836_800_000),
            version: 1,
        }
    }

    async fn event(table: &Table, order: SortableId, ms: u64) {
        let event = TrackingEvent {
            order_id: order,
            event_id: EventId::at_ms(ms),
            status: OrderStatus::Shipped,
            note: None,
            at: at(ms),
        };
        assert!(add_tracking_event(table, &event).await.unwrap());
    }

    #[tokio::test]
    async fn the_seeds_write_every_counter_true() {
        let table = devkit::table().await;
        crate::seed::load(&table).await.unwrap();
        let mut counts = Counts::default();
        for item in devkit::all_items(&table).await {
            counts.read(&item);
        }
        let (expected, stored) = counts.finish();
        assert!(
            expected.keys().any(|n| n.starts_with("cart ")),
            "{expected:?}"
        );
        assert!(
            expected.keys().any(|n| n.starts_with("order ")),
            "{expected:?}"
        );
        assert_eq!(compare(&expected, &stored).drift, []);
    }

    #[tokio::test]
    async fn a_drifted_counter_and_a_cart_without_its_record_are_reported_and_repaired() {
        let table = devkit::table().await;
        // True: a cart of two lines, one of one, an order of two events, one of none.
        for (cart, product) in [("c1", "coffee"), ("c1", "tea"), ("c3", "veggies")] {
            put_cart_line(&table, &line(cart, product)).await.unwrap();
        }
        customer(&table, "ann").await;
        let counted = order(&table, "ann", 1_577_836_800_000, &[(1, 1, 100)]).await;
        order(&table, "ann", 1_577_836_900_000, &[(1, 1, 100)]).await;
        event(&table, counted.order_id, 1_577_836_800_001).await;
        event(&table, counted.order_id, 1_577_836_800_002).await;
        assert_eq!(reported(&table).await, [], "the writes keep the counters");

        // Drift: c1 counts 5, c2's line was written before carts had a record, the order
        // counts 7 events.
        let five = Update::new().set(Cart::LINE_COUNT, n(5));
        table
            .update(&k::cart(&id("c1")), &five, None)
            .await
            .unwrap();
        table.put(&line("c2", "coffee"), None).await.unwrap();
        let seven = Update::new().set(Order::EVENT_COUNT, n(7));
        let header = k::order_header(counted.order_id);
        table.update(&header, &seven, None).await.unwrap();
        let row = |n: String, want: &str, have: &str| (n, want.to_owned(), have.to_owned());
        let drift = vec![
            row(cart_name("c1"), "2", "5"),
            row(cart_name("c2"), "1", ABSENT),
            row(order_name(&counted.order_id.to_string()), "2", "7"),
        ];
        assert_eq!(reported(&table).await, drift);

        // A correction is conditioned on the counter as read: a stale one writes nothing.
        assert!(!correct(&table, &drift[0].0, "2", "4").await.unwrap());
        assert!(!correct(&table, &drift[1].0, "1", "0").await.unwrap());

        let (report, repaired) = crate::reconcile::repair(
            &table,
            &Scan::default(),
            &crate::reconcile::lag::Watch::local(),
            Duration::ZERO,
        )
        .await
        .unwrap();
        assert!(repaired.failed.is_empty(), "{repaired}");
        let ours: Vec<_> = report.drift.into_iter().filter(|d| owns(&d.0)).collect();
        assert_eq!(ours, drift);
        assert_eq!(reported(&table).await, [], "a second run finds none");

        // c2's record is the one the cart's writes keep: a removal counts it out.
        let record = table
            .get::<Cart>(&k::cart(&id("c2")), store::Read::Strong)
            .await
            .unwrap()
            .expect("the cart's record is written");
        assert_eq!(record.line_count, 1);
        commerce::data::delete_cart_line(&table, &id("c2"), &id("coffee"))
            .await
            .unwrap();
        let items = devkit::all_items(&table).await;
        let c2 = items
            .iter()
            .find(|i| model::type_of(i) == Some(Cart::TYPE) && i[Cart::CART_ID] == s("c2"))
            .unwrap();
        assert_eq!(c2[Cart::LINE_COUNT], n(0));
        assert_eq!(reported(&table).await, []);
    }
}
