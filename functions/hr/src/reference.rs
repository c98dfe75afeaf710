//! What the reference-data routes share: each kind's path parameter, the field its name is given
//! in (a job's is `title`), its parent's field, its refusal when there is none, and how a record is shown.

use std::{borrow::Cow, marker::PhantomData};

use api::{Refusal, contract::Contract};
use keys::{Id, hr::Reference, schema::FreeText};
use model::hr::ReferenceRecord;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

/// The longest name of a reference record (a job's title is a key name instead,
/// [`keys::MAX_TEXT_LEN`]).
pub const MAX_NAME_CHARS: usize = 200;

/// The largest reference record there can be (the longest ids, the widest name or title, its
/// keys): what a page of them is read within the read budget at. A test builds each kind's
/// largest and measures it.
pub const LARGEST_REFERENCE_BYTES: u32 = 2 * 1024;

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

api::refusals! {
    /// A reference record that does not exist: the one a route addresses, or the parent a
    /// write names.
    pub enum NotFound {
        Region = Refusal::new(404, "region_not_found", "no region has that id"),
        Country = Refusal::new(404, "country_not_found", "no country has that id"),
        Location = Refusal::new(404, "location_not_found", "no location has that id"),
        Department = Refusal::new(404, "department_not_found", "no department has that id"),
        Warehouse = Refusal::new(404, "warehouse_not_found", "no warehouse has that id"),
        Job = Refusal::new(404, "job_not_found", "no job has that id"),
    }
}

/// The refusal of a record of `kind` that does not exist.
pub const fn not_found(kind: Reference) -> NotFound {
    match kind {
        Reference::Region => NotFound::Region,
        Reference::Country => NotFound::Country,
        Reference::Location => NotFound::Location,
        Reference::Department => NotFound::Department,
        Reference::Warehouse => NotFound::Warehouse,
        Reference::Job => NotFound::Job,
    }
}

/// [`not_found`] of `kind`, as what a contract documents.
const fn documented_not_found(kind: Reference) -> &'static [Refusal] {
    // `ALL` lists the variants in their order.
    std::slice::from_ref(&NotFound::ALL[not_found(kind) as usize])
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
        .ok_or_else(|| api::Common::InvalidParameter.because("the path names no kind of record"))
}

/// The kind as `openapi.yaml` names its schemas (`RegionRecord`).
fn title(kind: Reference) -> &'static str {
    match kind {
        Reference::Region => "Region",
        Reference::Country => "Country",
        Reference::Location => "Location",
        Reference::Department => "Department",
        Reference::Warehouse => "Warehouse",
        Reference::Job => "Job",
    }
}

/// A record as every reference route shows it: `{<kind>Id, name (title), <parent>Id}`, its
/// schema (`RegionRecord`, ...) derived from its kind as the record itself is.
pub struct Shown<R>(Value, PhantomData<R>);

pub fn view<R: ReferenceRecord>(record: &R) -> Shown<R> {
    let mut out = json!({
        id_param(R::KIND): record.id().as_str(),
        name_field(R::KIND): record.name(),
    });
    if let (Some(kind), Some(parent)) = (R::KIND.parent(), record.parent()) {
        out[id_param(kind)] = parent.as_str().into();
    }
    Shown(out, PhantomData)
}

impl<R> Serialize for Shown<R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// A record's members, its name's schema `name`: its id (as shown, not as sent: the path names
/// it), the name (title), the parent's id.
fn members(kind: Reference, generator: &mut SchemaGenerator, name: Schema, id: bool) -> Schema {
    let mut properties = Map::new();
    if id {
        properties.insert(
            id_param(kind).into(),
            generator.subschema_for::<Id>().into(),
        );
    }
    properties.insert(name_field(kind).into(), name.into());
    if let Some(parent) = kind.parent() {
        properties.insert(
            id_param(parent).into(),
            generator.subschema_for::<Id>().into(),
        );
    }
    let required: Vec<&String> = properties.keys().collect();
    json_schema!({ "type": "object", "required": required, "properties": properties })
}

impl<R: ReferenceRecord> JsonSchema for Shown<R> {
    fn schema_name() -> Cow<'static, str> {
        format!("{}Record", title(R::KIND)).into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = members(R::KIND, generator, json_schema!({ "type": "string" }), true);
        let description = match R::KIND {
            Reference::Job => {
                "a job (HR reference data); the one place its title is written".to_owned()
            }
            kind => format!("a {} (HR reference data)", title(kind).to_lowercase()),
        };
        schema.insert("description".into(), description.into());
        schema
    }
}

/// The body of a PUT of a record of `R`'s kind: its name (a job's title, key text) and its
/// parent's id, each required, no other member.
pub struct Sent<R>(PhantomData<R>);

impl<R: ReferenceRecord> JsonSchema for Sent<R> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("Put{}", title(R::KIND)).into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let name = match R::KIND {
            Reference::Job => generator.subschema_for::<FreeText>(),
            _ => json_schema!({
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_NAME_CHARS,
            }),
        };
        members(R::KIND, generator, name, false)
    }
}

/// A page of records of `R`'s kind: `{<collection>: [...], nextCursor}`.
pub struct Listed<R>(PhantomData<R>);

impl<R: ReferenceRecord> JsonSchema for Listed<R> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("{}Page", title(R::KIND)).into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let records = generator.subschema_for::<Vec<Shown<R>>>();
        let cursor = generator.subschema_for::<api::wire::NextCursor>();
        let list = collection(R::KIND);
        json_schema!({
            "type": "object",
            "required": [list, "nextCursor"],
            "properties": { list: records, "nextCursor": cursor },
        })
    }
}

/// `get-reference`'s contract for `R`'s kind: `the` record, or 404.
pub const fn get<R: ReferenceRecord>(the: &'static str, operation_id: &'static str) -> Contract {
    Contract::ok::<Shown<R>>(the)
        .refusals(documented_not_found(R::KIND))
        .operation_id(operation_id)
}

/// `list-references`' contract for `R`'s kind: a `page` of its records.
pub const fn list<R: ReferenceRecord>(page: &'static str, operation_id: &'static str) -> Contract {
    Contract::ok::<Listed<R>>(page).operation_id(operation_id)
}

/// `put-reference`'s contract for `R`'s kind: its record sent, 200 when it `replaced` one, 201
/// when created; 404 when the parent it names does not exist (a kind with a parent).
pub const fn put<R: ReferenceRecord>(
    replaced: &'static str,
    operation_id: &'static str,
) -> Contract {
    let refusals: &[Refusal] = match R::KIND.parent() {
        Some(parent) => documented_not_found(parent),
        None => &[],
    };
    Contract::put::<Shown<R>>(replaced, "created")
        .body::<Sent<R>>()
        .refusals(refusals)
        .operation_id(operation_id)
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

#[cfg(test)]
mod tests {
    use keys::{Id, MAX_ID_LEN, MAX_TEXT_LEN, Name};
    use model::hr::{Country, Department, Job, Location, Region, Warehouse};

    use super::*;

    /// Every kind's largest record (64-character ids, a name of `MAX_NAME_CHARS` characters of
    /// 4 bytes, a job's title of `MAX_TEXT_LEN`) is at most `LARGEST_REFERENCE_BYTES`, and the
    /// largest of them within 1 KB of it.
    #[test]
    fn the_largest_reference_record_is_within_its_bound() {
        let id = |c: &str| Id::parse("id", &c.repeat(MAX_ID_LEN)).unwrap();
        let name = api::function::widest_text(MAX_NAME_CHARS);
        let size = |item: model::Item| testkit::item_size(&item);
        let sizes = [
            size(
                model::to_item(&Region {
                    region_id: id("r"),
                    name: name.clone(),
                })
                .unwrap(),
            ),
            size(
                model::to_item(&Country {
                    country_id: id("c"),
                    name: name.clone(),
                    region_id: id("r"),
                })
                .unwrap(),
            ),
            size(
                model::to_item(&Location {
                    location_id: id("l"),
                    name: name.clone(),
                    country_id: id("c"),
                })
                .unwrap(),
            ),
            size(
                model::to_item(&Department {
                    department_id: id("d"),
                    name: name.clone(),
                    location_id: id("l"),
                })
                .unwrap(),
            ),
            size(
                model::to_item(&Warehouse {
                    warehouse_id: id("w"),
                    name: name.clone(),
                    region_id: id("r"),
                })
                .unwrap(),
            ),
            size(
                model::to_item(&Job {
                    job_id: id("j"),
                    title: Name::parse("title", &api::function::widest_text(MAX_TEXT_LEN)).unwrap(),
                })
                .unwrap(),
            ),
        ];
        let largest = LARGEST_REFERENCE_BYTES as usize;
        let most = sizes.iter().max().copied().unwrap();
        assert!(most <= largest && most + 1024 > largest, "{sizes:?}");
    }
}
