//! Bad input (issue 38, section 4): every value the model cannot plan is refused with the line
//! and the field, never a panic, a hang or minutes of work.

use std::path::PathBuf;

use planner::{Workload, workload};

/// Asserts that `text` is refused with an error starting `expected`.
fn refused(text: &str, expected: &str) {
    match Workload::parse(text) {
        Ok(_) => panic!("accepted:\n{text}\nexpected: {expected}"),
        Err(e) => assert!(e.starts_with(expected), "{e}\nexpected: {expected}"),
    }
}

fn accepted(text: &str) -> Workload {
    Workload::parse(text).unwrap_or_else(|e| panic!("{text}\n{e}"))
}

/// A directory of the test's own under the system's temporary one.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planner-input-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn c1(rps: &str) -> String {
    format!(
        "name: x\nentities:\n  customers: {{count: 10}}\npatterns:\n  - id: C1\n    rps: {rps}\n"
    )
}

#[test]
fn rps_negative_nan_infinite_or_past_ten_million_is_refused() {
    for rps in ["-1", ".nan", ".inf", "-.inf", "1e308", "10000001"] {
        refused(
            &c1(rps),
            "line 6, field patterns[0].rps: requests a second from 0 to 10,000,000 a pattern",
        );
    }
    accepted(&c1("10000000"));
    accepted(&c1("0"));
    // The bound holds at the day's busiest hour too.
    refused(
        "name: x\ndaily:\n  peak: {hour: 20, peak: 3, trough: 0.3}\nentities:\n  customers: {count: 10}\npatterns:\n  - id: C1\n    rps: 5000000\n",
        "line 8, field patterns[0].rps: 15000000 requests a second at the day's highest multiplier; at most 10,000,000",
    );
}

#[test]
fn item_bytes_zero_or_past_400_kb_is_refused() {
    for bytes in ["0", "409601", "18446744073709551615"] {
        refused(
            &format!("name: x\nentities: {{}}\nitem_bytes:\n  order: {bytes}\npatterns: []\n"),
            "line 4, field item_bytes.order: an item of 1 to 409,600 bytes (DynamoDB's 400 KB)",
        );
    }
    refused(
        "name: x\nentities: {}\nitem_bytes: {customer: 100, order_line: 0}\npatterns: []\n",
        "line 3, field item_bytes.order_line: an item of 1 to 409,600 bytes",
    );
    accepted("name: x\nentities: {}\nitem_bytes: {order: 1, order_line: 409600}\npatterns: []\n");
}

const C3: &str = "name: x\nentities:\n  customers: {count: 10}\n  products: {count: 10}\n";

#[test]
fn a_rep_share_without_reps_is_refused_not_a_panic() {
    refused(
        &format!("{C3}patterns:\n  - id: C3\n    rps: 1\n    rep_share: 0.1\n"),
        "line 8, field patterns[0].rep_share: 0.1 of orders under a rep, but entities declares no reps",
    );
    accepted(&format!(
        "{C3}patterns:\n  - id: C3\n    rps: 1\n    rep_share: 0\n"
    ));
}

/// `design.index_design` takes the template's `IndexDesign` values, each named in the error; the
/// plan runs with the template's default without it.
#[test]
fn an_index_design_is_one_of_the_templates() {
    use keys::indexes::IndexDesign;
    let with = |design: &str| {
        format!("name: x\ndesign:\n  index_design: {design}\nentities: {{}}\npatterns: []\n")
    };
    let all: Vec<_> = IndexDesign::ALL.iter().map(|d| d.as_str()).collect();
    for wrong in ["GSI1", "Dedicated", "\"\""] {
        let e = Workload::parse(&with(wrong)).expect_err(wrong);
        assert!(e.starts_with("line 3, field design.index_design: "), "{e}");
        assert!(e.contains(IndexDesign::PARAMETER), "{e}");
        assert!(e.contains(&all.join(", ")), "{e}");
    }
    for design in IndexDesign::ALL {
        let w = accepted(&with(design.as_str()));
        assert_eq!(w.design.index_design, Some(design));
        assert_eq!(planner::sim::design(&w).index_design, design);
    }
    let default = accepted("name: x\nentities: {}\npatterns: []\n");
    let template = sam_template::Template::workspace().unwrap();
    let declared = template
        .parameters
        .iter()
        .find(|p| p.name == IndexDesign::PARAMETER)
        .and_then(|p| p.default.clone())
        .unwrap();
    assert_eq!(
        planner::sim::design(&default).index_design.as_str(),
        declared
    );
}

#[test]
fn a_rep_share_outside_0_to_1_is_refused() {
    for share in ["2", "-0.1", ".nan", ".inf"] {
        refused(
            &format!(
                "{C3}  reps: {{count: 5}}\npatterns:\n  - id: C3\n    rps: 1\n    rep_share: {share}\n"
            ),
            "line 9, field patterns[0].rep_share: a share from 0 to 1",
        );
    }
}

#[test]
fn an_open_fraction_outside_0_to_1_is_refused() {
    for f in ["1.5", "-0.2", ".nan"] {
        refused(
            &format!(
                "name: x\nentities:\n  orders: {{count: 100, open_fraction: {f}}}\npatterns: []\n"
            ),
            "line 3, field entities.orders.open_fraction: a share from 0 to 1",
        );
    }
}

#[test]
fn lines_zero_or_past_place_orders_most_are_refused() {
    assert_eq!(
        workload::MAX_LINES as usize,
        commerce::place_order::MAX_LINES,
        "the planner's bound is place-order's"
    );
    for lines in ["0", "49", "4294967295"] {
        refused(
            &format!("{C3}patterns:\n  - id: C3\n    rps: 1\n    lines: {lines}\n"),
            "line 8, field patterns[0].lines: 1 to 48 lines an order",
        );
    }
    accepted(&format!(
        "{C3}patterns:\n  - id: C3\n    rps: 1\n    lines: 48\n"
    ));
}

#[test]
fn items_zero_is_refused() {
    refused(
        "name: x\nentities:\n  orders: {count: 100}\npatterns:\n  - id: O5\n    rps: 1\n    items: 0\n",
        "line 7, field patterns[0].items: at least 1 item a call",
    );
}

#[test]
fn stream_shards_batch_size_or_window_out_of_range_is_refused() {
    refused(
        "name: x\nentities: {}\nstream: {shards: 0}\npatterns: []\n",
        "line 3, field stream.shards: at least 1 stream shard",
    );
    for size in ["0", "10001"] {
        refused(
            &format!("name: x\nentities: {{}}\nstream:\n  batch_size: {size}\npatterns: []\n"),
            "line 4, field stream.batch_size: a batch of 1 to 10,000 records",
        );
    }
    accepted("name: x\nentities: {}\nstream: {shards: 1, batch_size: 10000}\npatterns: []\n");
    for window in ["-1", "301", ".nan"] {
        refused(
            &format!(
                "name: x\nentities: {{}}\nstream:\n  batching_window_seconds: {window}\npatterns: []\n"
            ),
            "line 4, field stream.batching_window_seconds: 0 to 300 seconds",
        );
    }
}

fn grows(horizon: u32, growth: &str) -> String {
    format!(
        "name: x\nhorizon_months: {horizon}\nentities:\n  customers:\n    count: 10\n    growth_per_month: {growth}\npatterns: []\n"
    )
}

#[test]
fn a_growth_that_empties_or_overflows_a_population_is_refused() {
    for g in ["-1", "-2", ".nan", ".inf", "-.inf"] {
        refused(
            &grows(12, g),
            "line 6, field entities.customers.growth_per_month: a monthly growth above -1",
        );
    }
    // 10 × 0.5^12 rounds to none.
    refused(
        &grows(12, "-0.5"),
        "line 6, field entities.customers.growth_per_month: -0.5 a month for 12 months makes 10 customers into 0; a population is 1 to 999,999,999,999",
    );
    // 10 × 11^120 and 10 × (1 + 1e308): past any count (and u64).
    refused(
        &grows(120, "10"),
        "line 6, field entities.customers.growth_per_month: 10 a month for 120 months makes 10 customers into 9.",
    );
    refused(
        &grows(1, "1e308"),
        "line 6, field entities.customers.growth_per_month: 1e308 a month for 1 months makes 10 customers into inf",
    );
    // Growth 10 over 1000 months: the horizon is refused first.
    refused(
        &grows(1000, "10"),
        "line 2, field horizon_months: a horizon of 0 to 120 months, found 1000",
    );
    // Shrinking, but not to nothing.
    assert_eq!(
        accepted(&grows(3, "-0.5"))
            .population(workload::Entity::Customers)
            .count,
        1
    );
}

#[test]
fn a_population_past_the_largest_key_is_refused() {
    refused(
        "name: x\nentities:\n  products: {count: 1000000000000}\npatterns: []\n",
        "line 3, field entities.products.count: a population of 1 to 999,999,999,999",
    );
}

fn hours(bad: &str) -> String {
    let mut h = vec!["1"; 24];
    h[5] = bad;
    format!(
        "name: x\ndaily:\n  hours: [{}]\nentities: {{}}\npatterns: []\n",
        h.join(", ")
    )
}

#[test]
fn daily_multipliers_nan_infinite_huge_or_negative_are_refused() {
    for m in [".nan", ".inf", "1e308", "-1", "10000001"] {
        refused(
            &hours(m),
            "line 3, field daily.hours: 24 multipliers, one per UTC hour; hour 5: a multiplier from 0 to 10,000,000",
        );
    }
    for (peak, trough, field) in [
        ("-1", "0.3", "daily.peak.peak"),
        (".nan", "0.3", "daily.peak.peak"),
        ("3", "-0.5", "daily.peak.trough"),
        ("3", ".nan", "daily.peak.trough"),
        ("3", ".inf", "daily.peak.trough"),
    ] {
        refused(
            &format!(
                "name: x\ndaily:\n  peak: {{hour: 20, peak: {peak}, trough: {trough}}}\nentities: {{}}\npatterns: []\n"
            ),
            &format!("line 3, field {field}: a multiplier from 0 to 10,000,000"),
        );
    }
    // A pattern's own day too.
    refused(
        "name: x\nentities:\n  customers: {count: 10}\npatterns:\n  - id: C1\n    rps: 1\n    daily:\n      peak: {hour: 1, peak: 2, trough: -1}\n",
        "line 8, field patterns[0].daily.peak.trough: a multiplier from 0",
    );
}

#[test]
fn an_absurd_horizon_is_refused() {
    for h in ["121", "4294967295"] {
        refused(
            &format!("name: x\nhorizon_months: {h}\nentities: {{}}\npatterns: []\n"),
            "line 2, field horizon_months: a horizon of 0 to 120 months",
        );
    }
    refused(
        "name: x\nhorizon_months: 4294967296\nentities: {}\npatterns: []\n",
        "line 2, field horizon_months: invalid value",
    );
    accepted("name: x\nhorizon_months: 120\nentities: {}\npatterns: []\n");
}

#[test]
fn a_pattern_given_twice_is_refused() {
    refused(
        "name: x\nentities:\n  customers: {count: 10}\npatterns:\n  - id: C1\n    rps: 1\n  - id: C1\n    rps: 2\n",
        "line 7, field patterns[1].id: C1 is patterns[0] already",
    );
}

#[test]
fn yaml_nested_100_000_deep_is_an_error_not_a_stack_overflow_or_minutes() {
    let started = std::time::Instant::now();
    let open = "[".repeat(100_000);
    let close = "]".repeat(100_000);
    for text in [
        format!("a: {open}"),
        format!("a: {open}{close}"),
        format!("{open}{close}"),
        format!("name: x\nentities: {{}}\npatterns: {open}{close}\n"),
        format!("name: x\nentities: {{}}\nitem_bytes:\n  order: {open}{close}\npatterns: []\n"),
    ] {
        let e = Workload::parse(&text).expect_err("refused");
        assert!(
            e.starts_with("line ") && e.contains(": more than 1,000 `[` and `{`"),
            "{e}"
        );
    }
    refused(
        &format!("name: x\nentities: {{}}\nitem_bytes:\n  order: {open}{close}\npatterns: []\n"),
        "line 4: more than 1,000",
    );
    // libyaml scans such nesting in quadratic time: 100,000 deep took minutes.
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    // Under that cap, serde_yaml stops at 128 levels, even for a type that would go on.
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    let e = serde_yaml::from_str::<serde_yaml::Value>(&deep).unwrap_err();
    assert!(e.to_string().contains("recursion limit exceeded"), "{e}");
    refused(
        &format!("name: x\nentities: {{}}\npatterns: {deep}\n"),
        "line 3, field patterns[0]: invalid type: sequence",
    );
}

#[test]
fn a_file_past_1_mib_is_refused_unread_and_named() {
    let e = Workload::load("/dev/zero".as_ref())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/dev/zero: larger than 1,048,576 bytes (1 MiB)"),
        "{e}"
    );
    // A 2 MiB description, from a file and as text (50 MB).
    let dir = scratch("big");
    let file = dir.join("big.yaml");
    let description = |n: usize| {
        format!(
            "name: x\ndescription: {}\nentities: {{}}\npatterns: []\n",
            "a".repeat(n)
        )
    };
    std::fs::write(&file, description(2 << 20)).unwrap();
    let e = Workload::load(&file).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: larger than 1,048,576 bytes", file.display())),
        "{e}"
    );
    let e = Workload::parse(&description(50_000_000)).unwrap_err();
    assert!(
        e.starts_with("the workload is 50,000,") && e.ends_with("bytes; at most 1,048,576 (1 MiB)"),
        "{e}"
    );
    std::fs::write(&file, b"name: \xff\n").unwrap();
    let e = Workload::load(&file).unwrap_err().to_string();
    assert!(e.contains("not UTF-8"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_long_name_or_description_is_refused() {
    let text = |name: &str, description: &str| {
        format!("name: {name}\ndescription: {description}\nentities: {{}}\npatterns: []\n")
    };
    refused(
        &text(&"n".repeat(201), "d"),
        "line 1, field name: at most 200 characters, found 201",
    );
    refused(
        &text("n", &"d".repeat(4_001)),
        "line 2, field description: at most 4,000 characters, found 4,001",
    );
    // Characters, not bytes.
    accepted(&text(&"é".repeat(200), &"é".repeat(4_000)));
}

#[test]
fn every_shipped_workload_is_within_the_bounds() {
    let dir = sam_template::workspace_root().join("lab/planner/workloads");
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        Workload::load(&path).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A workload from elsewhere is reported beside its file, never over a shipped report: given by
/// its path, or by its bare name from its own directory.
#[test]
fn a_workload_outside_the_shipped_ones_is_reported_beside_it() {
    let dir = scratch("beside");
    for (stem, arg) in [
        ("mine", dir.join("mine.yaml")),
        ("bare", PathBuf::from("bare.yaml")),
    ] {
        std::fs::write(
            dir.join(format!("{stem}.yaml")),
            "name: mine\nentities:\n  customers: {count: 10}\npatterns:\n  - id: C1\n    rps: 1\n",
        )
        .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_plan"))
            .current_dir(&dir)
            .arg(&arg)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let md = std::fs::read_to_string(dir.join(format!("{stem}.plan.md")))
            .unwrap_or_else(|e| panic!("{stem}.plan.md: {e}\n{err}"));
        assert!(dir.join(format!("{stem}.plan.svg")).is_file(), "{err}");
        assert!(
            md.contains(&format!("{stem}.plan.svg")),
            "the report shows its chart"
        );
        assert!(
            md.contains(&format!("{stem}.yaml")),
            "and links its workload"
        );
        let reports = sam_template::workspace_root().join("lab/planner/reports");
        assert!(!reports.join(format!("{stem}.md")).exists());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// An ID several operations share, or a function of several routes, is refused with the
/// choices (it meant the first of them, silently); one operation under two names is refused
/// (it was planned twice).
#[test]
fn an_ambiguous_id_or_one_operation_twice_is_refused() {
    let entities = "entities: {customers: {count: 10}, books: {count: 10}, users: {count: 10}, products: {count: 10}, carts: {count: 10}, orders: {count: 10}}";
    let one = |id: &str| format!("name: x\n{entities}\npatterns:\n  - id: {id}\n    rps: 1\n");
    refused(
        &one("R4"),
        "line 4, field patterns[0].id: R4 names 2 operations (`PUT /books/{isbn}` (put-book), `PUT /users/{username}` (put-user)); give the one you mean by its route",
    );
    refused(
        &one("C7"),
        "line 4, field patterns[0].id: C7 names 3 operations (",
    );
    accepted(&one("put-book"));
    accepted(&one("\"PUT /users/{username}\""));
    refused(
        &format!(
            "name: x\n{entities}\npatterns:\n  - id: C5\n    rps: 1\n  - id: GET /orders/{{orderId}}\n    rps: 1\n"
        ),
        "line 6, field patterns[1].id: GET /orders/{orderId} is `GET /orders/{orderId}` (get-order), which patterns[0] plans already; give each operation once",
    );
}
