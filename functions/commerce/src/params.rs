//! Commerce's own request parameters, beside the generic ones of `api::parameters`.

use api::{ApiError, Refusal, query_date};
use keys::Date;
use lambda_http::Request;

/// The query parameters [`query_order_dates`] reads, as `openapi.yaml` documents them.
pub const ORDER_DATES: [api::contract::Query; 2] = [
    api::contract::Query::of::<Date>("from", ""),
    api::contract::Query::of::<Date>("to", ""),
];

/// A date range whose `from` is after its `to`.
pub const INVALID_RANGE: Refusal =
    Refusal::new(400, "invalid_range", "the range's `from` is after its `to`");

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
        return Err(INVALID_RANGE.because(format!("from ({from}) is after to ({to})")));
    }
    Ok((from, to))
}
