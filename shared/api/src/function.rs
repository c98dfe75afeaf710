//! What an API function declares about itself, once, beside its handler: its name, who may call
//! it, what it needs, its routes and the access patterns each route serves. Everything else is
//! read from this declaration: its `main` (`serve(&FUNCTION, handle)`), its metrics' `Pattern`,
//! the catalogue and its generated tables, the tests' dispatch, the explorer's list.

use store::Needs;

use crate::Access;

/// An API function: one Lambda, its binary `name`, its template resource (`GetCustomerFunction`
/// for `get-customer`) and its sample event `events/<name>.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    pub name: &'static str,
    pub access: Access,
    pub needs: Needs,
    /// The routes it serves (one for every function but the reference data's writer).
    pub routes: &'static [Route],
}

impl Function {
    /// A function of one route, as most are: it needs the table, and the cursor key when its
    /// route pages ([`Route::paged`]); [`Function::needs`] adds what else it reads.
    pub const fn one(name: &'static str, access: Access, route: &'static Route) -> Function {
        Function {
            name,
            access,
            needs: Needs {
                cursors: route.page.is_some(),
                ..Needs::TABLE
            },
            routes: std::slice::from_ref(route),
        }
    }

    /// The same, needing `needs` too (shards, its context's settings).
    pub const fn needs(self, needs: Needs) -> Function {
        Function {
            needs: Needs {
                cursors: self.needs.cursors || needs.cursors,
                ..needs
            },
            ..self
        }
    }
}

/// One route of the HTTP API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub method: Method,
    /// The path template, as API Gateway and OpenAPI spell it: `/customers/{customerId}`.
    pub path: &'static str,
    /// The one-line summary, `openapi.yaml`'s exactly; it starts with the IDs of the patterns it
    /// serves ("C1: …", "L2-L6: …") when the catalogue numbers them.
    pub summary: &'static str,
    pub patterns: &'static [Pattern],
    /// A paginated route's page size ([`Route::paged`]); `None` for one answer.
    pub page: Option<Page>,
}

/// The page size of a paginated route: `?limit=` from 1 to `max`, `default` when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub default: u32,
    pub max: u32,
}

impl Page {
    /// The most items a page of any route holds.
    pub const MAX: u32 = 100;
}

impl Route {
    /// The route, paginated: `?limit=` from 1 to [`Page::MAX`] (`default` when absent) and a
    /// `cursor`, the previous page's `nextCursor`.
    pub const fn paged(self, default: u32) -> Route {
        Route {
            page: Some(Page {
                default,
                max: Page::MAX,
            }),
            ..self
        }
    }

    /// A `GET` route.
    pub const fn get(
        path: &'static str,
        summary: &'static str,
        patterns: &'static [Pattern],
    ) -> Route {
        Route {
            method: Method::Get,
            path,
            summary,
            patterns,
            page: None,
        }
    }

    /// A `PUT` route.
    pub const fn put(
        path: &'static str,
        summary: &'static str,
        patterns: &'static [Pattern],
    ) -> Route {
        Route {
            method: Method::Put,
            path,
            summary,
            patterns,
            page: None,
        }
    }

    /// A `POST` route.
    pub const fn post(
        path: &'static str,
        summary: &'static str,
        patterns: &'static [Pattern],
    ) -> Route {
        Route {
            method: Method::Post,
            path,
            summary,
            patterns,
            page: None,
        }
    }

    /// A `DELETE` route.
    pub const fn delete(
        path: &'static str,
        summary: &'static str,
        patterns: &'static [Pattern],
    ) -> Route {
        Route {
            method: Method::Delete,
            path,
            summary,
            patterns,
            page: None,
        }
    }
}

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

/// One access pattern a route serves: a row of the access-pattern table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// The mission catalogue's ID (`C1`, `L11`, `C4 by status` for a variant), or `""` for an
    /// operation the catalogue does not number (a write that creates reference data, a derived
    /// counter's read).
    pub id: &'static str,
    /// The route as the table shows it, in Markdown: method, path, query and body, and notes.
    pub route: &'static str,
    pub index: Index,
    /// The DynamoDB request, in Markdown: key condition, request kind, conditions.
    pub request: &'static str,
    /// What comes back, in Markdown, errors included.
    pub returns: &'static str,
    pub example: Example,
}

/// Where a pattern's items are read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Index {
    Table,
    Gsi1,
    Gsi2,
    /// A multi-attribute index, by its name (`keys::indexes`).
    Multi(&'static str),
}

impl Index {
    pub fn as_str(self) -> &'static str {
        match self {
            Index::Table => "table",
            Index::Gsi1 => "GSI1",
            Index::Gsi2 => "GSI2",
            Index::Multi(name) => name,
        }
    }
}

/// A request that exercises a pattern on the seed data (`make seed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    pub caller: Sender,
    /// Path and query string, percent-encoded as sent: `/customers/123?orders=2`.
    pub target: &'static str,
    /// The JSON body of a write.
    pub body: Option<&'static str>,
    /// Headers beyond the caller's token (`Idempotency-Key`).
    pub headers: &'static [(&'static str, &'static str)],
}

/// What builds a [`Worst`] ([`crate::contract::Contract::worst`]): contracts are alike when
/// they name the same builder.
#[derive(Debug, Clone, Copy)]
pub struct WorstCase(pub(crate) fn() -> Worst);

impl WorstCase {
    pub fn build(self) -> Worst {
        (self.0)()
    }
}

impl PartialEq for WorstCase {
    fn eq(&self, other: &WorstCase) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for WorstCase {}

/// A write route's or a public read's costliest request, for `make cost`'s worst-case table:
/// its body, or the items it reads, at the limits the handlers allow (built from the handler's own constants), after the requests that
/// make it possible. Its strings are leaked: built once per test run.
#[derive(Debug, Clone)]
pub struct Worst {
    /// What makes it the worst, for the table: `48 lines, under an account rep`.
    pub what: String,
    /// Requests first, each to the only route of the function named.
    pub setup: Vec<(&'static str, Example)>,
    pub request: Example,
    /// The status it answers when not a success (a read's worst case can be a miss: 404).
    pub status: Option<u16>,
}

impl Example {
    /// A request with no token.
    pub const fn anyone(target: &'static str) -> Example {
        Example {
            caller: Sender::Anyone,
            target,
            body: None,
            headers: &[],
        }
    }

    /// A request signed in as `sub`.
    pub const fn sub(sub: &'static str, target: &'static str) -> Example {
        Example {
            caller: Sender::Sub(sub),
            target,
            body: None,
            headers: &[],
        }
    }

    /// A request signed in as staff.
    pub const fn staff(target: &'static str) -> Example {
        Example {
            caller: Sender::Staff,
            target,
            body: None,
            headers: &[],
        }
    }

    /// The request with these headers.
    pub const fn with_headers(self, headers: &'static [(&'static str, &'static str)]) -> Example {
        Example { headers, ..self }
    }

    /// The request with a JSON body (a write).
    pub const fn with_body(self, body: &'static str) -> Example {
        Example {
            body: Some(body),
            ..self
        }
    }
}

impl Worst {
    /// `request`, the costliest, for `what` reason; nothing to do first.
    pub fn new(what: impl Into<String>, request: Example) -> Worst {
        Worst {
            what: what.into(),
            setup: Vec::new(),
            request,
            status: None,
        }
    }

    /// The same, answered with `status` (a read of what does not exist: 404).
    pub fn answered(self, status: u16) -> Worst {
        Worst {
            status: Some(status),
            ..self
        }
    }

    /// The same, after the request `example` to function `function`'s only route.
    pub fn after(mut self, function: &'static str, example: Example) -> Worst {
        self.setup.push((function, example));
        self
    }
}

/// `chars` characters of 4 UTF-8 bytes each (U+20BB7, a letter): the most bytes a text field of
/// that many characters holds, for worst cases.
pub fn widest_text(chars: usize) -> String {
    "\u{20BB7}".repeat(chars)
}

/// `text` as one segment of a request's path (or a query value), percent-encoded: every byte but
/// ASCII letters, digits and `-._~`.
pub fn path_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A worst case's text, for an [`Example`]'s `&'static str`.
pub fn leak(text: String) -> &'static str {
    text.leak()
}

/// Who sends an example request (not [`crate::Caller`], who calls a running function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sender {
    /// No token: a public route.
    Anyone,
    /// A signed-in customer or user: the token's `sub`.
    Sub(&'static str),
    /// A member of the `staff` group.
    Staff,
}

impl Function {
    /// The page size its paginated routes declare (a function's routes page alike). Panics if
    /// it declares none.
    pub const fn page(&self) -> Page {
        let mut i = 0;
        while i < self.routes.len() {
            if let Some(page) = self.routes[i].page {
                return page;
            }
            i += 1;
        }
        panic!("a function without a paginated route has no page size")
    }

    /// The `Pattern` its metrics are counted under: the catalogue ID of the patterns it serves
    /// (`C1`; a run of one letter's numbers as a range, `L2-L6`; others joined, `H2/H6/H11`),
    /// or its own name when it serves no numbered pattern; one pattern keeps its whole ID (`H3
    /// history`). A handler serving several names the one of each invocation with
    /// [`crate::count_as_pattern`].
    pub fn metrics_pattern(&self) -> String {
        let mut patterns = self.routes.iter().flat_map(|r| r.patterns);
        if let (Some(only), None) = (patterns.next(), patterns.next())
            && !only.id.is_empty()
        {
            return only.id.to_owned();
        }
        let mut ids: Vec<&str> = Vec::new();
        for p in self.routes.iter().flat_map(|r| r.patterns) {
            let id = p.id.split(' ').next().unwrap_or(p.id);
            if !id.is_empty() && !ids.contains(&id) {
                ids.push(id);
            }
        }
        let number = |id: &str| -> Option<(char, u32)> {
            Some((id.chars().next()?, id.get(1..)?.parse().ok()?))
        };
        let numbers: Option<Vec<(char, u32)>> = ids.iter().map(|id| number(id)).collect();
        let is_run = numbers.is_some_and(|n| {
            n.windows(2)
                .all(|w| w[0].0 == w[1].0 && w[1].1 == w[0].1 + 1)
        });
        match ids.as_slice() {
            [] => self.name.to_owned(),
            [one] => (*one).to_owned(),
            [first, .., last] if is_run => format!("{first}-{last}"),
            many => many.join("/"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serving(ids: &'static [&'static str]) -> String {
        let patterns: Vec<Pattern> = ids
            .iter()
            .map(|id| Pattern {
                id,
                route: "",
                index: Index::Table,
                request: "",
                returns: "",
                example: Example::anyone(""),
            })
            .collect();
        let routes = [Route {
            method: Method::Get,
            path: "/x",
            summary: "",
            patterns: patterns.leak(),
            page: None,
        }];
        Function {
            name: "the-function",
            access: Access::Public,
            needs: Needs::TABLE,
            routes: routes.to_vec().leak(),
        }
        .metrics_pattern()
    }

    #[test]
    fn the_metrics_pattern_names_the_ids_served() {
        assert_eq!(serving(&[]), "the-function");
        assert_eq!(serving(&[""]), "the-function");
        assert_eq!(serving(&["C1"]), "C1");
        assert_eq!(serving(&["H3 history"]), "H3 history");
        assert_eq!(serving(&["C4", "C4 by status"]), "C4");
        assert_eq!(serving(&["L2", "L3", "L4", "L5", "L6"]), "L2-L6");
        assert_eq!(serving(&["L9", "L10"]), "L9-L10");
        assert_eq!(serving(&["H2", "H6", "H11"]), "H2/H6/H11");
    }
}
