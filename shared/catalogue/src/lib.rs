//! The access-pattern catalogue, as data: every operation of the HTTP API ([`OPERATIONS`]) and
//! every access pattern it serves ([`PATTERNS`]: its ID from the mission's catalogue, the index it
//! reads, the DynamoDB request it sends, what comes back, and an example request on the seed
//! data).
//!
//! One list, several readers, none kept by hand beside it: the README's access-pattern table is
//! rendered from it ([`markdown_table`], checked by the tests crate), `openapi.yaml`'s operations
//! and summaries are checked against it, the template's routes against [`Operation::function`], and
//! the local stack's explorer lists and runs its patterns.

mod data;

pub use data::{OPERATIONS, PATTERNS};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// Where a pattern's items are read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Index {
    Table,
    Gsi1,
    Gsi2,
}

impl Index {
    pub fn as_str(self) -> &'static str {
        match self {
            Index::Table => "table",
            Index::Gsi1 => "GSI1",
            Index::Gsi2 => "GSI2",
        }
    }
}

/// One route of the HTTP API and the function behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    pub method: Method,
    /// The route's path template, as API Gateway and OpenAPI spell it: `/customers/{customerId}`.
    pub path: &'static str,
    /// The Lambda function serving it (its crate under `functions/`).
    pub function: &'static str,
    /// The operation's one-line summary, `openapi.yaml`'s exactly; it starts with the IDs of the
    /// patterns it serves ("C1: …", "L2-L6: …") when the catalogue names them.
    pub summary: &'static str,
}

/// Who sends an example request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// No token: a public route.
    Anyone,
    /// A signed-in customer or user: the token's `sub`.
    Sub(&'static str),
    /// A member of the `staff` group.
    Staff,
}

/// A request that exercises a pattern on the seed data (`make seed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    pub caller: Caller,
    /// Path and query string, percent-encoded as sent: `/customers/123?orders=2`.
    pub target: &'static str,
    /// The JSON body of a write.
    pub body: Option<&'static str>,
}

/// One access pattern: a row of the README's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// The mission catalogue's ID (`C1`, `L11`), or `""` for an operation the catalogue does not
    /// number (a write that creates reference data, a derived counter's read).
    pub id: &'static str,
    pub method: Method,
    /// The operation's path template (see [`Pattern::operation`]).
    pub path: &'static str,
    /// The route as the README shows it, in Markdown: method, path, query and body, and notes.
    pub route: &'static str,
    pub index: Index,
    /// The DynamoDB request, in Markdown: key condition, request kind, conditions.
    pub request: &'static str,
    /// What comes back, in Markdown, errors included.
    pub returns: &'static str,
    pub example: Example,
}

impl Pattern {
    /// The operation serving this pattern.
    pub fn operation(&self) -> &'static Operation {
        operation(self.method, self.path)
            .unwrap_or_else(|| panic!("{} {}: no such operation", self.method.as_str(), self.path))
    }

    /// The ID as the README shows it: "—" when the catalogue numbers none.
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

/// The README's access-pattern table, one row per pattern.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| ID | route | function | index | key condition / request | what comes back |\n\
         |---|---|---|---|---|---|\n",
    );
    for p in PATTERNS {
        let cell = |s: &str| s.replace('|', "\\|");
        out.push_str(&format!(
            "| {} | {} | `{}` | {} | {} | {} |\n",
            p.label(),
            cell(p.route),
            p.operation().function,
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
        for p in PATTERNS {
            p.operation();
            let shown = format!("`{} {}", p.method.as_str(), p.path);
            assert!(
                p.route.starts_with(&shown),
                "{}: the route {} does not start with {shown}",
                p.label(),
                p.route
            );
        }
        for o in OPERATIONS {
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
        for o in OPERATIONS {
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
        for p in PATTERNS {
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
