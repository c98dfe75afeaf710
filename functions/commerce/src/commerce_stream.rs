//! The commerce context's one consumer of the table's stream. DynamoDB Streams serves at most two
//! readers per shard before it throttles them, and the table has two contexts with derived data
//! (commerce, reviews): one consumer each, whatever they derive. This one runs, on each batch:
//! - [`status`]: tracking events → an order's current status (header, GSI2 key, summary);
//! - [`totals`]: orders and lines → customer order count and lifetime value, units sold per
//!   product and daily counts (sharded).
//!
//! Each part decides which records are its own and is idempotent (conditions, the targets'
//! marks), so a batch retried because one part failed changes nothing the other already did. The
//! parts run side by side; the batch's failures are the union of both parts'.

use model::{
    Entity,
    commerce::{Inventory, OrderLine, OrderSummary, TrackingEvent},
};
use store::{Deps, Needs};
use stream_handler::{BatchResponse, Consumer, Event, Source};

pub mod status;
pub mod totals;

/// Its name (binary, template resource, sample event, metrics' `Pattern`), what it needs and its
/// sources: [`totals`]' orders, lines and inventories, and [`status`]' tracking events (a history
/// that only grows: removing one, by TTL, changes no status).
pub const CONSUMER: Consumer = Consumer {
    name: "commerce-stream",
    needs: Needs::SHARDS.with_settings(&[crate::data::ORDER_STATUS_KEYS]),
    sources: &[
        Source::changes(OrderSummary::TYPE),
        Source::changes(OrderLine::TYPE),
        Source::writes(TrackingEvent::TYPE),
        Source::changes(Inventory::TYPE),
    ],
};

pub async fn handle(deps: &Deps, event: Event) -> BatchResponse {
    // The parts write different items (statuses; counters, read from the lines): side by side.
    // Boxed: each part's future is large, and together they are too deep for the compiler.
    let (status, (totals, _)) = futures::join!(
        Box::pin(status::handle(deps, &event)),
        Box::pin(totals::handle_counted(deps, &event))
    );
    BatchResponse::union(&event, [status, totals])
}
