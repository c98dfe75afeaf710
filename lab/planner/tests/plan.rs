//! What the planner must find (issue 31): seed 003's shard count checked against the simulated
//! heat, a hot product's GSI1 partition, the counters' shard count, a rep-sales item every stream
//! shard rewrites, and errors that name the line and the field.

use planner::{
    Workload,
    analysis::{self, Finding},
    model::Ix,
    report,
    sim::{self, Heat, PARTITION_RCU, PARTITION_WCU, Streams},
};

fn batch() -> Streams {
    Streams::uniform(100, 0.0, report::ASSUMED_BATCH_MS, "the tests' assumption")
}

fn shipped(name: &str) -> Workload {
    let path = sam_template::workspace_root().join(format!("lab/planner/workloads/{name}.yaml"));
    Workload::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn plan(w: &Workload) -> Heat {
    sim::run(w, sim::design(w), &batch(), &mut |_, _| {})
}

/// The whole report of `w` with its status shards `o`.
fn report_with_status(w: &Workload, file: &str, heat: &Heat, o: &analysis::StatusShards) -> String {
    report::markdown(&report::Plan {
        workload: w,
        file,
        heat,
        status: Some(o),
        counters: None,
        durations: &report::Durations::load(&sam_template::workspace_root()),
        streams: &batch(),
        svg: None,
        other_designs: &[],
    })
}

fn parse(text: &str) -> Workload {
    Workload::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The seed's own shape: a pass over every OPEN order, once an hour (the seed: "relatively
/// infrequently so that you can use burst capacity"). MaxRequiredIO is one pass's items read in a
/// second: N = 13 still; one pass takes 1,409 RCU of each of 13 partitions (600,000 / 13
/// orders of 250 B, 4 KB blocks, half a unit each), and 18,311 of one partition unsharded: six
/// seconds of its throughput. The burst the seed relies on is the table's: a table provisioned at
/// 62 RCU a second banks one pass in its 300 seconds.
#[test]
fn seed_003_as_the_seed_describes_it_is_a_rare_pass_served_by_burst() {
    let w = shipped("seed-003");
    let heat = plan(&w);
    let o = analysis::status_shards(&w, &heat, &batch()).expect("O5 is in the workload");
    assert_eq!(o.max_required_io, 600_000.0);
    assert_eq!((o.n, o.padded), (13, 15));
    let pass = o.pass.clone().expect("once an hour is a pass");
    assert_eq!(pass.items, 600_000);
    assert!((pass.per_hour - 1.0).abs() < 1e-3, "{}", pass.per_hour);
    assert_eq!(
        pass.shard_rcu_at_n,
        (600_000.0_f64 / 13.0 * 250.0 / 4096.0).ceil() / 2.0
    );
    assert!(pass.shard_rcu_at_n < PARTITION_RCU);
    assert_eq!(pass.rcu_at_1, (600_000.0_f64 * 250.0 / 4096.0).ceil() / 2.0);
    assert!(pass.rcu_at_1 > PARTITION_RCU);
    assert_eq!((pass.rcu_at_1 / analysis::BURST_SECONDS).ceil(), 62.0);
    let md = report_with_status(&w, "seed-003.yaml", &heat, &o);
    assert!(
        md.contains("O5 is a pass, as the seed describes it"),
        "{md}"
    );
    assert!(md.contains("at 62 RCU a second or more"), "{md}");
    // Every second all day, this project's variant, is no pass.
    let every = shipped("seed-003-every-second");
    let o = analysis::status_shards(&every, &plan(&every), &batch()).unwrap();
    assert!(o.pass.is_none());
}

/// The seed's figures read every second (this project's variant): 3M orders, 20% OPEN, 250-byte
/// order entities.
#[test]
fn seed_003_needs_13_shards_padded_to_15_and_the_plan_agrees() {
    let w = shipped("seed-003-every-second");
    let heat = plan(&w);
    let o = analysis::status_shards(&w, &heat, &batch()).expect("O5 is in the workload");
    assert_eq!(o.max_required_io, 600_000.0);
    assert_eq!(o.items_per_rcu, 16);
    assert_eq!(o.partition_max_read_rate, 48_000);
    assert_eq!((o.n, o.padded), (13, 15));
    // Simulated through the real shard hash of real order ids: at 13 every shard stays under a
    // partition's reads; with one partition, the read is six times past it.
    assert!(
        o.hottest_rcu_at_n < PARTITION_RCU,
        "{} at 13",
        o.hottest_rcu_at_n
    );
    assert!(o.hottest_rcu_padded < o.hottest_rcu_at_n);
    assert!(
        o.hottest_rcu_at_1 > PARTITION_RCU,
        "{} at 1",
        o.hottest_rcu_at_1
    );
    // And the report says it.
    let md = report_with_status(&w, "seed-003-every-second.yaml", &heat, &o);
    assert!(md.contains("N = 13 (reads 13, writes 1)"), "{md}");
    assert!(md.contains("set `OrderStatusShards` to 15"), "{md}");
}

/// A key design change changes the plan: the same workload with 4 status shards reads 4 GSI2
/// partitions, each past the limit.
#[test]
fn the_plan_follows_the_key_design() {
    let mut w = shipped("seed-003-every-second");
    w.design.order_status_shards = Some(4);
    let heat = plan(&w);
    let orders: Vec<_> = heat
        .keys
        .iter()
        .filter(|k| k.index == Ix::GSI2 && k.pk.starts_with("ORDERS#"))
        .collect();
    assert_eq!(orders.len(), 4);
    assert!(orders.iter().all(|k| k.peak_rcu().0 > PARTITION_RCU));
    assert!(
        analysis::findings(&heat)
            .iter()
            .any(|f| f.pk == "ORDERS#00" && f.fix.contains("N = 13"))
    );
}

const VIRAL_PRODUCT: &str = "
name: a viral product
entities:
  customers: {count: 1000000}
  products: {count: 100000, popularity: {zipf: 1.0, viral: 0.9}}
  orders: {count: 10000000}
stream: {shards: 200}
patterns:
  - id: C3
    rps: 10000
    lines: 1
";

fn finding<'a>(findings: &'a [Finding], index: Ix, pk: &str) -> &'a Finding {
    findings
        .iter()
        .find(|f| f.index == index && f.pk == pk)
        .unwrap_or_else(|| panic!("no finding on {pk}: {findings:#?}"))
}

/// About 9,000 order lines a second of one product: every line is in its GSI1 partition
/// `PRODUCT#<sku>` with an ever-increasing sort key (`ORDERITEM#<ULID>`), and every order checks
/// the product's price in its transaction, a write action on the product's item.
#[test]
fn a_viral_product_makes_its_gsi1_partition_the_hottest_write_and_the_plan_says_why() {
    let heat = plan(&parse(VIRAL_PRODUCT));
    let mut hottest: Vec<_> = heat.keys.iter().collect();
    hottest.sort_by(|a, b| b.peak_wcu().0.total_cmp(&a.peak_wcu().0));
    let mut top: Vec<_> = hottest[..2]
        .iter()
        .map(|k| (k.index, k.pk.as_str()))
        .collect();
    top.sort();
    assert_eq!(
        top,
        [
            (Ix::GSI1, "PRODUCT#000000000001"),
            (Ix::TABLE, "PRODUCT#000000000001")
        ]
    );
    let lines = heat.key(Ix::GSI1, "PRODUCT#000000000001").expect("the key");
    assert!(lines.peak_wcu().0 > PARTITION_WCU);
    let findings = analysis::findings(&heat);
    let item = finding(&findings, Ix::TABLE, "PRODUCT#000000000001");
    assert!(
        item.problem.contains("no split can divide one item"),
        "{item:?}"
    );
    let hottest = lines;
    let f = finding(&findings, Ix::GSI1, "PRODUCT#000000000001");
    assert!(f.problem.contains("a split for heat cannot help"), "{f:?}");
    assert!(f.problem.contains("newest sort key"), "{f:?}");
    assert!(f.fix.contains("write-shard the partition key"), "{f:?}");
    let n = (hottest.peak_wcu().0 / PARTITION_WCU).ceil();
    assert!(f.fix.contains(&format!("at least {n} shards")), "{f:?}");
}

/// The viral product's units sold and the day's stats: each sale adds to one of the product's
/// `SALES#<sku>#<shard>` items and one of the day's `STATS#<date>#<shard>` items, and 200 stream
/// shards write each of them once per batch. The plan finds the fewest shards that keep every
/// one under the write limit, checks it by planning again, and says what a reader then pays.
#[test]
fn sharded_counters_get_the_shard_count_that_keeps_them_under_the_limit() {
    let w = parse(VIRAL_PRODUCT);
    let heat = plan(&w);
    let c = analysis::counter_shards(&w, &heat, &batch()).expect("counters");
    assert_eq!(c.current, 10);
    assert!(c.hottest_wcu_now > PARTITION_WCU, "{}", c.hottest_wcu_now);
    let n = c.needed.expect("a count that fits");
    assert!(n > 10, "{n}");
    assert!(c.hottest_wcu_at_needed <= PARTITION_WCU);
    let counters_over = |shards: u32| {
        let mut w = w.clone();
        w.design.aggregate_shards = Some(shards);
        plan(&w)
            .keys
            .iter()
            .filter(|k| matches!(k.label, "SALES#<sku>#<shard>" | "STATS#<date>#<shard>"))
            .filter(|k| k.peak_wcu().0 > PARTITION_WCU)
            .count()
    };
    // The fewest: at n none runs past the limit, with one shard less some do.
    assert_eq!(counters_over(n), 0);
    assert!(counters_over(n - 1) > 0, "{} shards would do", n - 1);
    // What to set is padded as seed 003 pads; its reader pays one eventually consistent read
    // unit per two shards.
    let padded = c.padded.expect("padded");
    assert_eq!(padded, analysis::pad(n));
    assert!(padded > n);
    assert_eq!(c.reader_rcu, f64::from(padded) * 0.5);
}

/// A quarter's close: every order of the day is placed under one of 5 reps, and each rep's
/// `RepSales` item (a read-modify-write of its total and ranking key) is rewritten by batches on
/// every one of the 50 stream shards.
#[test]
fn a_rep_sales_item_rewritten_by_every_stream_shard_is_flagged() {
    let heat = plan(&parse(
        "
name: quarter close
entities:
  customers: {count: 100000}
  products: {count: 1000}
  orders: {count: 1000000}
  reps: {count: 5}
stream: {shards: 50}
patterns:
  - id: C3
    rps: 500
    rep_share: 1.0
",
    ));
    let findings = analysis::findings(&heat);
    let period = keys::Quarter::of(planner::model::sample_date());
    let pk = format!("SALESPERIOD#{period}");
    let f = finding(&findings, Ix::TABLE, &pk);
    assert!(f.problem.contains("stream batches at once"), "{f:?}");
    assert!(f.problem.contains("REP#"), "{f:?}");
    // One rep's orders only: no contention.
    let calm = plan(&parse(
        "
name: one shard
entities:
  customers: {count: 100000}
  products: {count: 1000}
  reps: {count: 5}
stream: {shards: 1}
patterns:
  - id: C3
    rps: 2
    rep_share: 1.0
",
    ));
    assert!(
        !analysis::findings(&calm)
            .iter()
            .any(|f| f.problem.contains("at once")),
        "{:#?}",
        analysis::findings(&calm)
    );
}

#[test]
fn a_bad_workload_names_the_line_and_the_field() {
    let cases = [
        (
            "name: x\nentities:\n  customers: {count: 10}\npatterns:\n  - id: C1\n    rps: 1\n  - id: Z9\n    rps: 2\n",
            "line 7, field patterns[1].id: no access pattern Z9 in the catalogue",
        ),
        (
            "name: x\nentities:\n  customers: {count: 10}\npatterns:\n  - id: C1\n    rps: fast\n",
            "line 6, field patterns[0].rps: invalid type",
        ),
        (
            "name: x\nentities:\n  customers: {count: 10, popularity: {zipf: 9}}\npatterns: []\n",
            "line 3, field entities.customers.popularity.zipf: a Zipf exponent from 0 to 5",
        ),
        (
            "name: x\nentities:\n  customer: {count: 10}\npatterns: []\n",
            "line 3, field entities.customer: unknown field `customer`",
        ),
        (
            "name: x\ndaily:\n  hours: [1, 2]\nentities: {}\npatterns: []\n",
            "line 3, field daily.hours: 24 multipliers",
        ),
        (
            "name: x\nentities: {}\npatterns:\n  - id: C1\n    rps: 1\n",
            "field patterns[0].id: C1 draws from customers, which entities does not declare",
        ),
    ];
    for (text, expected) in cases {
        let e = Workload::parse(text).expect_err(text);
        assert!(e.starts_with(expected), "{e}\nexpected: {expected}");
    }
}

/// Every shipped workload plans, and the plan's totals agree with its keys.
#[test]
fn every_shipped_workload_plans() {
    for name in ["commerce-peak", "viral-book", "certification-season"] {
        let heat = plan(&shipped(name));
        assert!(!heat.keys.is_empty(), "{name}");
    }
}

/// The indexes of `template.yaml`'s default deployment hold what the real items carry the
/// attributes of, and no index the deployment does not create is written.
#[test]
fn writes_reach_every_index_the_real_item_stands_in() {
    let heat = plan(&parse(
        "
name: reps
entities:
  customers: {count: 10}
  products: {count: 10}
  reps: {count: 1}
patterns:
  - id: C3
    rps: 10
    rep_share: 1.0
",
    ));
    let written = |index: &str, pk: &str| {
        heat.keys
            .iter()
            .find(|k| k.index.name() == index && k.pk == pk)
            .map_or(0.0, |k| k.peak_wcu().0)
    };
    // The template's default deployment: the summary under the rep in GSI1, the header under
    // its customer there and under its status shard in GSI2; no orders-by-status index exists.
    assert!(written("GSI1", "REP#R000001") > 0.0);
    assert!(written("GSI1", "CUSTOMER#C0000000001") > 0.0);
    assert!(
        heat.keys
            .iter()
            .any(|k| k.index.name() == "GSI2" && k.pk.starts_with("ORDERS#"))
    );
    assert!(
        !heat
            .keys
            .iter()
            .any(|k| k.index.name().ends_with("ByStatus")),
        "the default deployment has no orders-by-status index"
    );
}

/// The same workload in each `IndexDesign`: in the dedicated one users, reviews and order
/// lines leave GSI1, R2 and R3 heat the user's partition of `ReviewsByUser` (`Username`), C3 and
/// O8 the product's of `OrderLinesByProduct` (`Sku`), and R2 fetches each review from its book's
/// partition; the report says which design it ran with and what the other costs.
#[test]
fn the_index_design_moves_r2_and_o8_to_their_own_indexes() {
    use keys::{
        Index as _,
        indexes::{IndexDesign, OrderLinesByProduct, ReviewsByUser, ReviewsByUserAll},
    };
    let text = |design: IndexDesign| {
        format!(
            "
name: both designs
design: {{index_design: {}}}
entities:
  customers: {{count: 1000}}
  products: {{count: 100, popularity: {{zipf: 1.0}}}}
  users: {{count: 1000, popularity: {{zipf: 1.0}}}}
  books: {{count: 100}}
patterns:
  - {{id: C3, rps: 10, lines: 1}}
  - {{id: O8, rps: 10}}
  - {{id: R2, rps: 100}}
  - {{id: R3, rps: 10}}
",
            design.as_str()
        )
    };
    let (user, product) = (
        planner::model::user_id(1).as_str().to_owned(),
        planner::model::sku(1).get().to_string(),
    );
    let heats: Vec<(IndexDesign, Workload, Heat)> = IndexDesign::ALL
        .into_iter()
        .map(|d| {
            let w = parse(&text(d));
            let heat = plan(&w);
            (d, w, heat)
        })
        .collect();
    for (design, w, heat) in &heats {
        let on = |index: &str, pk: &str| {
            heat.keys
                .iter()
                .find(|k| k.index.name() == index && k.pk == pk)
        };
        let users_in_gsi1 = heat.keys.iter().any(|k| {
            k.index == Ix::GSI1 && (k.pk.starts_with("USER#") || k.pk.starts_with("PRODUCT#"))
        });
        match design {
            IndexDesign::Overloaded => {
                assert!(users_in_gsi1);
                assert!(on(ReviewsByUser::NAME, &user).is_none());
                assert!(on(OrderLinesByProduct::NAME, &product).is_none());
            }
            IndexDesign::Dedicated | IndexDesign::Projected => {
                assert!(!users_in_gsi1, "nothing of R2's or O8's in GSI1");
                let (r2, other) = match design {
                    IndexDesign::Projected => (ReviewsByUserAll::NAME, ReviewsByUser::NAME),
                    _ => (ReviewsByUser::NAME, ReviewsByUserAll::NAME),
                };
                assert!(on(other, &user).is_none(), "{other} in {design:?}");
                let reviews = on(r2, &user).expect("the user's entries");
                assert!(reviews.peak_rcu().0 > 0.0 && reviews.peak_wcu().0 > 0.0);
                assert_eq!(reviews.patterns, ["R2", "R3"].map(String::from).into());
                let lines = on(OrderLinesByProduct::NAME, &product).expect("the product's lines");
                assert!(lines.peak_rcu().0 > 0.0 && lines.peak_wcu().0 > 0.0);
                assert_eq!(lines.patterns, ["C3", "O8"].map(String::from).into());
                // The reviews fetched from their books' partitions; the inventories from the
                // product's.
                // Keys only: each review fetched again from its book's partition.
                let book = heat
                    .keys
                    .iter()
                    .find(|k| k.index == Ix::TABLE && k.pk.starts_with("BOOK#"))
                    .expect("a book");
                assert_eq!(
                    book.patterns.contains("R2"),
                    *design == IndexDesign::Dedicated,
                    "{design:?}: {:?}",
                    book.patterns
                );
                let own = on(
                    "table",
                    keys::commerce::product(planner::model::sku(1)).pk(),
                )
                .expect("the product's partition");
                assert!(own.patterns.contains("O8"), "{:?}", own.patterns);
            }
        }
        let others = report::other_designs(w, heat.design, &batch());
        let md = report::markdown(&report::Plan {
            workload: w,
            file: "both.yaml",
            heat,
            status: None,
            counters: None,
            durations: &report::Durations::load(&sam_template::workspace_root()),
            streams: &batch(),
            svg: None,
            other_designs: &others,
        });
        assert!(
            md.contains(&format!(
                "`IndexDesign` = {} (the workload's",
                design.as_str()
            )),
            "{md}"
        );
        assert_eq!(others.len(), IndexDesign::ALL.len() - 1, "{others:?}");
        for other in &others {
            let (_, _, other_heat) = heats.iter().find(|(d, _, _)| *d == other.design).unwrap();
            assert_eq!(other.on_demand, report::cost(other_heat).on_demand);
            assert!(
                md.contains(&format!(
                    "| DynamoDB on-demand with `IndexDesign` = {} instead | ${:.0} |",
                    other.design.as_str(),
                    other.on_demand
                )),
                "{md}"
            );
        }
    }
}

#[test]
fn populations_grow_to_the_horizon() {
    let w = parse(
        "
name: growth
horizon_months: 12
entities:
  customers: {count: 1000000, growth_per_month: 0.03}
  products: {count: 1000}
patterns: []
",
    );
    assert_eq!(
        w.population(planner::workload::Entity::Customers).count,
        1_425_761
    );
    assert_eq!(
        w.population(planner::workload::Entity::Products).count,
        1000
    );
}

/// `make plan` with a flag: the planner takes workload files only, so a flag (a typo, or one it
/// never had) is refused with the usage, exit 2, before any report is planned or written.
#[test]
fn the_plan_command_refuses_a_flag_and_writes_no_report() {
    let reports = sam_template::workspace_root().join("lab/planner/reports");
    let written = || {
        let mut all: Vec<_> = std::fs::read_dir(&reports)
            .map(|d| {
                d.filter_map(|e| {
                    let e = e.ok()?;
                    Some((e.file_name(), e.metadata().ok()?.modified().ok()?))
                })
                .collect()
            })
            .unwrap_or_default();
        all.sort();
        all
    };
    let before = written();
    let workload = sam_template::workspace_root().join("lab/planner/workloads/seed-003.yaml");
    let workload = workload.to_string_lossy();
    for args in [&["--all"][..], &[&*workload, "-v"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_plan"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(args[args.len() - 1]),
            "{args:?} names the flag: {err}"
        );
        assert!(err.contains("usage: plan"), "{args:?}: {err}");
    }
    assert_eq!(written(), before, "no report written");
}
