//! The plan's monthly cost against a hand computation (issue 38): every request of every pattern,
//! the tail of each population included, at the units the code's requests cost.

use planner::{Workload, report, sim};

fn shipped(name: &str) -> Workload {
    let path = sam_template::workspace_root().join(format!("lab/planner/workloads/{name}.yaml"));
    Workload::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Write units of an item of `bytes`: 1 per KB, rounded up.
fn kb(bytes: f64) -> f64 {
    (bytes / 1024.0).ceil().max(1.0)
}

/// Read units of `bytes` read in one request: 1 per 4 KB rounded up, half when eventual.
fn ru(bytes: f64, consistent: bool) -> f64 {
    (bytes / 4096.0).ceil().max(1.0) * if consistent { 1.0 } else { 0.5 }
}

/// Dollars a month of `units` a second at each hour of `curve`'s day, at `price` a million.
fn monthly(units: f64, curve: &[f64; 24], price: f64) -> f64 {
    let seconds_per_hour_of_month = 3600.0 * report::rates::DAYS_PER_MONTH;
    curve.iter().sum::<f64>() * units * seconds_per_hour_of_month * price / 1e6
}

/// Commerce peak, by hand: each pattern's read and write units per call, from the item sizes the
/// plan measured and the requests the code sends (docs/access-patterns.md), times its rate over
/// the day. The stream handlers' writes are counted once per record here. The plan coalesces
/// writes of the same item in a batch: in batches of one record it costs what the hand computes;
/// in the shipped batches it saves, on the counters alone (the day's stats, the products' and the
/// reps' sales: one write a batch, however many of its records they take), never more than they
/// cost by hand.
#[test]
fn commerce_peak_costs_what_every_request_costs() {
    for batch_size in [Some(1), None] {
        let mut w = shipped("commerce-peak");
        w.stream.batch_size = batch_size;
        commerce_peak_by_hand(&w);
    }
}

fn commerce_peak_by_hand(w: &Workload) {
    let heat = sim::run(
        w,
        sim::design(w),
        &sim::Streams::of(w, &report::Durations::load(&sam_template::workspace_root())),
        &mut |_, _| {},
    );
    let s = heat.sizes;
    let d = heat.design;
    // A record's write of a counter: on the shard its stream shard's lane chooses, which holds
    // the marks of the lanes that choose it (7.25 each: every shard of their lineages in 25 h).
    let stream_shards = w.stream.shards.max(1);
    let spread = planner::model::lane_spread("commerce-stream", stream_shards, d.aggregate_shards);
    let counter = |bytes: f64| {
        spread
            .iter()
            .map(|(_, lanes)| {
                let marks = (lanes * (25.0 / 4.0 + 1.0)).round();
                lanes / f64::from(stream_shards)
                    * kb(bytes + marks * store::aggregate::MARK_BYTES as f64)
            })
            .sum::<f64>()
    };
    let (mut reads, mut writes, mut counters) = (0.0, 0.0, 0.0);
    for p in &w.patterns {
        let curve = w.curve(p);
        let lines = f64::from(p.lines.unwrap_or(3));
        let rep = p.rep_share.unwrap_or(0.0);
        let (r, wr) = match p.id.as_str() {
            "O13" => (ru(s.product, false), 0.0),
            "C1" => (ru(s.customer + 10.0 * s.order_summary, false), 0.0),
            "C5" => (ru(s.order_header + 6.0 * s.order_line, false), 0.0),
            "get-product-sales" => (
                f64::from(d.aggregate_shards) * ru(s.product_sales, false),
                0.0,
            ),
            "O8" => (ru(50.0 * s.order_line, false), 0.0),
            // 50 OPEN orders over the 15 status shards: one Query each, under 4 KB.
            "O5" => (f64::from(d.order_status_shards) * 0.5, 0.0),
            "O14" => (ru(10.0 * s.rep_sales, false), 0.0),
            "C3" => {
                // The products (strongly consistent BatchGetItem, each item on its own) and
                // the customer (GetItem, strong); the rep's sales and its mark read by the stream
                // handler.
                let r = lines * ru(s.product, true) + ru(s.customer, true) + rep * 2.0;
                // A transaction writes each item twice on the table, once in each index
                // (docs/billing.md).
                let txn = 2.0 * kb(s.customer) // ConditionCheck of the customer
                    + 2.0 * kb(s.idempotency) // the Idempotency-Key's record
                    + kb(s.order_summary) * (2.0 + rep) // table; GSI1 REP# under a rep
                    + kb(s.order_header) * (2.0 + 2.0) // table; GSI1 CUSTOMER#, GSI2 ORDERS#
                    + lines * (3.0 * kb(s.order_line) + 2.0 * kb(s.product)); // table, GSI1; price check
                // commerce-stream, one UpdateItem a target, each carrying its marks (a
                // customer's of its own partition's shard, a counter shard's of the shards that
                // choose it): the customer, the day's stats, each line's product sales, the
                // customer's copy in GSI1 under a rep; and the rep's quarter, in a transaction
                // with its lane's mark kept aside, its ranking key in GSI1 moved (a delete and a
                // put).
                let ranked = 2.0 * kb(s.rep_sales) + 2.0 * kb(s.rep_sales) + 2.0 * kb(s.mark_aside);
                let stream = kb(s.customer + s.marks_own) * (1.0 + rep)
                    + counter(s.daily_stats)
                    + lines * counter(s.product_sales)
                    + rep * ranked;
                let coalescing =
                    counter(s.daily_stats) + lines * counter(s.product_sales) + rep * ranked;
                counters += monthly(p.rps * coalescing, &curve, report::rates::WRITE_REQUEST);
                (r, txn + stream)
            }
            "C6" => {
                // The header's EventCount (its copies in GSI1 and GSI2 rewritten with it) and a
                // 200-byte event, in one transaction; then the status on the header (its GSI1
                // and GSI2 keys moved: a delete and a put each) and on the summary.
                let txn = (2.0 + 2.0) * kb(s.order_header) + 2.0 * kb(200.0);
                let status = kb(s.order_header) * 5.0 + kb(s.order_summary);
                (0.0, txn + status)
            }
            other => panic!("{other}: not in commerce-peak"),
        };
        // And the consumer's position, once a batch: once a record here (it coalesces too).
        let records: f64 = planner::model::records_per_call(p)
            .iter()
            .map(|(_, n)| n)
            .sum();
        let positions = monthly(p.rps * records, &curve, report::rates::WRITE_REQUEST);
        counters += positions;
        reads += monthly(p.rps * r, &curve, report::rates::READ_REQUEST);
        writes += monthly(p.rps * wr, &curve, report::rates::WRITE_REQUEST) + positions;
    }
    let plan = report::cost(&heat);
    let by_hand = reads + writes;
    let batch = w.stream.batch_size;
    eprintln!(
        "batches of {batch:?}: by hand ${reads:.0} reads + ${writes:.0} writes = ${by_hand:.0} \
         (counters ${counters:.0}); plan ${:.0}",
        plan.on_demand
    );
    let least = if batch == Some(1) {
        by_hand * 0.97
    } else {
        by_hand - counters
    };
    assert!(
        plan.on_demand <= by_hand * 1.001 && plan.on_demand >= least,
        "batches of {batch:?}: plan ${:.0} against ${by_hand:.0} by hand, at least ${least:.0}",
        plan.on_demand
    );
}

/// A population's tail costs as much as its head: 1,000 reads a second over 10 million customers,
/// uniform, is 1,000 reads a second, not the top 2,000 customers' share of them.
#[test]
fn a_uniform_workload_costs_every_subject() {
    let w = Workload::parse(
        "
name: uniform
entities:
  customers: {count: 10000000}
patterns:
  - id: C1
    rps: 1000
",
    )
    .unwrap();
    let heat = sim::run(
        &w,
        sim::design(&w),
        &sim::Streams::uniform(100, 0.0, 100.0, "the test's"),
        &mut |_, _| {},
    );
    let s = heat.sizes;
    let by_hand = monthly(
        1000.0 * ru(s.customer + 10.0 * s.order_summary, false),
        &[1.0; 24],
        report::rates::READ_REQUEST,
    );
    let plan = report::cost(&heat);
    assert!(
        (plan.on_demand - by_hand).abs() < by_hand * 1e-6,
        "plan ${:.2} against ${by_hand:.2}",
        plan.on_demand
    );
}

/// R2 and O8 with `IndexDesign` dedicated, by hand: R2 a Query of the page's keys-only entries in
/// `ReviewsByUser` (summed, rounded up to 4 KB), then one BatchGetItem of those reviews and the
/// user, each rounded up to 4 KB on its own, as many reviews as get-user's page budget allows;
/// O8 a Query of the product's inventories in its partition (one per warehouse), then one of
/// the rest of the page's lines in `OrderLinesByProduct` (its INCLUDE entries).
#[test]
fn r2_and_o8_in_the_dedicated_design_cost_what_their_requests_cost() {
    let w = Workload::parse(
        "
name: dedicated
design: {index_design: dedicated}
entities:
  users: {count: 100000}
  books: {count: 10000}
  products: {count: 10000}
  warehouses: {count: 3}
patterns:
  - {id: R2, rps: 1000, items: 12}
  - {id: O8, rps: 100, items: 20}
",
    )
    .unwrap();
    let heat = sim::run(
        &w,
        sim::design(&w),
        &sim::Streams::uniform(100, 0.0, 100.0, "the test's"),
        &mut |_, _| {},
    );
    let s = heat.sizes;
    // A review's entry is its keys, smaller than it, and within what get-user's budget assumes;
    // an order line's projects all it holds.
    assert!(
        s.review_entry < s.review && s.order_line_entry <= s.order_line,
        "{s:?}"
    );
    assert!(s.review_entry <= f64::from(reviews::data::user_reviews::LARGEST_ENTRY_BYTES));
    let page = 12f64.min(f64::from(reviews::data::user_reviews::dedicated_page(true)));
    assert!(page < 12.0, "the budget cuts the page");
    let r2 = ru(page * s.review_entry, false) + ru(s.user, false) + page * ru(s.review, false);
    let o8 = ru(3.0 * s.inventory, false) + ru(17.0 * s.order_line_entry, false);
    let by_hand = monthly(
        1000.0 * r2 + 100.0 * o8,
        &[1.0; 24],
        report::rates::READ_REQUEST,
    );
    let plan = report::cost(&heat);
    assert!(
        (plan.on_demand - by_hand).abs() < by_hand * 1e-6,
        "plan ${:.2} against ${by_hand:.2}",
        plan.on_demand
    );
}
