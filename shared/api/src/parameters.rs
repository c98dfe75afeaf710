//! Request parameters: path parameters, query parameters and headers, each refused with a 400
//! naming it when it is not acceptable.

use crate::Common;
use keys::{Date, Id, KeyError};
use lambda_http::{Request, RequestExt};
use store::PageRequest;

use crate::{ApiError, Function};

/// A path parameter as an identifier.
pub fn path_id(req: &Request, name: &'static str) -> Result<Id, ApiError> {
    let params = req.path_parameters();
    let value = params
        .first(name)
        .ok_or_else(|| ApiError::invalid_parameter(name, "missing"))?;
    // The key error names the parameter already.
    Id::parse(name, value).map_err(|e| Common::InvalidParameter.because(e.to_string()))
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

/// Refuses a query parameter given more than once (`?orders=1&orders=3`), naming it: which one
/// counts would be a guess, and the first silently won. What API Gateway sends (payload 2.0):
/// `rawQueryString` as the client wrote it, and `queryStringParameters` with a repeated name's
/// values joined by commas (`"1,3"`, which a value's own comma, `1%2C3`, cannot be told from);
/// `lambda_http` reads the raw string, where each value stays apart. Checked for every route
/// ([`crate::dispatch`]), before its handler reads any parameter.
pub fn one_value_each(req: &Request) -> Result<(), ApiError> {
    let Some(params) = req.query_string_parameters_ref() else {
        return Ok(());
    };
    let mut seen = std::collections::BTreeSet::new();
    let repeated = params
        .iter()
        .filter(|(name, _)| !seen.insert(*name))
        .map(|(name, _)| name)
        .min();
    match repeated {
        None => Ok(()),
        Some(name) => {
            let times = params.all(name).map_or(0, |v| v.len());
            let name: String = name.chars().take(64).collect();
            Err(ApiError::invalid_parameter(
                &name,
                format!("given {times} times; give it once"),
            ))
        }
    }
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

/// The page a paginated function is asked for: `limit` (within the page size it declares,
/// [`Function::page`]) and `cursor` (the previous page's `nextCursor`), for [`store::Paging`] to
/// read.
pub fn page_request(req: &Request, function: &Function) -> Result<PageRequest, ApiError> {
    let page = function.page();
    Ok(PageRequest {
        limit: query_u32(req, "limit", page.default, 1, page.max)?,
        cursor: query(req, "cursor"),
    })
}

/// The page a request asks of `function` ([`page_request`]), read through its cursor if it
/// gave one: the cursor is checked against the binding `bind` makes from the limit
/// ([`store::Paging::new`]: the pattern and every parameter that selects its items).
pub fn paging<'d>(
    deps: &'d store::Deps,
    req: &Request,
    function: &Function,
    bind: impl FnOnce(u32) -> String,
) -> Result<store::Paging<'d>, ApiError> {
    Ok(store::Paging::new(
        deps,
        page_request(req, function)?,
        bind,
    )?)
}

/// A header's value, if present and text.
pub fn header(req: &Request, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}
