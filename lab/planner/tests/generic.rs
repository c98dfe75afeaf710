//! Every operation of the catalogue can be planned (issue 38): those without a hand model from
//! their function's profile, the requests its sample sent through the real function.

use planner::{
    Workload, generic,
    model::Ix,
    sim::{self, Streams},
    workload::{Entity, MODELLED},
};

fn every_population() -> String {
    Entity::ALL
        .iter()
        .map(|e| format!("  {}: {{count: 1000}}\n", e.name()))
        .collect()
}

fn plan(patterns: &str) -> (Workload, sim::Heat) {
    let w = Workload::parse(&format!(
        "name: t\nentities:\n{}patterns:\n{patterns}",
        every_population()
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let streams = Streams::uniform(100, 1.0, 20.0, "the test's");
    let heat = sim::run(&w, sim::design(&w), &streams, &mut |_, _| {});
    (w, heat)
}

fn total(units: &std::collections::BTreeMap<Ix, [f64; 24]>) -> f64 {
    units.values().map(|h| h[0]).sum()
}

/// Every route of the catalogue plans, named by its route; one the planner does not model costs
/// per call what its function's sample cost, every unit of it.
#[test]
fn every_operation_of_the_catalogue_plans_at_its_sample_s_cost() {
    for o in catalogue::OPERATIONS.iter() {
        let id = format!("{} {}", o.method.as_str(), o.path);
        let (_, heat) = plan(&format!("  - id: \"{id}\"\n    rps: 10\n"));
        let r = generic::resolve(&id).unwrap_or_else(|| panic!("{id} does not resolve"));
        if MODELLED.contains(&r.function) {
            continue;
        }
        let p = r.profile;
        let reads: f64 = p
            .requests
            .iter()
            .chain(&p.fanout)
            .map(|s| s.read_units)
            .sum();
        let writes: f64 = p
            .requests
            .iter()
            .chain(&p.fanout)
            .map(|s| s.write_units())
            .sum();
        assert!(
            (total(&heat.rcu) - 10.0 * reads).abs() < 1e-6
                && (total(&heat.wcu) - 10.0 * writes).abs() < 1e-6,
            "{id}: planned {} RCU/s and {} WCU/s, its sample {reads} and {writes} a call",
            total(&heat.rcu),
            total(&heat.wcu)
        );
    }
}

/// Every catalogue ID and every function's name is a pattern a workload can name.
#[test]
fn every_pattern_id_and_function_name_resolves() {
    for p in catalogue::PATTERNS.iter() {
        for id in [p.id, p.function] {
            if id.is_empty() || MODELLED.contains(&id) {
                continue;
            }
            assert!(generic::resolve(id).is_some(), "{id}");
        }
    }
}

/// A profiled pattern and a modelled one that read the same customer heat the same partition.
#[test]
fn a_profiled_pattern_heats_the_same_keys_as_a_modelled_one() {
    let (_, heat) = plan("  - id: C1\n    rps: 100\n  - id: list-customer-orders\n    rps: 100\n");
    let key = heat
        .key(Ix::TABLE, "CUSTOMER#C0000000001")
        .or_else(|| heat.key(Ix::GSI1, "CUSTOMER#C0000000001"))
        .expect("customer 1's partition");
    assert!(!key.patterns.is_empty(), "{:?}", key.patterns);
    let both = heat
        .keys
        .iter()
        .filter(|k| k.pk == "CUSTOMER#C0000000001")
        .flat_map(|k| k.patterns.iter())
        .collect::<std::collections::BTreeSet<_>>();
    assert_eq!(both.len(), 2, "{both:?}");
}

/// A profiled pattern takes its shape from its sample: the modelled patterns' knobs are refused.
#[test]
fn a_profiled_pattern_refuses_the_modelled_patterns_knobs() {
    let e = Workload::parse(&format!(
        "name: t\nentities:\n{}patterns:\n  - id: get-employee\n    rps: 1\n    items: 5\n",
        every_population()
    ))
    .unwrap_err();
    assert!(e.contains("field patterns[0].items"), "{e}");
    assert!(e.contains("GET /employees/E100"), "{e}");
}

/// One employee read 10,000 times a second: its partition's heat is the sample's units.
#[test]
fn a_viral_subject_of_a_profiled_pattern_runs_hot() {
    let w = Workload::parse(
        "
name: t
entities:
  employees: {count: 1000, popularity: {viral: 1.0}}
patterns:
  - id: H1
    rps: 10000
",
    )
    .unwrap();
    let streams = Streams::uniform(100, 1.0, 20.0, "the test's");
    let heat = sim::run(&w, sim::design(&w), &streams, &mut |_, _| {});
    let hottest = heat.keys.first().expect("keys");
    assert!(hottest.pk.contains("E0000001"), "{}", hottest.pk);
    assert!(hottest.pressure() > 1.0, "{}", hottest.pressure());
}

/// Each route is planned from a request to it: `GET /warehouses/{warehouseId}` from a
/// warehouse's read, not from get-reference's sample (a job's), and each catalogue ID from its
/// own pattern's example (issue 52: every route of a function shared one sample's profile).
#[test]
fn each_route_and_each_pattern_is_planned_from_its_own_request() {
    for o in catalogue::OPERATIONS.iter() {
        let id = format!("{} {}", o.method.as_str(), o.path);
        let r = generic::resolve(&id).unwrap_or_else(|| panic!("{id} does not resolve"));
        assert_eq!(
            r.profile.route, id,
            "{id} is planned from {}",
            r.profile.request
        );
    }
    for p in catalogue::PATTERNS.iter().filter(|p| !p.id.is_empty()) {
        let r = generic::resolve(p.id).unwrap_or_else(|| panic!("{} does not resolve", p.id));
        assert_eq!(r.profile.pattern, p.id, "{}", r.profile.request);
    }
    let (_, heat) = plan("  - id: \"GET /warehouses/{warehouseId}\"\n    rps: 10\n");
    assert!(
        heat.keys.iter().all(|k| k.pk.starts_with("WAREHOUSE#")),
        "{:?}",
        heat.keys.iter().map(|k| &k.pk).collect::<Vec<_>>()
    );
}

/// A workload names which call of a route it means: adding a cart line is a transaction (the
/// line and the cart's line count, 2 units each), where the route's example changes a line
/// there (a refused transaction, then a 1-unit update). `shape: worst` plans the route's
/// declared worst case; a modelled pattern, or a route that declares none, refuses it.
#[test]
fn a_workload_names_the_shape_of_a_call() {
    let route = "\"PUT /carts/{cartId}/items/{productId}\"";
    let (_, example) = plan(&format!("  - id: {route}\n    rps: 10\n"));
    let (_, new_line) = plan(&format!("  - id: {route}\n    rps: 10\n    shape: worst\n"));
    let r = generic::resolve_shaped(
        "PUT /carts/{cartId}/items/{productId}",
        keys::indexes::IndexDesign::default(),
        planner::profile::Shape::Worst,
    )
    .expect("put-cart-line declares its worst case");
    let ops: Vec<&str> = r
        .profile
        .requests
        .iter()
        .map(|s| s.operation.as_str())
        .collect();
    assert_eq!(ops, ["TransactWriteItems"]);
    let writes: f64 = r.profile.requests.iter().map(|s| s.write_units()).sum();
    assert!(writes >= 4.0, "{writes}");
    assert!(
        (total(&new_line.wcu) - 10.0 * writes).abs() < 1e-6,
        "{} against {}",
        total(&new_line.wcu),
        total(&example.wcu)
    );
    assert!(total(&new_line.wcu) > total(&example.wcu));
    let refused = |patterns: &str| {
        Workload::parse(&format!(
            "name: t\nentities:\n{}patterns:\n{patterns}",
            every_population()
        ))
        .unwrap_err()
    };
    let e = refused("  - id: C3\n    rps: 1\n    shape: worst\n");
    assert!(
        e.contains("patterns[0].shape") && e.contains("model of its own"),
        "{e}"
    );
    let e = refused("  - id: get-employee\n    rps: 1\n    shape: worst\n");
    assert!(e.contains("declares no worst case"), "{e}");
}
