//! The access-pattern catalogue: every function of the four contexts, as each declares itself
//! beside its handler (`FUNCTION` of an API function, `CONSUMER` of a stream handler), collected
//! here for their readers. Nothing is listed twice: the access-pattern table in
//! `docs/access-patterns.md` is rendered from it ([`markdown_table`]), `openapi.yaml` is generated
//! from it and the routes' contracts ([`openapi`]), and so are `template.yaml`'s functions, from it
//! and `template-frame.yaml` ([`template`]), the tests dispatch requests by function name through it ([`handle`]), and the
//! local stack's explorer lists and runs its patterns.

pub mod openapi;
pub mod template;

use std::sync::LazyLock;

pub use api::function::{Example, Index, Method, Sender};
use api::{Function, Route};
use lambda_http::{Body, Request, Response};
use store::Deps;
use stream_handler::Consumer;

/// The contexts (`keys`' names), in the order the catalogue shows them.
const CONTEXT_NAMES: [&str; 4] = ["commerce", "reviews", "learning", "hr"];

/// Every context's API functions, in [`CONTEXT_NAMES`]' order.
const CONTEXTS: [&[&Function]; 4] = [
    commerce::FUNCTIONS,
    reviews::FUNCTIONS,
    learning::FUNCTIONS,
    hr::FUNCTIONS,
];

/// Every context's routes' contracts (each function module's `CONTRACTS`, one per route), in
/// [`CONTEXT_NAMES`]' order, each context's in its functions' order.
const CONTRACTS: [&[&[api::contract::Contract]]; 4] = [
    commerce::CONTRACTS,
    reviews::CONTRACTS,
    learning::CONTRACTS,
    hr::CONTRACTS,
];

/// Every API function, context by context, each context's in its modules' order (its binaries'
/// names', `functions/build.rs`); readers get the routes in [`reading_order`] ([`ROUTES`]).
pub static FUNCTIONS: LazyLock<Vec<&'static Function>> = LazyLock::new(|| CONTEXTS.concat());

/// Where a route stands among its context's routes in every list a reader gets (the
/// access-pattern table, `openapi.yaml`, the worst-case table, the explorer): by path, then
/// method, so that a resource's routes stand together whatever the modules are called.
pub fn reading_order(route: &Route) -> (&'static str, Method) {
    (route.path, route.method)
}

/// Every route with its function, context by context, each context's in [`reading_order`].
pub static ROUTES: LazyLock<Vec<(&'static Function, &'static Route)>> = LazyLock::new(|| {
    CONTEXTS
        .iter()
        .flat_map(|functions| {
            let mut routes: Vec<_> = functions
                .iter()
                .flat_map(|f| f.routes.iter().map(move |r| (*f, r)))
                .collect();
            routes.sort_by_key(|(_, r)| reading_order(r));
            routes
        })
        .collect()
});

/// Every stream handler.
pub static CONSUMERS: LazyLock<Vec<&'static Consumer>> =
    LazyLock::new(|| [commerce::CONSUMERS, reviews::CONSUMERS].concat());

/// One route of the HTTP API and the function behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    pub method: Method,
    /// The route's path template, as API Gateway and OpenAPI spell it: `/customers/{customerId}`.
    pub path: &'static str,
    /// The Lambda function serving it.
    pub function: &'static str,
    /// The operation's one-line summary, `openapi.yaml`'s exactly.
    pub summary: &'static str,
}

/// Every operation, in the order of [`ROUTES`].
pub static OPERATIONS: LazyLock<Vec<Operation>> = LazyLock::new(|| {
    ROUTES
        .iter()
        .map(|(f, r)| Operation {
            method: r.method,
            path: r.path,
            function: f.name,
            summary: r.summary,
        })
        .collect()
});

/// One access pattern with its route: a row of the access-pattern table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// The mission catalogue's ID, or `""` (see [`api::function::Pattern::id`]).
    pub id: &'static str,
    pub method: Method,
    /// The operation's path template.
    pub path: &'static str,
    /// The function serving it.
    pub function: &'static str,
    /// The route as the table shows it, in Markdown.
    pub route: &'static str,
    pub index: Index,
    /// The DynamoDB request, in Markdown.
    pub request: &'static str,
    /// What comes back, in Markdown.
    pub returns: &'static str,
    pub example: Example,
}

/// Every access pattern, in the order of [`ROUTES`] (a route's in their declared order).
pub static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    ROUTES
        .iter()
        .flat_map(|(f, r)| {
            r.patterns.iter().map(move |p| Pattern {
                id: p.id,
                method: r.method,
                path: r.path,
                function: f.name,
                route: p.route,
                index: p.index,
                request: p.request,
                returns: p.returns,
                example: p.example,
            })
        })
        .collect()
});

impl Pattern {
    /// The operation serving this pattern.
    pub fn operation(&self) -> &'static Operation {
        operation(self.method, self.path)
            .unwrap_or_else(|| panic!("{} {}: no such operation", self.method.as_str(), self.path))
    }

    /// The ID as the table shows it: "—" when the catalogue numbers none.
    pub fn label(&self) -> &'static str {
        if self.id.is_empty() { "—" } else { self.id }
    }
}

/// The operation of a method and path template.
pub fn operation(method: Method, path: &str) -> Option<&'static Operation> {
    OPERATIONS
        .iter()
        .find(|o| o.method == method && o.path == path)
}

/// The API function of this name.
pub fn function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().copied().find(|f| f.name == name)
}

/// A route's contract: its module's `CONTRACTS`, which hold one per route in `FUNCTION`'s order.
pub fn contract(function: &Function, route: &Route) -> &'static api::contract::Contract {
    let (f, contracts) = CONTEXTS
        .into_iter()
        .zip(CONTRACTS)
        .flat_map(|(functions, contracts)| functions.iter().zip(contracts.iter()))
        .find(|(f, _)| f.name == function.name)
        .unwrap_or_else(|| panic!("{}: no such function", function.name));
    let at = f
        .routes
        .iter()
        .position(|r| r.method == route.method && r.path == route.path)
        .unwrap_or_else(|| panic!("{}: no route {}", f.name, route.path));
    &contracts[at]
}

/// The stream handler of this name.
pub fn consumer(name: &str) -> Option<&'static Consumer> {
    CONSUMERS.iter().copied().find(|c| c.name == name)
}

/// The context (`keys`' name: `commerce`, `reviews`, `learning`, `hr`) a function or stream
/// handler belongs to: whose table it uses with `TableLayout` table-per-context.
pub fn context(name: &str) -> Option<&'static str> {
    let functions = CONTEXT_NAMES.into_iter().zip(CONTEXTS);
    let consumers = [
        ("commerce", commerce::CONSUMERS),
        ("reviews", reviews::CONSUMERS),
    ];
    functions
        .filter(|(_, fs)| fs.iter().any(|f| f.name == name))
        .map(|(c, _)| c)
        .chain(
            consumers
                .into_iter()
                .filter(|(_, cs)| cs.iter().any(|c| c.name == name))
                .map(|(c, _)| c),
        )
        .next()
}

/// The answer of the API function named `function` to `req`, as its `main` gives it (authorized
/// as it declares), with `deps`; `None` for a name no context has.
pub async fn handle(function: &str, deps: &Deps, req: Request) -> Option<Response<Body>> {
    let holds = |functions: &[&Function]| functions.iter().any(|f| f.name == function);
    if holds(commerce::FUNCTIONS) {
        Box::pin(commerce::handle(function, deps, req)).await
    } else if holds(reviews::FUNCTIONS) {
        Box::pin(reviews::handle(function, deps, req)).await
    } else if holds(learning::FUNCTIONS) {
        Box::pin(learning::handle(function, deps, req)).await
    } else {
        Box::pin(hr::handle(function, deps, req)).await
    }
}

/// A stream handler's batch response to `event`, with `deps`; `None` for a name no context has.
pub async fn handle_batch(
    consumer: &str,
    deps: &Deps,
    event: stream_handler::Event,
) -> Option<stream_handler::BatchResponse> {
    if commerce::CONSUMERS.iter().any(|c| c.name == consumer) {
        Box::pin(commerce::handle_batch(consumer, deps, event)).await
    } else {
        Box::pin(reviews::handle_batch(consumer, deps, event)).await
    }
}

/// The access-pattern table, one row per pattern.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| ID | route | function | index | key condition / request | what comes back |\n\
         |---|---|---|---|---|---|\n",
    );
    for p in PATTERNS.iter() {
        let cell = |s: &str| s.replace('|', "\\|");
        out.push_str(&format!(
            "| {} | {} | `{}` | {} | {} | {} |\n",
            p.label(),
            cell(p.route),
            p.function,
            p.index.as_str(),
            cell(p.request),
            cell(p.returns),
        ));
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The mission's catalogue (MISSION.md §3): every ID must be served.
    const MISSION_IDS: &[&str] = &[
        "C1", "C2", "C3", "C4", "C5", "C6", "C7", "O5", "O8", "O9", "O10", "O12", "O13", "O14",
        "H1", "H2", "H3", "H6", "H7", "H11", "R1", "R2", "R3", "R4", "L1", "L2", "L3", "L4", "L5",
        "L6", "L7", "L8", "L9", "L10", "L11", "L12", "L13",
    ];

    /// The catalogue ID a pattern's `id` names ("C4 by status" is a variant of C4).
    fn base_id(id: &str) -> &str {
        id.split(' ').next().unwrap_or(id)
    }

    #[test]
    fn every_catalogue_id_is_served_and_no_other() {
        let served: BTreeSet<&str> = PATTERNS
            .iter()
            .filter(|p| !p.id.is_empty())
            .map(|p| base_id(p.id))
            .collect();
        let wanted: BTreeSet<&str> = MISSION_IDS.iter().copied().collect();
        assert_eq!(served, wanted);
    }

    #[test]
    fn every_pattern_has_its_operation_and_every_operation_a_pattern() {
        for p in PATTERNS.iter() {
            p.operation();
            let shown = format!("`{} {}", p.method.as_str(), p.path);
            assert!(
                p.route.starts_with(&shown),
                "{}: the route {} does not start with {shown}",
                p.label(),
                p.route
            );
        }
        for o in OPERATIONS.iter() {
            assert!(
                PATTERNS
                    .iter()
                    .any(|p| p.method == o.method && p.path == o.path),
                "{} {}: no pattern",
                o.method.as_str(),
                o.path
            );
        }
        let routes: BTreeSet<_> = OPERATIONS.iter().map(|o| (o.method, o.path)).collect();
        assert_eq!(routes.len(), OPERATIONS.len(), "an operation twice");
    }

    #[test]
    fn a_summary_starts_with_the_ids_of_its_patterns() {
        for o in OPERATIONS.iter() {
            let ids: Vec<&str> = PATTERNS
                .iter()
                .filter(|p| p.method == o.method && p.path == o.path && !p.id.is_empty())
                .map(|p| base_id(p.id))
                .collect();
            for id in &ids {
                let label = o.summary.split(':').next().unwrap_or("");
                assert!(
                    label.split([',', ' ', '(', ')']).any(|w| w == *id)
                        || label_range_holds(label, id),
                    "{} {}: the summary {:?} does not name {id}",
                    o.method.as_str(),
                    o.path,
                    o.summary
                );
            }
        }
    }

    /// Whether a label such as `L2-L6` covers `id` (same letter, number in the range).
    fn label_range_holds(label: &str, id: &str) -> bool {
        let Some((from, to)) = label.split_once('-') else {
            return false;
        };
        let split = |s: &str| -> Option<(char, u32)> {
            let letter = s.chars().next()?;
            Some((letter, s[1..].parse().ok()?))
        };
        match (split(from), split(to), split(id)) {
            (Some((a, lo)), Some((b, hi)), Some((c, n))) => a == b && b == c && lo <= n && n <= hi,
            _ => false,
        }
    }

    #[test]
    fn every_example_fits_its_route() {
        for p in PATTERNS.iter() {
            let path = p.example.target.split('?').next().unwrap_or_default();
            let concrete: Vec<&str> = path.split('/').collect();
            let template: Vec<&str> = p.path.split('/').collect();
            assert_eq!(concrete.len(), template.len(), "{}: {}", p.label(), path);
            for (t, c) in template.iter().zip(&concrete) {
                assert!(
                    (t.starts_with('{') && !c.is_empty()) || t == c,
                    "{}: {} does not fit {}",
                    p.label(),
                    path,
                    p.path
                );
            }
            assert_eq!(
                p.example.body.is_some(),
                matches!(p.method, Method::Put | Method::Post),
                "{}: a write has a body, a read none",
                p.label()
            );
            if let Some(body) = p.example.body {
                assert!(
                    body.starts_with('{') && body.ends_with('}'),
                    "{}",
                    p.label()
                );
            }
        }
    }

    #[test]
    fn the_table_has_a_row_per_pattern_and_escapes_pipes() {
        let table = markdown_table();
        assert_eq!(table.lines().count(), PATTERNS.len() + 2);
        for line in table.lines().skip(2) {
            assert_eq!(line.matches(" | ").count(), 5, "{line}");
        }
    }
}
