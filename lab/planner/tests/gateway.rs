//! API Gateway in the plan (issue 52, section 2): each route's peak against the throttle the
//! template's stage gives it, every route against the account's quota, what to set, the
//! settings that throttle everything, the requests' cost, and each index's warm throughput.

mod common;

use common::{markdown, parse, plan as heat};
use planner::{Workload, gateway};
use sam_template::{ApiThrottle, Template};

fn throttle() -> ApiThrottle {
    Template::workspace().unwrap().api_throttle
}

/// A flat day: 300 a second of C4 and 200 of its by-status variant share one route, whose
/// default throttle (50, `ApiRateLimit`) lets 50 through; 30 of the public O13 pass its own 20.
/// Hand arithmetic: 500 - 50 = 450 and 30 - 20 = 10 answered 429; `ApiRateLimit` at least 500
/// and half again, 750, its burst 1,500; `PublicRouteRateLimit` 45 rounded up to 100.
const SMALL: &str = "
name: small
entities:
  customers: {count: 100000}
  products: {count: 1000}
  orders: {count: 1000000}
patterns:
  - {id: C4, rps: 300}
  - {id: C4 by status, rps: 200}
  - {id: O13, rps: 30}
";

#[test]
fn each_route_is_held_to_its_own_throttle_or_the_default() {
    let w = parse(SMALL);
    let g = gateway::plan(&w, &heat(&w), &throttle());
    assert_eq!(g.routes.len(), 2, "{:?}", g.routes);
    let orders = g
        .routes
        .iter()
        .find(|r| r.key == "GET /customers/{customerId}/orders")
        .unwrap();
    assert_eq!(orders.patterns, ["C4", "C4 by status"]);
    assert_eq!(orders.source, gateway::Source::Default);
    assert_eq!(orders.rate(), Some(50.0));
    assert!(
        (orders.throttled() - 450.0).abs() < 1e-6,
        "{}",
        orders.throttled()
    );
    let product = g
        .routes
        .iter()
        .find(|r| r.key == "GET /products/{sku}")
        .unwrap();
    assert_eq!(product.source, gateway::Source::Own);
    assert_eq!(product.rate(), Some(20.0));
    assert!((product.throttled() - 10.0).abs() < 1e-6);
    let set: Vec<_> = g
        .set
        .iter()
        .map(|s| (s.rate.clone(), s.burst.clone()))
        .collect();
    assert_eq!(
        set,
        [
            (
                ("ApiRateLimit".to_owned(), 800),
                Some(("ApiBurstLimit".to_owned(), 1600))
            ),
            (
                ("PublicRouteRateLimit".to_owned(), 100),
                Some(("PublicRouteBurstLimit".to_owned(), 200))
            ),
        ]
    );
    assert_eq!(g.over_account(), 0.0);
    let md = markdown(&w, &heat(&w));
    assert!(
        md.contains(
            "**API Gateway, before any of DynamoDB's limits: 2 of 2 routes past their throttle**"
        ),
        "{md}"
    );
    assert!(
        md.contains("`ApiRateLimit=800` and `ApiBurstLimit=1600`"),
        "{md}"
    );
}

/// `DefaultRouteSettings` without throttle values: API Gateway reads the absent values as 0, so
/// every route under it refuses every request, and the plan says so.
#[test]
fn default_route_settings_without_values_throttle_everything() {
    let text =
        std::fs::read_to_string(sam_template::workspace_root().join("template.yaml")).unwrap();
    let stripped = text.replace(
        "        ThrottlingRateLimit: !Ref ApiRateLimit\n        ThrottlingBurstLimit: !Ref ApiBurstLimit\n",
        "        DetailedMetricsEnabled: true\n",
    );
    assert_ne!(stripped, text, "the template's DefaultRouteSettings moved");
    let t = Template::parse(&stripped).unwrap();
    let w = parse(SMALL);
    let g = gateway::plan(&w, &heat(&w), &t.api_throttle);
    assert_eq!(g.unset, ["`DefaultRouteSettings`"]);
    let orders = g
        .routes
        .iter()
        .find(|r| r.source == gateway::Source::Default)
        .unwrap();
    assert_eq!(orders.rate(), Some(0.0));
    assert!((orders.throttled() - 500.0).abs() < 1e-6);
    // No parameter feeds an absent rate: nothing to raise, the settings to give.
    assert!(g.set.iter().all(|s| s.rate.0 != "ApiRateLimit"));
}

/// Every route together against the account's quota: 10,000 by default, the workload's when it
/// states one.
#[test]
fn the_account_s_quota_bounds_every_route_together() {
    let busy = "
name: busy
entities:
  customers: {count: 1000000}
  products: {count: 100000}
  orders: {count: 1000000}
patterns:
  - {id: C1, rps: 8000}
  - {id: O13, rps: 4000}
";
    let w = parse(busy);
    let h = heat(&w);
    let g = gateway::plan(&w, &h, &throttle());
    assert_eq!(g.account_quota, gateway::ACCOUNT_RPS);
    assert!(
        (g.over_account() - 2_000.0).abs() < 1e-6,
        "{}",
        g.over_account()
    );
    assert!(markdown(&w, &h).contains("request a quota of at least 18,000 a second"));
    let w = parse(&format!("{busy}gateway: {{account_quota_rps: 20000}}\n"));
    let g = gateway::plan(&w, &heat(&w), &throttle());
    assert_eq!(g.over_account(), 0.0);
}

/// A route without any stage settings runs under the account's quota alone.
#[test]
fn a_stage_without_settings_leaves_the_account_s_quota() {
    let w = parse(SMALL);
    let g = gateway::plan(&w, &heat(&w), &ApiThrottle::default());
    assert!(
        g.routes
            .iter()
            .all(|r| r.rate().is_none() && r.throttled() == 0.0)
    );
    assert!(g.set.is_empty() && g.unset.is_empty());
}

/// HTTP API requests priced by their tiers: $1.00 a million for the first 300 million a month,
/// $0.90 after. A flat 200 a second is 200 × 3,600 × 24 × 30.4 = 525.312 million: $300 +
/// 225.312 × $0.90 = $502.78.
#[test]
fn requests_are_priced_by_the_tiers() {
    assert!((gateway::monthly_cost(100e6) - 100.0).abs() < 1e-9);
    let w = parse(
        "name: x\nentities:\n  customers: {count: 1000}\npatterns:\n  - {id: C1, rps: 200}\n",
    );
    let g = gateway::plan(&w, &heat(&w), &throttle());
    assert!((g.monthly - 502.7808).abs() < 1e-3, "{}", g.monthly);
}

/// Every shipped workload's plan names API Gateway's limits, and what to set where a limit stops
/// it; commerce peak asks for more than the account's default quota.
#[test]
fn the_shipped_plans_name_api_gateway_s_limits() {
    let dir = sam_template::workspace_root().join("lab/planner/reports");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let md = std::fs::read_to_string(&path).unwrap();
        assert!(
            md.contains("## API Gateway at the peak"),
            "{}",
            path.display()
        );
        assert!(
            md.contains("| API Gateway (HTTP API) |"),
            "{}",
            path.display()
        );
        if md.contains("answered 429") {
            assert!(
                md.contains("Set (`sam deploy --parameter-overrides`)"),
                "{}",
                path.display()
            );
        }
    }
    let commerce = std::fs::read_to_string(dir.join("commerce-peak.md")).unwrap();
    assert!(
        commerce.contains("`PublicRouteRateLimit=67500`"),
        "{commerce}"
    );
    assert!(commerce.contains("past the account's quota of 10,000 requests a second"));
}

/// Each index of `Table` warms on its own parameters, and the plan names them: GSI1's for
/// commerce peak's order lines.
#[test]
fn an_index_past_a_new_index_is_warmed_by_its_own_parameters() {
    let t = Template::workspace_with(&[
        ("Gsi1WarmReadUnitsPerSecond", "12000"),
        ("Gsi1WarmWriteUnitsPerSecond", "25000"),
    ])
    .unwrap();
    let gsi1 = t
        .table
        .global_indexes
        .iter()
        .find(|i| i.name == "GSI1")
        .unwrap();
    let (read, write) = gsi1.warm.as_ref().expect("GSI1 warmed when both are set");
    assert_eq!((read.value, write.value), (12000.0, 25000.0));
    assert_eq!(
        write.parameter.as_deref(),
        Some("Gsi1WarmWriteUnitsPerSecond")
    );
    // Unset (the defaults): no warm throughput deployed, the parameters still declared.
    let t = Template::workspace().unwrap();
    assert!(t.table.global_indexes.iter().all(|i| i.warm.is_none()));
    let path = sam_template::workspace_root().join("lab/planner/workloads/commerce-peak.yaml");
    let w = Workload::load(&path).unwrap();
    let md = markdown(&w, &heat(&w));
    assert!(
        md.contains("`Gsi1WarmReadUnitsPerSecond=12000` and `Gsi1WarmWriteUnitsPerSecond=25000`"),
        "{md}"
    );
}
