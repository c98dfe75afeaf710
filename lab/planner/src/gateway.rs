//! API Gateway at the peak: each route's requests a second against the throttle the HTTP API's
//! stage gives it (`template.yaml`: the route's own `RouteSettings`, else `DefaultRouteSettings`),
//! all of them against the account's throttle quota in the Region, what to set where a limit
//! stops the workload, and what the requests cost.
//!
//! What AWS documents (docs/capacity.md, "API Gateway"): API Gateway throttles with token
//! buckets; the account's quota (10,000 requests a second, a bucket of 5,000, per Region across
//! every API) bounds everything; a stage's default route throttle applies to each route that
//! has no settings of its own, and a route's own settings override it. AWS does not say in so
//! many words whether the routes under the default share one bucket or get one each: the plan
//! follows a bucket per route (as the console's "default route throttling" reads), the reading
//! that lets the most through, so a route it calls throttled is throttled under either.

use sam_template::{ApiThrottle, Throttle};

use crate::{sim, workload::Workload};

/// The account's default throttle quota per Region across every API (requests a second) and its
/// bucket (the burst); 2,500 and 1,250 in some newer Regions.
pub const ACCOUNT_RPS: u32 = 10_000;
pub const ACCOUNT_BURST: u32 = 5_000;
/// What a limit is set to above the peak: the peak and half again, as the table's guards.
pub const HEADROOM: f64 = 1.5;

/// Where a route's throttle comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Its own `RouteSettings` entry.
    Own,
    /// The stage's `DefaultRouteSettings`.
    Default,
    /// Neither: the account's quota alone.
    Account,
}

/// One route at the peak.
#[derive(Debug, Clone)]
pub struct Route {
    /// `GET /products/{sku}`.
    pub key: String,
    /// The workload's patterns on it.
    pub patterns: Vec<String>,
    pub rps: [f64; 24],
    pub source: Source,
    /// Its throttle (the stage's), `None` with [`Source::Account`].
    pub throttle: Option<Throttle>,
}

impl Route {
    /// Requests a second the route passes on: its throttle's rate, 0 where the settings are
    /// given without one (API Gateway's default for an absent value), `None` with no throttle
    /// but the account's.
    pub fn rate(&self) -> Option<f64> {
        self.throttle
            .as_ref()
            .map(|t| t.rate.as_ref().map_or(0.0, |r| r.value))
    }

    pub fn peak(&self) -> (f64, usize) {
        sim::peak(&self.rps)
    }

    /// Requests a second past its throttle at its peak (0 when it passes them all).
    pub fn throttled(&self) -> f64 {
        self.rate().map_or(0.0, |r| (self.peak().0 - r).max(0.0))
    }
}

/// A throttle's parameters to raise, and to what.
#[derive(Debug, Clone, PartialEq)]
pub struct Set {
    /// The rate's parameter, at least the peak of its hottest route with [`HEADROOM`].
    pub rate: (String, u64),
    /// The burst's parameter, twice the rate (as the template's defaults are).
    pub burst: Option<(String, u64)>,
    /// The routes that need it.
    pub routes: Vec<String>,
}

/// API Gateway's side of the plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub routes: Vec<Route>,
    /// Every route's requests together, each hour.
    pub total: [f64; 24],
    pub account_quota: u32,
    /// Whether the workload states the account's quota.
    pub quota_stated: bool,
    /// Throttle settings given without a rate or a burst: on AWS, 0 (every request a 429).
    pub unset: Vec<String>,
    /// The parameters to raise, the most each must be at least.
    pub set: Vec<Set>,
    /// What HTTP API requests cost a month.
    pub monthly: f64,
}

impl Plan {
    /// Requests a second past the account's quota at the peak.
    pub fn over_account(&self) -> f64 {
        (sim::peak(&self.total).0 - f64::from(self.account_quota)).max(0.0)
    }
}

/// Rounded up to a hundred.
fn hundreds(v: f64) -> u64 {
    ((v / 100.0).ceil() * 100.0) as u64
}

/// HTTP API requests a month, priced by the tiers of [`crate::inputs::rates`].
pub fn monthly_cost(requests: f64) -> f64 {
    use crate::inputs::rates::*;
    let first = requests.min(HTTP_API_FIRST_TIER);
    (first * HTTP_API_REQUEST + (requests - first) * HTTP_API_REQUEST_AFTER) / 1e6
}

pub fn plan(w: &Workload, heat: &sim::Heat, throttle: &ApiThrottle) -> Plan {
    let mut routes: Vec<Route> = Vec::new();
    for (pattern, rps) in &heat.rps {
        let Some(r) = crate::generic::resolve(pattern) else {
            continue;
        };
        let key = format!("{} {}", r.method, r.path);
        let route = match routes.iter_mut().find(|x| x.key == key) {
            Some(route) => route,
            None => {
                let (t, source) = match throttle.of(&key) {
                    Some((t, true)) => (Some(t.clone()), Source::Own),
                    Some((t, false)) => (Some(t.clone()), Source::Default),
                    None => (None, Source::Account),
                };
                routes.push(Route {
                    key,
                    patterns: Vec::new(),
                    rps: [0.0; 24],
                    source,
                    throttle: t,
                });
                routes.last_mut().expect("just pushed")
            }
        };
        route.patterns.push(pattern.clone());
        for (sum, rps) in route.rps.iter_mut().zip(rps) {
            *sum += rps;
        }
    }
    let total: [f64; 24] = std::array::from_fn(|h| routes.iter().map(|r| r.rps[h]).sum());
    let described = |t: &Throttle| t.rate.is_none() || t.burst.is_none();
    let mut unset = Vec::new();
    if throttle.default.as_ref().is_some_and(described) {
        unset.push("`DefaultRouteSettings`".to_owned());
    }
    for (key, t) in &throttle.routes {
        if described(t) {
            unset.push(format!("`RouteSettings` of `{key}`"));
        }
    }
    // The parameters feeding the rate of a throttled route: at least its hottest route's peak,
    // with headroom; its burst parameter twice that, as the template's defaults are.
    let mut set: Vec<Set> = Vec::new();
    for r in routes.iter().filter(|r| r.throttled() > 0.0) {
        let t = r
            .throttle
            .as_ref()
            .expect("a throttled route has a throttle");
        let Some(rate) = t.rate.as_ref().and_then(|s| s.parameter.clone()) else {
            continue;
        };
        let need = hundreds(r.peak().0 * HEADROOM);
        let burst = t.burst.as_ref().and_then(|s| s.parameter.clone());
        match set.iter_mut().find(|s| s.rate.0 == rate) {
            Some(s) => {
                s.rate.1 = s.rate.1.max(need);
                if let Some(b) = &mut s.burst {
                    b.1 = b.1.max(2 * need);
                }
                s.routes.push(r.key.clone());
            }
            None => set.push(Set {
                rate: (rate, need),
                burst: burst.map(|b| (b, 2 * need)),
                routes: vec![r.key.clone()],
            }),
        }
    }
    let seconds_per_hour = 3600.0 * crate::inputs::rates::DAYS_PER_MONTH;
    let requests: f64 = total.iter().map(|rps| rps * seconds_per_hour).sum();
    Plan {
        routes,
        total,
        account_quota: w.gateway.account_quota_rps.unwrap_or(ACCOUNT_RPS),
        quota_stated: w.gateway.account_quota_rps.is_some(),
        unset,
        set,
        monthly: monthly_cost(requests),
    }
}
