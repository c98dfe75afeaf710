//! The reviews context's own request parameters, beside the generic ones of `api::parameters`.

use api::{ApiError, path};
use keys::reviews::Isbn;
use lambda_http::Request;

/// The `{isbn}` path parameter: an ISBN-10 or ISBN-13 (hyphens allowed), normalised to 13 digits.
pub fn path_isbn(req: &Request) -> Result<Isbn, ApiError> {
    path(req, "isbn", Isbn::parse)
}
