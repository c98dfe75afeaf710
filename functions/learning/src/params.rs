//! The learning context's own request parameters (beside the generic ones of
//! `api::parameters`), for its routes (Walch's talk): a course named by its name or its key, dates
//! as `YYYY-MM-DD`, locations and people as free text, certificate types and versions.

use keys::{
    Date,
    learning::{CertType, CertVersion, Course, Location, Name},
};
use lambda_http::Request;

use api::{ApiError, path, query};

/// The `{course}` path parameter: `Intro%20to%20DynamoDB` or `introtodynamodb`, one course.
pub fn path_course(req: &Request) -> Result<Course, ApiError> {
    path(req, "course", Course::parse)
}

/// A `YYYY-MM-DD` path parameter.
pub fn path_date(req: &Request, name: &'static str) -> Result<Date, ApiError> {
    path(req, name, Date::parse_iso)
}

pub fn path_location(req: &Request) -> Result<Location, ApiError> {
    path(req, "location", Location::parse)
}

pub fn path_name(req: &Request, name: &'static str) -> Result<Name, ApiError> {
    path(req, name, |v| Name::parse(name, v))
}

/// `certType`: one of the closed set, any case.
pub fn cert_type(name: &str, value: &str) -> Result<CertType, ApiError> {
    value.parse().map_err(|_| {
        let all: Vec<_> = CertType::ALL.iter().map(|t| t.tag()).collect();
        ApiError::invalid_parameter(name, format!("{value:?}: give one of {}", all.join(", ")))
    })
}

/// The `version` query parameter, as `openapi.yaml` documents it.
pub const VERSION: api::contract::Query = api::contract::Query::with(
    "version",
    "a certificate entity version",
    |_| schemars::json_schema!({ "type": "string", "enum": ["1", "2"] }),
);

/// The optional `version` query parameter (`1` or `2`).
pub fn query_version(req: &Request) -> Result<Option<CertVersion>, ApiError> {
    query(req, "version")
        .map(|v| {
            CertVersion::parse(&v)
                .map_err(|_| ApiError::invalid_parameter("version", format!("{v:?}: give 1 or 2")))
        })
        .transpose()
}
