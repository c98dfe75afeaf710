//! HTTP plumbing shared by the API functions.
//!
//! Every API function has one shape: `pub const NEEDS: Needs` (what it reads from its environment
//! beyond the table) and `pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>,
//! ApiError>`, which parses with the helpers here, calls the store, and returns a typed error
//! that [`serve`] turns into a JSON body `{"code", "message"}` with the right status. Bad input is
//! always a 4xx, never a 5xx, and is rejected before anything is written. Its `main` is one line:
//! `api::serve(NEEDS, handle)`.

use std::future::Future;

use keys::{Date, Id, KeyError};
use keys::{KeyCondition, KeySpace};
use lambda_http::{
    Body, Request, RequestExt, Response,
    http::{StatusCode, header::CONTENT_TYPE},
    lambda_runtime::{Runtime, layers::TracingLayer},
    service_fn,
};
use model::Entity;
use serde::{Serialize, de::DeserializeOwned};
use store::{Deps, StoreError, Table, cursor::CursorError};

/// Largest request body accepted: bounding it bounds the work bad input can cause. Derived from
/// the largest valid body, a review of 5,000 characters (`put-review`) written the longest way
/// JSON allows: each character a UTF-16 surrogate pair escaped (`\ud83d\ude00`, 12 bytes), 60,000
/// bytes, plus its field names; `put-review`'s tests send exactly that.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// An error answer: HTTP status, a stable machine-readable code, a message a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(400, code, message)
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(404, code, message)
    }

    /// The item a point read found, or a 404 with `code` (the message made only when needed).
    pub fn or_not_found<T>(
        found: Option<T>,
        code: &'static str,
        message: impl FnOnce() -> String,
    ) -> Result<T, ApiError> {
        found.ok_or_else(|| ApiError::not_found(code, message()))
    }

    /// A request parameter (path or query) that is not acceptable.
    pub fn invalid_parameter(name: &str, why: impl std::fmt::Display) -> ApiError {
        ApiError::bad_request("invalid_parameter", format!("{name}: {why}"))
    }

    fn internal() -> ApiError {
        ApiError::new(
            500,
            "internal_error",
            "Something went wrong on our side; try again later.",
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Throttled(detail) => {
                tracing::warn!(%detail, "throttled");
                ApiError::new(
                    503,
                    "throttled",
                    "The service is busy; retry after a short pause.",
                )
            }
            other => {
                tracing::error!(error = %other, "store error");
                ApiError::internal()
            }
        }
    }
}

/// An item read back that does not fit its entity: a corrupt item, a 500.
impl From<model::ModelError> for ApiError {
    fn from(e: model::ModelError) -> ApiError {
        ApiError::from(StoreError::from(e))
    }
}

impl From<CursorError> for ApiError {
    fn from(e: CursorError) -> ApiError {
        ApiError::bad_request(
            "invalid_cursor",
            format!(
                "{e}: pass back the nextCursor of the previous page unchanged, with the same parameters"
            ),
        )
    }
}

/// The header naming derived values that drifted (see [`views::DRIFT`]).
pub const DERIVED_INCONSISTENT: &str = "x-derived-inconsistent";

/// A JSON response. Derived values a view found drifted (a negative count, a value that is not
/// an integer: [`model::Derived`]) are `null` in the body and named in the
/// `X-Derived-Inconsistent` header, so a read degrades visibly instead of failing; `make
/// reconcile REPAIR=1` heals them.
pub fn json<T: Serialize>(status: u16, body: &T) -> Result<Response<Body>, ApiError> {
    let internal = |e: serde_json::Error| {
        tracing::error!(error = %e, "cannot serialise a response");
        ApiError::internal()
    };
    let mut value = serde_json::to_value(body).map_err(internal)?;
    let mut drifted = Vec::new();
    views::take_drift(&mut value, &mut drifted);
    let text = serde_json::to_string(&value).map_err(internal)?;
    let mut response = Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json");
    if !drifted.is_empty() {
        tracing::warn!(fields = ?drifted, "derived values drifted; answering without them");
        response = response.header(DERIVED_INCONSISTENT, drifted.join(", "));
    }
    response
        .body(Body::Text(text))
        .map_err(|_| ApiError::internal())
}

/// 204 No Content.
pub fn no_content() -> Result<Response<Body>, ApiError> {
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .body(Body::Empty)
        .map_err(|_| ApiError::internal())
}

/// The JSON response of an error.
pub fn error_response(e: &ApiError) -> Response<Body> {
    let body = serde_json::json!({ "code": e.code, "message": e.message }).to_string();
    let mut response = Response::new(Body::Text(body));
    *response.status_mut() =
        StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        CONTENT_TYPE,
        "application/json".parse().expect("static header"),
    );
    // Busy (throttled, or a write that kept meeting a transaction): tell clients when to retry.
    if e.status == 503 {
        response
            .headers_mut()
            .insert("retry-after", "1".parse().expect("static header"));
    }
    response
}

/// A path parameter as an identifier.
pub fn path_id(req: &Request, name: &'static str) -> Result<Id, ApiError> {
    let params = req.path_parameters();
    let value = params
        .first(name)
        .ok_or_else(|| ApiError::invalid_parameter(name, "missing"))?;
    // The key error names the parameter already.
    Id::parse(name, value).map_err(|e| ApiError::bad_request("invalid_parameter", e.to_string()))
}

/// A raw path parameter.
pub fn path_param(req: &Request, name: &'static str) -> Result<String, ApiError> {
    req.path_parameters()
        .first(name)
        .map(str::to_owned)
        .ok_or_else(|| ApiError::invalid_parameter(name, "missing"))
}

/// A path parameter parsed by a key type's own parser (`SortableId::parse`, `Sku::parse`,
/// `Date::parse_iso`, `Isbn::parse`...): a value it refuses is a 400 naming the parameter.
pub fn path<T>(
    req: &Request,
    name: &'static str,
    parse: impl FnOnce(&str) -> Result<T, KeyError>,
) -> Result<T, ApiError> {
    let value = path_param(req, name)?;
    parse(&value).map_err(|e| ApiError::invalid_parameter(name, e))
}

/// The `{isbn}` path parameter: an ISBN-10 or ISBN-13 (hyphens allowed), normalised to 13 digits.
pub fn path_isbn(req: &Request) -> Result<keys::reviews::Isbn, ApiError> {
    path(req, "isbn", keys::reviews::Isbn::parse)
}

/// A query parameter; `None` when absent. Present but empty counts as absent.
pub fn query(req: &Request, name: &str) -> Option<String> {
    req.query_string_parameters_ref()
        .and_then(|q| q.first(name))
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// A query parameter parsed by its type's `FromStr` (an enum such as an order status), or `None`
/// when absent; a value that does not parse is a 400 naming the parameter.
pub fn query_parsed<T>(req: &Request, name: &str) -> Result<Option<T>, ApiError>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    query(req, name)
        .map(|v| v.parse().map_err(|e| ApiError::invalid_parameter(name, e)))
        .transpose()
}

/// An integer query parameter within `min..=max`, or `default` when absent.
pub fn query_u32(
    req: &Request,
    name: &str,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, ApiError> {
    match query(req, name) {
        None => Ok(default),
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                ApiError::invalid_parameter(
                    name,
                    format!("{v:?} is not an integer from {min} to {max}"),
                )
            }),
    }
}

/// A `YYYY-MM-DD` query parameter.
pub fn query_date(req: &Request, name: &str) -> Result<Option<Date>, ApiError> {
    query(req, name)
        .map(|v| Date::parse_iso(&v).map_err(|e| ApiError::invalid_parameter(name, e)))
        .transpose()
}

/// The order date range of `?from=YYYY-MM-DD&to=YYYY-MM-DD` (both ends included; open-ended
/// when omitted). Order ids count milliseconds from 1970, so earlier dates hold no orders and are
/// refused; `from` after `to` is a 400 `invalid_range`.
pub fn query_order_dates(req: &Request) -> Result<(Date, Date), ApiError> {
    let earliest = Date::from_ymd(1970, 1, 1).expect("valid");
    let from = query_date(req, "from")?.unwrap_or(earliest);
    let to = query_date(req, "to")?.unwrap_or(Date::from_ymd(9999, 12, 31).expect("valid"));
    if from < earliest {
        return Err(ApiError::invalid_parameter(
            "from",
            "give a date from 1970-01-01",
        ));
    }
    if from > to {
        return Err(ApiError::bad_request(
            "invalid_range",
            format!("from ({from}) is after to ({to})"),
        ));
    }
    Ok((from, to))
}

/// A page request of a paginated pattern: its size, where it starts (the `cursor` query
/// parameter) and what its cursors are bound to (the pattern and every parameter that selects its
/// items), so a cursor cannot be replayed against another pattern, item or range.
#[derive(Debug)]
pub struct Paging<'d> {
    /// Items per page: the `limit` query parameter, or the pattern's default.
    pub limit: u32,
    /// DynamoDB's `ExclusiveStartKey`; `None` for a first page.
    pub start: Option<model::Item>,
    binding: String,
    cursors: &'d store::cursor::CursorCodec,
}

impl<'d> Paging<'d> {
    /// Reads `limit` (`default`, within `1..=max`) and `cursor`; `bind` makes the binding from the
    /// limit (include it when a page's shape depends on it).
    pub fn from_request(
        req: &Request,
        deps: &'d Deps,
        default: u32,
        max: u32,
        bind: impl FnOnce(u32) -> String,
    ) -> Result<Paging<'d>, ApiError> {
        let limit = query_u32(req, "limit", default, 1, max)?;
        let binding = bind(limit);
        let cursors = deps.cursors()?;
        let start = query(req, "cursor")
            .map(|c| cursors.decode(&binding, &c))
            .transpose()?;
        Ok(Paging {
            limit,
            start,
            binding,
            cursors,
        })
    }

    pub fn is_first(&self) -> bool {
        self.start.is_none()
    }

    /// One page of `query` (its index, direction and filters set by the caller): at most `limit`
    /// items from the cursor's position, and the next page's cursor.
    pub async fn items<S: KeySpace>(
        &self,
        query: store::Query<'_, S>,
    ) -> Result<(Vec<model::Item>, Option<String>), ApiError> {
        let page = query
            .limit(self.limit)
            .start(self.start.clone())
            .send()
            .await?;
        Ok((page.items, self.next_cursor(page.last_key)?))
    }

    /// [`Paging::items`], each decoded as `E` (a pattern that reads one kind of item).
    pub async fn page<E: Entity, S: KeySpace>(
        &self,
        query: store::Query<'_, S>,
    ) -> Result<(Vec<E>, Option<String>), ApiError> {
        let (items, next) = self.items(query).await?;
        let items = items
            .into_iter()
            .map(model::from_item::<E>)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((items, next))
    }

    /// One page of a collection read backwards from its parent's own record
    /// ([`store::Query::parent_page`]): the parent (first page only), its children newest first,
    /// and the next page's cursor. `None` when the parent does not exist.
    pub async fn parent_page<P: Entity, C: Entity, S: KeySpace>(
        &self,
        table: &Table,
        condition: KeyCondition<S>,
    ) -> Result<Option<(Option<P>, Vec<C>, Option<String>)>, ApiError> {
        let Some(page) = table
            .query(condition)
            .parent_page::<P, C>(self.limit, self.start.clone())
            .await?
        else {
            return Ok(None);
        };
        let next = self.next_cursor(page.last_key)?;
        Ok(Some((page.parent, page.children, next)))
    }

    /// One page of write-sharded `streams` merged into one order ([`store::merge`]), and the
    /// next page's cursor (every stream's position, signed as one).
    pub async fn merged_page<S: KeySpace>(
        &self,
        table: &Table,
        streams: Vec<KeyCondition<S>>,
        direction: store::merge::Direction,
    ) -> Result<(Vec<model::Item>, Option<String>), ApiError> {
        self.merged_page_by(table, streams, direction, store::merge::MergeKey::SortKey)
            .await
    }

    /// [`Paging::merged_page`] with the streams merged by `by` ([`store::merge::MergeKey`]):
    /// streams whose sort keys start with a part of their own (one per order status) merged by
    /// an attribute.
    pub async fn merged_page_by<S: KeySpace>(
        &self,
        table: &Table,
        streams: Vec<KeyCondition<S>>,
        direction: store::merge::Direction,
        by: store::merge::MergeKey,
    ) -> Result<(Vec<model::Item>, Option<String>), ApiError> {
        use store::merge::{Positions, merged_page_by};
        let positions = match &self.start {
            None => Positions::start(streams.len()),
            Some(flat) => Positions::from_item(flat, streams.len())
                .ok_or(ApiError::from(store::cursor::CursorError::Malformed))?,
        };
        let page = merged_page_by(table, streams, positions, self.limit, direction, by).await?;
        let next = self.next_cursor(page.next.map(|p| p.to_item()))?;
        Ok((page.items, next))
    }

    /// The `nextCursor` after a page: DynamoDB's `LastEvaluatedKey`, signed and bound.
    pub fn next_cursor(&self, last_key: Option<model::Item>) -> Result<Option<String>, ApiError> {
        Ok(last_key
            .map(|k| self.cursors.encode(&self.binding, &k))
            .transpose()?)
    }
}

/// A header's value, if present and text.
pub fn header(req: &Request, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The JSON body, which must be a JSON object, as `T`. Unknown fields, wrong types and missing
/// fields are refused by `T`'s serde rules (`deny_unknown_fields`); the message names the field.
/// Any other JSON value (`[5]`, `5`, `"x"`, `null`) is refused too: serde would otherwise fill a
/// struct from an array of its fields in order (`[5]` as `{"quantity": 5}`).
pub fn json_body<T: DeserializeOwned>(req: &Request) -> Result<T, ApiError> {
    let bytes: &[u8] = match req.body() {
        Body::Empty => &[],
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "missing_body",
            "A JSON body is required.",
        ));
    }
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(
            413,
            "body_too_large",
            format!("The body is larger than {MAX_BODY_BYTES} bytes."),
        ));
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        ApiError::bad_request("invalid_json", format!("The body is not valid JSON: {e}"))
    })?;
    if !value.is_object() {
        return Err(ApiError::bad_request(
            "invalid_body",
            "The body must be a JSON object.",
        ));
    }
    serde_json::from_value(value).map_err(|e| {
        ApiError::bad_request(
            "invalid_body",
            format!("The body does not fit this request: {e}"),
        )
    })
}

/// A key error on a body field.
pub fn invalid_field(name: &str, e: KeyError) -> ApiError {
    ApiError::bad_request("invalid_body", format!("{name}: {e}"))
}

/// A body field parsed by a key type's own parser: a value it refuses is a 400 naming the field.
pub fn field<T>(name: &str, parsed: Result<T, KeyError>) -> Result<T, ApiError> {
    parsed.map_err(|e| invalid_field(name, e))
}

/// A function's whole `main`: logging and metrics ([`telemetry`], counted under `pattern` unless
/// the handler names another), its dependencies read once from the environment (a missing setting
/// stops it here, not at its first request), then API Gateway requests answered until the runtime
/// stops: each one authorized ([`auth::authorize`]), then handled by `handler`. Typed errors become
/// JSON error responses; a 5xx is logged.
pub async fn serve<F, Fut>(
    function: &'static Function,
    handler: F,
) -> Result<(), lambda_http::Error>
where
    F: Fn(&'static Deps, Request) -> Fut,
    Fut: Future<Output = Result<Response<Body>, ApiError>> + Send,
{
    let (needs, access) = (function.needs, function.access);
    let metrics = telemetry::init(function.metrics_pattern().leak())?;
    // Made once and kept for the life of the process, as Lambda keeps a warm instance; a
    // configuration it cannot use is reported to Lambda as the reason the instance failed.
    let deps = telemetry::startup::checked(Deps::from_env(needs).await).await?;
    let deps: &'static Deps = Box::leak(Box::new(deps));
    let handler = &handler;
    let service = service_fn(move |req: Request| {
        let answer = dispatch(deps, access, handler, req);
        async move { Ok::<_, lambda_http::Error>(answer.await) }
    });
    // `lambda_http::run`, with each invocation's metrics document written when it ends.
    Runtime::new(lambda_http::Adapter::from(service))
        .layer(TracingLayer::new())
        .layer(telemetry::MetricsLayer::new(metrics))
        .run()
        .await
}

/// One request, as [`serve`] answers it: authorized first (a refused request never reaches the
/// handler), then handled and rendered.
pub fn dispatch<'d, F, Fut>(
    deps: &'d Deps,
    access: Access,
    handler: F,
    req: Request,
) -> impl Future<Output = Response<Body>> + use<'d, F, Fut>
where
    F: FnOnce(&'d Deps, Request) -> Fut,
    Fut: Future<Output = Result<Response<Body>, ApiError>>,
{
    let answer = auth::authorize(access, &req).map(|_| handler(deps, req));
    async move {
        match answer {
            Ok(handled) => respond(handled.await),
            Err(refused) => respond(Err(refused)),
        }
    }
}

/// The response of a handler's result.
pub fn respond(result: Result<Response<Body>, ApiError>) -> Response<Body> {
    match result {
        Ok(r) => r,
        Err(e) => {
            if e.status >= 500 {
                tracing::error!(code = e.code, "answered {}", e.status);
            }
            error_response(&e)
        }
    }
}

pub mod auth;
pub mod function;
pub mod learning;
pub mod views;

pub use auth::{Access, Caller};
pub use function::{Function, Method, Route};

/// A context crate's API functions, declared once: `functions![get_customer, put_customer]`
/// makes each a public module (its `FUNCTION` and `handle`), the list [`FUNCTIONS`] in that
/// order, and [`handle`], which answers a request as the named function's `main` would (for
/// tests and tools that run handlers in process).
#[macro_export]
macro_rules! functions {
    ($($function:ident),* $(,)?) => {
        $(pub mod $function;)*

        /// This context's API functions.
        pub const FUNCTIONS: &[&$crate::Function] = &[$(&$function::FUNCTION),*];

        /// The answer of the function named `function` to `req`, authorized as it declares,
        /// with `deps` (made for its needs); `None` when no function of this context has the
        /// name.
        pub async fn handle(
            function: &str,
            deps: &store::Deps,
            req: lambda_http::Request,
        ) -> Option<lambda_http::Response<lambda_http::Body>> {
            $(if function == $function::FUNCTION.name {
                return Some(
                    Box::pin($crate::dispatch(deps, $function::FUNCTION.access, $function::handle, req))
                        .await,
                );
            })*
            None
        }
    };
}
/// For a handler serving several patterns: [`telemetry::serving`].
pub use telemetry::serving;
