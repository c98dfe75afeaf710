//! [`Harness`]: one API function under test, its handler called in process as a test calls it.

use std::{future::Future, ops::Deref, pin::Pin};

use api::{ApiError, Function};
use lambda_http::{Body, Request, Response};
use serde_json::Value;
use store::{Deps, Table};

use crate::{
    TEST_CURSOR_KEY, TEST_SHARDS, event, percent_encode, request, response_json, signed_in_as,
    with_header,
};

type Answer = Pin<Box<dyn Future<Output = Response<Body>>>>;

/// A function under test: its declaration, its handler and its [`Deps`] on a test table, made
/// for what it declares it needs. Requests name a method and a concrete path; the event is
/// built on the declared route that path fits, as API Gateway would match it.
///
/// The handler is called directly (`api::respond(handle(deps, request))`), no authorization,
/// unless the harness is [`Harness::dispatched`]: then it is answered as its `main` answers it,
/// through `api::dispatch` with the access it declares.
pub struct Harness {
    function: &'static Function,
    deps: &'static Deps,
    answer: Box<dyn Fn(&'static Deps, Request, bool) -> Answer>,
    dispatched: bool,
}

impl Harness {
    /// `function` with `handle` on `table`, with the tests' cursor key and shard count.
    pub fn new<F, Fut>(function: &'static Function, handle: F, table: Table) -> Harness
    where
        F: Fn(&'static Deps, Request) -> Fut + Copy + 'static,
        Fut: Future<Output = Result<Response<Body>, ApiError>> + 'static,
    {
        Harness::with_shards(function, handle, table, TEST_SHARDS)
    }

    /// As [`Harness::new`], on a fresh empty [`crate::table`] of its own ([`Harness::table`]).
    pub async fn on_new_table<F, Fut>(function: &'static Function, handle: F) -> Harness
    where
        F: Fn(&'static Deps, Request) -> Fut + Copy + 'static,
        Fut: Future<Output = Result<Response<Body>, ApiError>> + 'static,
    {
        Harness::new(function, handle, crate::table().await)
    }

    /// As [`Harness::new`], with `shards` write shards for the derived counters.
    pub fn with_shards<F, Fut>(
        function: &'static Function,
        handle: F,
        table: Table,
        shards: u32,
    ) -> Harness
    where
        F: Fn(&'static Deps, Request) -> Fut + Copy + 'static,
        Fut: Future<Output = Result<Response<Body>, ApiError>> + 'static,
    {
        let deps =
            Deps::new(table, function.needs, TEST_CURSOR_KEY, shards).expect("valid test settings");
        Harness::with_deps(function, handle, deps)
    }

    /// As [`Harness::new`], on `deps` the test made itself: settings the harness does not
    /// set, such as O5's shard count (`testkit::deps(..).with_setting(&ORDER_STATUS_SHARDS, "4")`).
    pub fn with_deps<F, Fut>(function: &'static Function, handle: F, deps: Deps) -> Harness
    where
        F: Fn(&'static Deps, Request) -> Fut + Copy + 'static,
        Fut: Future<Output = Result<Response<Body>, ApiError>> + 'static,
    {
        let access = function.access;
        Harness {
            function,
            // Leaked, as `serve` keeps its `Deps` for the life of the process: a test's few.
            deps: Box::leak(Box::new(deps)),
            answer: Box::new(move |deps, req, dispatched| {
                if dispatched {
                    Box::pin(api::dispatch(deps, access, handle, req))
                } else {
                    Box::pin(async move { api::respond(handle(deps, req).await) })
                }
            }),
            dispatched: false,
        }
    }

    /// Answers through `api::dispatch`: authorized as the function declares, then handled.
    pub fn dispatched(mut self) -> Harness {
        self.dispatched = true;
        self
    }

    pub fn deps(&self) -> &'static Deps {
        self.deps
    }

    pub fn table(&self) -> &'static Table {
        &self.deps.table
    }

    /// A request with no token (the default of the shortcuts below).
    pub fn anyone(&self) -> Call<'_> {
        Call {
            harness: self,
            sub: None,
            headers: Vec::new(),
        }
    }

    /// A request from a member of the staff group (`staff-1`).
    pub fn as_staff(&self) -> Call<'_> {
        self.anyone().as_staff()
    }

    /// A request from a signed-in customer or user `sub` (no groups).
    pub fn as_sub(&self, sub: &str) -> Call<'_> {
        self.anyone().as_sub(sub)
    }

    /// A request without a token with a header set.
    pub fn with_header(&self, name: &str, value: &str) -> Call<'_> {
        self.anyone().with_header(name, value)
    }

    pub async fn get(&self, path: &str, query: &[(&str, &str)]) -> (u16, Value) {
        self.anyone().get(path, query).await
    }

    pub async fn put(&self, path: &str, body: &str) -> (u16, Value) {
        self.anyone().put(path, body).await
    }

    pub async fn post(&self, path: &str, body: &str) -> (u16, Value) {
        self.anyone().post(path, body).await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        self.anyone().delete(path).await
    }

    /// The answer to a GET of `path` sent as `who` makes it from a tokenless event: a function
    /// such as [`crate::as_staff`], [`crate::anonymous`] or one that signs in a given caller.
    pub async fn get_as(
        &self,
        who: fn(Value) -> Value,
        path: &str,
        query: &[(&str, &str)],
    ) -> (u16, Value) {
        self.send(&who(self.anyone().event("GET", path, query, None)))
            .await
    }

    /// The answer to an event built by hand (path parameters or headers set directly).
    pub async fn send(&self, event: &Value) -> (u16, Value) {
        response_json(&self.respond(event).await)
    }

    /// The response to an event, headers and all.
    pub async fn respond(&self, event: &Value) -> Response<Body> {
        (self.answer)(self.deps, request(event), self.dispatched).await
    }

    /// The concrete path of the function's one route with `params` for its `{parameters}`, in
    /// order, percent-encoded as a client sends them (API Gateway decodes them again).
    pub fn path(&self, params: &[&str]) -> String {
        let [route] = self.function.routes else {
            panic!("{} has several routes: name the path", self.function.name);
        };
        let mut params = params.iter();
        let path: Vec<String> = route
            .path
            .split('/')
            .map(|segment| match segment.starts_with('{') {
                true => percent_encode(params.next().expect("a value for every parameter")),
                false => segment.to_owned(),
            })
            .collect();
        assert!(
            params.next().is_none(),
            "more values than {} has parameters",
            route.path
        );
        path.join("/")
    }

    /// The route key of the declared route `method` and `path` fit: literal segments equal,
    /// a `{parameter}` any segment; of several, the one with the most literal segments.
    pub fn route(&self, method: &str, path: &str) -> String {
        self.function
            .routes
            .iter()
            .filter(|r| r.method.as_str() == method)
            .filter_map(|r| crate::route_fit(r.path, path).map(|literal| (literal, r)))
            .max_by_key(|(literal, _)| *literal)
            .map(|(_, r)| format!("{} {}", r.method.as_str(), r.path))
            .unwrap_or_else(|| {
                panic!(
                    "{} declares no route for {method} {path}",
                    self.function.name
                )
            })
    }
}

/// A harness is its function's dependencies (`h.table`, `&h` for a `&Deps`) with a handler.
impl Deref for Harness {
    type Target = Deps;

    fn deref(&self) -> &Deps {
        self.deps
    }
}

/// One request to a [`Harness`]'s function: who sends it, its headers.
#[derive(Clone)]
pub struct Call<'h> {
    harness: &'h Harness,
    sub: Option<(String, Vec<&'static str>)>,
    headers: Vec<(String, String)>,
}

impl Call<'_> {
    pub fn as_staff(mut self) -> Self {
        self.sub = Some(("staff-1".into(), vec![api::auth::STAFF_GROUP]));
        self
    }

    pub fn as_sub(mut self, sub: &str) -> Self {
        self.sub = Some((sub.into(), Vec::new()));
        self
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The event: `path` percent-encoded as a client sends it (path parameters arrive decoded),
    /// `query` decoded.
    pub fn event(
        &self,
        method: &str,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&str>,
    ) -> Value {
        let mut ev = event(&self.harness.route(method, path), path, query, body);
        if let Some((sub, groups)) = &self.sub {
            ev = signed_in_as(ev, sub, groups);
        }
        for (name, value) in &self.headers {
            ev = with_header(ev, name, value);
        }
        ev
    }

    pub async fn send(
        &self,
        method: &str,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&str>,
    ) -> (u16, Value) {
        self.harness
            .send(&self.event(method, path, query, body))
            .await
    }

    pub async fn get(&self, path: &str, query: &[(&str, &str)]) -> (u16, Value) {
        self.send("GET", path, query, None).await
    }

    pub async fn put(&self, path: &str, body: &str) -> (u16, Value) {
        self.send("PUT", path, &[], Some(body)).await
    }

    pub async fn post(&self, path: &str, body: &str) -> (u16, Value) {
        self.send("POST", path, &[], Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        self.send("DELETE", path, &[], None).await
    }

    /// A POST's status, headers and JSON body.
    pub async fn post_full(
        &self,
        path: &str,
        body: &str,
    ) -> (u16, lambda_http::http::HeaderMap, Value) {
        let response = self
            .harness
            .respond(&self.event("POST", path, &[], Some(body)))
            .await;
        let (status, json) = response_json(&response);
        (status, response.headers().clone(), json)
    }

    /// A GET's response, headers and all.
    pub async fn get_response(&self, path: &str, query: &[(&str, &str)]) -> Response<Body> {
        self.harness
            .respond(&self.event("GET", path, query, None))
            .await
    }

    /// Every page of a paginated GET, from the first to the last (see [`crate::walk_pages`]):
    /// `query` with `limit` and the cursor added; each page must answer 200.
    pub async fn walk(&self, path: &str, query: &[(&str, &str)], limit: &str) -> Vec<Value> {
        crate::walk_pages(limit, async |page: &[(&str, &str)]| {
            let mut q = query.to_vec();
            q.extend_from_slice(page);
            let (status, body) = self.get(path, &q).await;
            assert_eq!(status, 200, "{body}");
            body
        })
        .await
    }
}
