//! Matching a request against the template's `HttpApi` routes, the way API Gateway HTTP APIs do:
//! exact segment count, `{name}` matches one non-empty segment, a literal segment beats a
//! parameter, and no route means 404 whatever the method.

use std::collections::BTreeMap;

use sam_template::Template;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Param(String),
}

/// One route of one function.
#[derive(Debug, Clone)]
pub struct RouteEntry {
    /// Upper case, or `ANY`.
    pub method: String,
    /// As the template writes it, with `{name}` placeholders.
    pub path: String,
    /// The function's name (its crate and binary).
    pub function: String,
    /// No authorizer (`Auth: { Authorizer: NONE }`): anyone may call it.
    pub public: bool,
    segments: Vec<Segment>,
}

impl RouteEntry {
    pub fn new(method: &str, path: &str, function: &str) -> RouteEntry {
        let segments = split(path)
            .unwrap_or_default()
            .into_iter()
            .map(
                |s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(name) => Segment::Param(name.to_owned()),
                    None => Segment::Literal(s.to_owned()),
                },
            )
            .collect();
        RouteEntry {
            method: method.to_uppercase(),
            path: path.to_owned(),
            function: function.to_owned(),
            public: false,
            segments,
        }
    }

    /// API Gateway's `routeKey`: `GET /customers/{customerId}`.
    pub fn route_key(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// The decoded path parameters if `segments` fit this route.
    fn bind(&self, segments: &[&str]) -> Option<BTreeMap<String, String>> {
        if segments.len() != self.segments.len() {
            return None;
        }
        let mut params = BTreeMap::new();
        for (pattern, segment) in self.segments.iter().zip(segments) {
            match pattern {
                Segment::Literal(l) => {
                    if percent_decode(segment) != *l {
                        return None;
                    }
                }
                Segment::Param(name) => {
                    if segment.is_empty() {
                        return None;
                    }
                    params.insert(name.clone(), percent_decode(segment));
                }
            }
        }
        Some(params)
    }

    /// The same route, public (no authorizer) or not.
    pub fn public(mut self, public: bool) -> RouteEntry {
        self.public = public;
        self
    }

    /// Lower is more specific: compared segment by segment from the left, a literal beats a
    /// parameter; then an explicit method beats `ANY`.
    fn rank(&self) -> (Vec<bool>, bool) {
        (
            self.segments
                .iter()
                .map(|s| matches!(s, Segment::Param(_)))
                .collect(),
            self.method == "ANY",
        )
    }
}

/// A matched route and its path parameters (percent-decoded).
#[derive(Debug)]
pub struct Match<'a> {
    pub route: &'a RouteEntry,
    pub path_parameters: BTreeMap<String, String>,
}

#[derive(Debug, Default, Clone)]
pub struct Router {
    routes: Vec<RouteEntry>,
}

impl Router {
    pub fn new(routes: Vec<RouteEntry>) -> Router {
        Router { routes }
    }

    /// Every route of every function, in template order.
    pub fn from_template(template: &Template) -> Router {
        Router::new(
            template
                .functions
                .iter()
                .flat_map(|f| {
                    f.routes
                        .iter()
                        .map(|r| RouteEntry::new(&r.method, &r.path, f.name()).public(r.public))
                })
                .collect(),
        )
    }

    pub fn routes(&self) -> &[RouteEntry] {
        &self.routes
    }

    /// The most specific route for `method` and the raw (still percent-encoded) `path`.
    pub fn find(&self, method: &str, path: &str) -> Option<Match<'_>> {
        let segments = split(path)?;
        self.routes
            .iter()
            .filter(|r| r.method == "ANY" || r.method.eq_ignore_ascii_case(method))
            .filter_map(|r| Some((r, r.bind(&segments)?)))
            .min_by_key(|(r, _)| r.rank())
            .map(|(route, path_parameters)| Match {
                route,
                path_parameters,
            })
    }
}

/// `/a/b` → `["a", "b"]`, `/` → `[]`, `/a/` → `["a", ""]` (so a trailing slash never matches a
/// route without one). `None` if the path is not absolute.
fn split(path: &str) -> Option<Vec<&str>> {
    let rest = path.strip_prefix('/')?;
    Some(if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('/').collect()
    })
}

/// Decodes `%XX` escapes; a malformed escape stays as it is, invalid UTF-8 becomes U+FFFD.
/// `+` is left alone: it only means a space in form bodies.
pub fn percent_decode(s: &str) -> String {
    fn hex(b: u8) -> Option<u8> {
        (b as char).to_digit(16).map(|d| d as u8)
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = match bytes.get(i..i + 3) {
            Some(&[b'%', h, l]) => hex(h).zip(hex(l)),
            _ => None,
        };
        match escape {
            Some((h, l)) => {
                out.push(h << 4 | l);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router() -> Router {
        Router::new(vec![
            RouteEntry::new("GET", "/customers/{customerId}", "get-customer"),
            RouteEntry::new("PUT", "/customers/{customerId}", "put-customer"),
            RouteEntry::new(
                "GET",
                "/customers/{customerId}/orders",
                "list-customer-orders",
            ),
            RouteEntry::new("GET", "/customers/me", "get-me"),
            RouteEntry::new("PUT", "/carts/{cartId}/items/{productId}", "put-cart-line"),
            RouteEntry::new("GET", "/", "root"),
        ])
    }

    fn find(method: &str, path: &str) -> Option<(String, Vec<(String, String)>)> {
        let r = router();
        r.find(method, path).map(|m| {
            (
                m.route.function.clone(),
                m.path_parameters.into_iter().collect(),
            )
        })
    }

    fn p(k: &str, v: &str) -> (String, String) {
        (k.into(), v.into())
    }

    #[test]
    fn binds_path_parameters() {
        assert_eq!(
            find("GET", "/customers/123"),
            Some(("get-customer".into(), vec![p("customerId", "123")]))
        );
        assert_eq!(
            find("PUT", "/carts/c1/items/p-9"),
            Some((
                "put-cart-line".into(),
                vec![p("cartId", "c1"), p("productId", "p-9")]
            ))
        );
        assert_eq!(find("GET", "/").map(|m| m.0).as_deref(), Some("root"));
    }

    #[test]
    fn method_selects_the_function_and_a_wrong_method_is_no_route() {
        assert_eq!(
            find("PUT", "/customers/1").map(|m| m.0).as_deref(),
            Some("put-customer")
        );
        assert_eq!(find("DELETE", "/customers/1"), None);
        assert_eq!(find("POST", "/customers/1/orders"), None);
    }

    #[test]
    fn literal_beats_parameter() {
        assert_eq!(
            find("GET", "/customers/me"),
            Some(("get-me".into(), vec![]))
        );
        // Only the parameter route has PUT.
        assert_eq!(
            find("PUT", "/customers/me"),
            Some(("put-customer".into(), vec![p("customerId", "me")]))
        );
    }

    #[test]
    fn any_matches_every_method_but_loses_to_an_explicit_one() {
        let r = Router::new(vec![
            RouteEntry::new("ANY", "/things/{id}", "any"),
            RouteEntry::new("GET", "/things/{id}", "get"),
        ]);
        assert_eq!(r.find("GET", "/things/1").unwrap().route.function, "get");
        assert_eq!(r.find("PATCH", "/things/1").unwrap().route.function, "any");
    }

    #[test]
    fn trailing_slash_and_empty_segments_do_not_match() {
        assert_eq!(find("GET", "/customers/123/"), None);
        assert_eq!(find("GET", "/customers/"), None);
        assert_eq!(find("GET", "/customers//orders"), None);
        assert_eq!(find("GET", "customers/1"), None);
    }

    #[test]
    fn segment_count_must_be_exact() {
        assert_eq!(find("GET", "/customers"), None);
        assert_eq!(find("GET", "/customers/1/orders/2"), None);
        assert_eq!(find("PUT", "/carts/c1/items"), None);
    }

    #[test]
    fn parameters_are_percent_decoded() {
        assert_eq!(
            find("GET", "/customers/a%20b%2Fc%C3%A9+d"),
            Some(("get-customer".into(), vec![p("customerId", "a b/cé+d")]))
        );
        // A decoded slash stays inside the segment.
        assert_eq!(
            find("GET", "/customers/x%2Forders").map(|m| m.0).as_deref(),
            Some("get-customer")
        );
        // Literal segments compare decoded.
        assert_eq!(
            find("GET", "/customers/%6De").map(|m| m.0).as_deref(),
            Some("get-me")
        );
    }

    #[test]
    fn percent_decode_edge_cases() {
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%41%42"), "AB");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
    }

    #[test]
    fn reads_the_routes_of_this_repositorys_template() {
        let t = Template::workspace().unwrap();
        let r = Router::from_template(&t);
        let m = r.find("GET", "/customers/42").unwrap();
        assert_eq!(m.route.function, "get-customer");
        assert_eq!(m.route.route_key(), "GET /customers/{customerId}");
    }
}
