//! The workload's populations and the template's stream batching, as the plan reads them
//! (issue 38).

use planner::{
    Workload, analysis,
    model::Ix,
    report,
    sim::{self, PARTITION_WCU, Streams},
};

fn parse(text: &str) -> Workload {
    Workload::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

/// Every certificate of one course: 800 a second, each written into the course's partition with
/// the occurrence checked and the student's v01 certificate checked absent (write actions of its
/// transaction). The course key throttles; spread over 500 courses nothing does.
#[test]
fn every_certificate_of_one_course_throttles_its_partition() {
    let one = |courses: u64| {
        parse(&format!(
            "
name: one course
entities:
  students: {{count: 100000}}
  courses: {{count: {courses}}}
patterns:
  - id: issue-certificate
    rps: 800
"
        ))
    };
    let streams = Streams::uniform(100, 0.0, 100.0, "the test's");
    let heat = sim::run(&one(1), sim::design(&one(1)), &streams, &mut |_, _| {});
    let course = heat
        .keys
        .iter()
        .filter(|k| k.index == Ix::TABLE && k.label == "<course>")
        .max_by(|a, b| a.peak_wcu().0.total_cmp(&b.peak_wcu().0))
        .expect("the course's partition");
    // A certificate of about 400 bytes: 2 units; each check 2 units.
    assert!(
        course.peak_wcu().0 >= 800.0 * 6.0,
        "{}",
        course.peak_wcu().0
    );
    assert!(
        analysis::findings(&heat)
            .iter()
            .any(|f| f.index == Ix::TABLE && f.pk == course.pk),
        "no finding on {}",
        course.pk
    );
    let spread = sim::run(&one(500), sim::design(&one(500)), &streams, &mut |_, _| {});
    let hottest = spread
        .keys
        .iter()
        .filter(|k| k.label == "<course>")
        .map(|k| k.peak_wcu().0)
        .fold(0.0, f64::max);
    assert!(hottest < PARTITION_WCU, "{hottest}");
    assert!(hottest > 800.0 * 6.0 / 500.0, "{hottest}");
}

/// 10,000 orders a second over 64 stream shards: the template's mappings (100 records a batch,
/// a batching window of 1 s) hand commerce-stream full batches, so each counter item is written
/// a few times a second per shard and 10 `AggregateShards` hold. A batch per record (batch size
/// 1, no window) writes every counter once per record and needs more.
#[test]
fn the_template_s_batching_decides_the_counter_shards() {
    let w = parse(
        "
name: ten thousand orders a second
entities:
  customers: {count: 10000000}
  products: {count: 500000, popularity: {zipf: 1.1}}
  orders: {count: 50000000}
stream: {shards: 64}
patterns:
  - id: C3
    rps: 10000
    lines: 3
",
    );
    let durations = report::Durations::load(&sam_template::workspace_root());
    let template = Streams::of(&w, &durations);
    let mapping = template.get(planner::fanout::COMMERCE_STREAM);
    assert_eq!((mapping.batch_size, mapping.window_s), (100, 1.0));
    let needed = |streams: &Streams| {
        let heat = sim::run(&w, sim::design(&w), streams, &mut |_, _| {});
        analysis::counter_shards(&w, &heat, streams)
            .expect("counters")
            .needed
            .expect("a count that holds")
    };
    assert!(needed(&template) <= 10, "{}", needed(&template));
    // A batch of one record takes one record's time.
    let one_record_ms = mapping.batch.ms / f64::from(mapping.batch_size);
    let one_by_one = Streams::uniform(1, 0.0, one_record_ms, "one record a batch");
    assert!(needed(&one_by_one) > 10, "{}", needed(&one_by_one));
}

/// Each consumer's writes are coalesced with its own batch time, not another consumer's.
#[test]
fn each_consumer_has_its_own_batch_time() {
    let root = sam_template::workspace_root();
    let w = parse(
        "
name: reviews
entities:
  books: {count: 10}
  users: {count: 1000}
patterns:
  - id: R3
    rps: 100
",
    );
    let streams = Streams::of(&w, &report::Durations::load(&root));
    let durations = report::Durations::load(&root);
    for consumer in planner::fanout::CONSUMERS {
        let c = streams.get(consumer);
        assert_eq!(
            c.batch.ms,
            durations.full_batch(consumer, c.batch_size).ms,
            "{consumer}"
        );
    }
    // Each its own: the two consumers' full batches differ.
    let ms = |c: &str| streams.get(c).batch.ms;
    assert_ne!(
        ms(planner::fanout::COMMERCE_STREAM),
        ms(planner::fanout::AGGREGATE_REVIEWS)
    );
}

/// Ten times commerce's orders: the status shards are sized by the headers' writes as well as
/// O5's reads, and a status shard written past the limit is fixed by raising
/// `OrderStatusShards`, not by write-sharding `ORDERS#<shard>` again.
#[test]
fn status_shards_count_the_writes_too() {
    let w = parse(
        "
name: ten times the orders
entities:
  customers: {count: 10000000}
  products: {count: 500000}
  orders: {count: 50000000, open_fraction: 0.02}
design: {order_status_shards: 2}
stream: {shards: 64}
patterns:
  - id: C3
    rps: 15000
    lines: 1
  - id: O5
    rps: 2
    items: 50
",
    );
    let streams = Streams::uniform(100, 1.0, 20.0, "the test's");
    let heat = sim::run(&w, sim::design(&w), &streams, &mut |_, _| {});
    let o = analysis::status_shards(&w, &heat, &streams).expect("status shards");
    assert_eq!(o.n_reads, 1);
    assert!(o.n_writes > 2, "{o:?}");
    assert_eq!(o.n, o.n_writes);
    assert!(o.padded > o.n);
    let findings = analysis::findings(&heat);
    let shard = findings
        .iter()
        .find(|f| f.label == "ORDERS#<shard>")
        .expect("a status shard past the write limit");
    assert!(shard.fix.contains("raise `OrderStatusShards`"), "{shard:?}");
    assert!(!shard.fix.contains("write-shard"), "{shard:?}");
}

/// Seed 003's O5 read every second, ten times as often, needs more status shards than the key
/// design takes: the plan says so, and does not panic.
#[test]
fn status_shards_past_the_most_the_design_takes_are_reported() {
    let path =
        sam_template::workspace_root().join("lab/planner/workloads/seed-003-every-second.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let mut w = parse(&text);
    for p in &mut w.patterns {
        if p.id == "O5" {
            p.rps *= 10.0;
        }
    }
    let streams = Streams::uniform(100, 1.0, 20.0, "the test's");
    let heat = sim::run(&w, sim::design(&w), &streams, &mut |_, _| {});
    let o = analysis::status_shards(&w, &heat, &streams).expect("status shards");
    assert!(o.n > keys::Shard::MAX_COUNT, "{}", o.n);
    assert_eq!(o.padded, keys::Shard::MAX_COUNT);
}
