//! What the stream handlers write for one source record, held to the handlers by
//! `tests/fanout.rs`, which runs each real handler on DynamoDB Local with one record of each
//! source and counts the items it writes, by `Type`. The sources themselves are the consumers'
//! (`stream_handler::Consumer::sources`): the same test fails on a source without a fan-out here
//! and on a fan-out of a source its consumer does not read.

use keys::{commerce::types as commerce, derived::types as derived, reviews::types as reviews};

pub const COMMERCE_STREAM: &str = "commerce-stream";
pub const AGGREGATE_REVIEWS: &str = "aggregate-reviews";
/// Every stream consumer whose writes the plan models.
pub const CONSUMERS: &[&str] = &[COMMERCE_STREAM, AGGREGATE_REVIEWS];

/// One source record's fan-out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fanout {
    pub consumer: &'static str,
    /// The `Type` of the source item (an INSERT of it).
    pub source: &'static str,
    /// When it applies (an order placed under an account rep writes one target more).
    pub case: &'static str,
    /// The `Type` of each target item written, once per batch in which a record touches it
    /// (and nothing else: exactly-once lives on the targets, `store::aggregate`'s marks, or
    /// beside a ranked one).
    pub targets: &'static [&'static str],
}

pub const FANOUT: &[Fanout] = &[
    Fanout {
        consumer: COMMERCE_STREAM,
        source: commerce::ORDER_SUMMARY,
        case: "placed",
        targets: &[commerce::CUSTOMER, derived::DAILY_STATS],
    },
    Fanout {
        consumer: COMMERCE_STREAM,
        source: commerce::ORDER_SUMMARY,
        case: "placed under an account rep",
        // The rep's quarter keeps its marks aside (`store::aggregate::Ranked`).
        targets: &[
            commerce::CUSTOMER,
            derived::DAILY_STATS,
            commerce::REP_SALES,
            derived::LANE_MARK,
        ],
    },
    Fanout {
        consumer: COMMERCE_STREAM,
        source: commerce::ORDER_LINE,
        case: "placed",
        targets: &[commerce::PRODUCT_SALES],
    },
    Fanout {
        consumer: COMMERCE_STREAM,
        source: commerce::TRACKING_EVENT,
        case: "added",
        targets: &[commerce::ORDER_HEADER, commerce::ORDER_SUMMARY],
    },
    Fanout {
        consumer: COMMERCE_STREAM,
        source: commerce::INVENTORY,
        // put-inventory and adjust-inventory serve no pattern of the catalogue (staff
        // maintenance), so no workload calls them and no plan prices this one.
        case: "stocked",
        targets: &[commerce::PRODUCT],
    },
    Fanout {
        consumer: AGGREGATE_REVIEWS,
        source: reviews::REVIEW,
        case: "put",
        targets: &[reviews::BOOK, reviews::USER, derived::DAILY_STATS],
    },
];
