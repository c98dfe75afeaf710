//! Every operation the planner has no hand model of, planned from its route's profile
//! (`lab/planner/profiles.json`: what its pattern's example sent, measured through the real
//! function on DynamoDB Local; `worst-profiles.json`: the route's declared worst case, for a
//! workload's `shape: worst`): the same requests, the same units on the same indexes, each
//! partition keyed for the subject the call draws. The subject is the population the route's
//! first path parameter names (`/employees/{employeeId}`: `employees`); a partition of that
//! subject (`EMPLOYEE#<employee>`) is keyed by rank, a partition made new by each call (an order
//! id, an idempotency record) costs without heating, and any other is one key every call shares.

use crate::{
    entity::{self as subject, Entity},
    profile::{self, Profile},
    touch::{Draw, Ix, Shape, Touch, touch},
};

/// An operation resolved to its function, its route and the profile it is planned from.
#[derive(Debug, Clone, Copy)]
pub struct Resolved {
    pub function: &'static str,
    /// `GET /employees/{employeeId}`.
    pub method: &'static str,
    pub path: &'static str,
    pub subject: Option<Entity>,
    pub profile: &'static Profile,
}

impl Resolved {
    pub fn subjects(&self) -> &'static [Entity] {
        match self.subject {
            Some(e) => {
                let i = Entity::ALL.iter().position(|x| *x == e).expect("an entity");
                &Entity::ALL[i..=i]
            }
            None => &[],
        }
    }
}

/// The function serving a pattern (by catalogue ID or function name).
pub fn function_of(pattern: &str) -> &'static str {
    catalogue::PATTERNS
        .iter()
        .find(|p| p.id == pattern || p.function == pattern)
        .map(|p| p.function)
        .or_else(|| resolve(pattern).map(|r| r.function))
        .unwrap_or("?")
}

/// A catalogue ID (`H1`), a function's name (`get-employee`) or a route
/// (`GET /employees/{employeeId}`), resolved to the operation and its profile.
pub fn resolve(id: &str) -> Option<Resolved> {
    resolve_in(id, crate::inputs::index_design_default())
}

/// [`resolve`] in `design`: its pattern's example as profiled in that design (the default
/// deployment's, for a function whose requests do not depend on it).
pub fn resolve_in(id: &str, design: keys::indexes::IndexDesign) -> Option<Resolved> {
    resolve_shaped(id, design, profile::Shape::Example)
}

/// [`resolve_in`], the call as `shape` makes it: a route is planned from its own request (a
/// catalogue ID from its pattern's example, a route from its first pattern's, a function's
/// name from the function's sample), or from the route's declared worst case.
pub fn resolve_shaped(
    id: &str,
    design: keys::indexes::IndexDesign,
    shape: profile::Shape,
) -> Option<Resolved> {
    let route = id.split_once(' ').and_then(|(method, path)| {
        catalogue::OPERATIONS
            .iter()
            .find(|o| o.method.as_str() == method && o.path == path)
    });
    let (function, method, path, pattern) = if let Some(o) = route {
        (o.function, o.method.as_str(), o.path, None)
    } else {
        let p = catalogue::PATTERNS
            .iter()
            .find(|p| (!p.id.is_empty() && p.id == id) || p.function == id)?;
        let pattern = (p.id == id).then_some(p.id);
        (p.function, p.method.as_str(), p.path, pattern)
    };
    let key = format!("{method} {path}");
    let profile = match (route, pattern, shape) {
        // A function's name: its sample, on the route the sample goes to.
        (None, None, profile::Shape::Example) => profile::of_in(function, design)?,
        (None, None, profile::Shape::Worst) => {
            let sample = profile::of_in(function, design)?;
            profile::of_route_in(&sample.route, None, shape, design)?
        }
        _ => profile::of_route_in(&key, pattern, shape, design)?,
    };
    let (method, path) = profile
        .route
        .split_once(' ')
        .map_or((method, path), |(m, p)| {
            catalogue::OPERATIONS
                .iter()
                .find(|o| o.method.as_str() == m && o.path == p)
                .map_or((method, path), |o| (o.method.as_str(), o.path))
        });
    Some(Resolved {
        function,
        method,
        path,
        subject: subject_of(path),
        profile,
    })
}

/// The population a route's first path parameter names.
fn subject_of(path: &str) -> Option<Entity> {
    let param = path.split('/').find(|s| s.starts_with('{'))?;
    Some(match param.trim_matches(['{', '}']) {
        "customerId" => Entity::Customers,
        "sku" | "productId" if path.starts_with("/products") => Entity::Products,
        "orderId" => Entity::Orders,
        "isbn" => Entity::Books,
        "username" => Entity::Users,
        "repId" => Entity::Reps,
        "employeeId" => Entity::Employees,
        "warehouseId" => Entity::Warehouses,
        "cartId" => Entity::Carts,
        "course" => Entity::Courses,
        "jobId" | "departmentId" | "locationId" | "countryId" | "regionId" => Entity::References,
        _ => return None,
    })
}

/// The placeholders of the registry's key forms that hold a subject of `e`.
fn placeholders(e: Entity) -> &'static [&'static str] {
    match e {
        Entity::Customers => &["<customer>"],
        Entity::Products => &["<sku>"],
        Entity::Orders => &["<order:ulid>", "<order>"],
        Entity::Books => &["<isbn>"],
        Entity::Users => &["<user>"],
        Entity::Reps => &["<rep>"],
        Entity::Employees => &["<employee>"],
        Entity::Warehouses => &["<warehouse>"],
        Entity::Carts => &["<cart>"],
        Entity::Courses => &["<course>"],
        Entity::References => &["<id>", "<job>"],
        Entity::Students => &["<student>"],
    }
}

/// Placeholders each call fills anew: such a partition costs but never heats up.
const FRESH: &[&str] = &["<order:ulid>", "<event_id>", "<key>", "<ulid>"];

/// The rank-k subject of `e` as its keys spell it: the hand-modelled patterns' keys for the
/// populations they share (so that heat adds up on the same partition).
fn subject_text(e: Entity, k: u64) -> String {
    match e {
        Entity::Customers => subject::customer_id(k).as_str().to_owned(),
        Entity::Products => segment(&keys::commerce::product(subject::sku(k))),
        Entity::Orders => subject::order_id(k).to_string(),
        Entity::Books => segment(&keys::reviews::book(&subject::isbn(k))),
        Entity::Users => subject::user_id(k).as_str().to_owned(),
        Entity::Reps => subject::rep_id(k).as_str().to_owned(),
        Entity::Employees => format!("E{k:07}"),
        Entity::Warehouses => format!("W{k:05}"),
        Entity::Carts => format!("cart-{k}"),
        Entity::Courses => format!("course-{k}"),
        Entity::References => format!("REF{k:05}"),
        Entity::Students => format!("student-{k}"),
    }
}

/// What a one-subject key's builder puts after its tag (`PRODUCT#000000000042`: the SKU as its
/// keys spell it), so the spelling is the builder's, not a copy of it.
fn segment(key: &keys::PrimaryKey) -> String {
    key.pk()
        .split_once(keys::DELIMITER)
        .map_or(key.pk(), |(_, rest)| rest)
        .to_owned()
}

/// One partition's share of one call, from the profile.
#[derive(Debug, Clone)]
struct Spec {
    index: Ix,
    form: &'static str,
    rcu: f64,
    wcu: f64,
    items: f64,
    handler: bool,
}

fn specs(p: &'static Profile) -> Vec<Spec> {
    let mut out = Vec::new();
    let sent = p
        .requests
        .iter()
        .map(|s| (s, false))
        .chain(p.fanout.iter().map(|s| (s, true)));
    for (s, handler) in sent {
        let index = Ix(s.index.as_str());
        if s.read_units > 0.0 {
            // A BatchGetItem's units and items, shared over the partitions it read.
            let n = s.reads.len().max(1) as f64;
            for form in &s.reads {
                out.push(Spec {
                    index,
                    form: form.as_str(),
                    rcu: s.read_units / n,
                    wcu: 0.0,
                    items: s.items as f64 / n,
                    handler,
                });
            }
        }
        for w in &s.writes {
            out.push(Spec {
                index: Ix(w.index.as_str()),
                form: w.pk.as_str(),
                rcu: 0.0,
                wcu: w.units,
                items: 0.0,
                handler,
            });
        }
    }
    out
}

/// One call of the operation, as draws: the subject's partitions by rank, the rest fixed.
pub fn draws<'a>(r: Resolved) -> Vec<Draw<'a>> {
    let all = specs(r.profile);
    let subject = r.subject;
    let own =
        move |s: &Spec| subject.is_some_and(|e| placeholders(e).iter().any(|p| s.form.contains(p)));
    let (mine, rest): (Vec<Spec>, Vec<Spec>) = all.into_iter().partition(|s| own(s));
    let build = |s: &Spec, pk: &str| Touch {
        rcu: s.rcu,
        wcu: s.wcu,
        items: s.items,
        handler: s.handler,
        ..touch(s.index, pk, s.form, Shape::Collection)
    };
    let mut out = Vec::new();
    if let Some(e) = subject
        && !mine.is_empty()
    {
        out.push(Draw {
            from: Some(e),
            per_call: 1.0,
            touches: Box::new(move |k| {
                let text = subject_text(e, k);
                mine.iter()
                    .map(|s| {
                        let pk = placeholders(e)
                            .iter()
                            .fold(s.form.to_owned(), |pk, p| pk.replace(p, &text));
                        build(s, &pk)
                    })
                    .collect()
            }),
        });
    }
    if !rest.is_empty() {
        out.push(Draw {
            from: None,
            per_call: 1.0,
            touches: Box::new(move |_| {
                rest.iter()
                    .map(|s| {
                        let t = build(s, s.form);
                        if FRESH.iter().any(|f| s.form.contains(f)) {
                            t.fresh()
                        } else {
                            t.shared()
                        }
                    })
                    .collect()
            }),
        });
    }
    out
}
