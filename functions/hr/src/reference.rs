//! What the reference-data routes share: each kind's path parameter, the field its name is given
//! in (a job's is `title`), its parent's field, its `not_found` code, and how a record is shown.

use keys::hr::Reference;
use model::hr::ReferenceRecord;
use serde_json::{Value, json};

/// The path parameter that names a record of the kind, and the body field that names it as parent.
pub fn id_param(kind: Reference) -> &'static str {
    match kind {
        Reference::Region => "regionId",
        Reference::Country => "countryId",
        Reference::Location => "locationId",
        Reference::Department => "departmentId",
        Reference::Warehouse => "warehouseId",
        Reference::Job => "jobId",
    }
}

/// The field that holds the record's name: a job has a title, every other kind a name.
pub fn name_field(kind: Reference) -> &'static str {
    match kind {
        Reference::Job => "title",
        _ => "name",
    }
}

pub fn not_found_code(kind: Reference) -> &'static str {
    match kind {
        Reference::Region => "region_not_found",
        Reference::Country => "country_not_found",
        Reference::Location => "location_not_found",
        Reference::Department => "department_not_found",
        Reference::Warehouse => "warehouse_not_found",
        Reference::Job => "job_not_found",
    }
}

/// The path segment of the kind's collection: `/regions`, `/regions/{regionId}`, ...
pub fn collection(kind: Reference) -> &'static str {
    match kind {
        Reference::Region => "regions",
        Reference::Country => "countries",
        Reference::Location => "locations",
        Reference::Department => "departments",
        Reference::Warehouse => "warehouses",
        Reference::Job => "jobs",
    }
}

/// The kind a request's path names: by its id parameter (`/regions/{regionId}`), or else by its
/// collection (`/regions`); 400 `invalid_parameter` on a path that names none (no route of these
/// functions does).
pub fn kind_of(req: &lambda_http::Request) -> Result<Reference, api::ApiError> {
    use lambda_http::RequestExt;
    let params = req.path_parameters();
    Reference::ALL
        .into_iter()
        .find(|k| params.first(id_param(*k)).is_some())
        .or_else(|| {
            let last = req.uri().path().trim_end_matches('/').rsplit('/').next()?;
            Reference::ALL.into_iter().find(|k| collection(*k) == last)
        })
        .ok_or_else(|| {
            api::ApiError::bad_request("invalid_parameter", "the path names no kind of record")
        })
}

/// A record as every reference route shows it: `{<kind>Id, name (title), <parent>Id}`.
pub fn view<R: ReferenceRecord>(record: &R) -> Value {
    let mut out = json!({
        id_param(R::KIND): record.id().as_str(),
        name_field(R::KIND): record.name(),
    });
    if let (Some(kind), Some(parent)) = (R::KIND.parent(), record.parent()) {
        out[id_param(kind)] = parent.as_str().into();
    }
    out
}

/// `f::<R>(args..).await` for the record type `R` of `kind`: one dispatch for the routes that
/// serve every kind alike.
macro_rules! with_kind {
    ($kind:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $kind {
            keys::hr::Reference::Region => $f::<model::hr::Region>($($arg),*).await,
            keys::hr::Reference::Country => $f::<model::hr::Country>($($arg),*).await,
            keys::hr::Reference::Location => $f::<model::hr::Location>($($arg),*).await,
            keys::hr::Reference::Department => $f::<model::hr::Department>($($arg),*).await,
            keys::hr::Reference::Warehouse => $f::<model::hr::Warehouse>($($arg),*).await,
            keys::hr::Reference::Job => $f::<model::hr::Job>($($arg),*).await,
        }
    };
}
pub(crate) use with_kind;
