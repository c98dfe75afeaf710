//! HR reference data (the relational schema of AWS's relational example), one route per kind,
//! staff only:
//! `PUT /regions/{regionId}` `{name}`, `PUT /countries/{countryId}` `{name, regionId}`,
//! `PUT /locations/{locationId}` `{name, countryId}`, `PUT /departments/{departmentId}`
//! `{name, locationId}`, `PUT /warehouses/{warehouseId}` `{name, regionId}`, `PUT /jobs/{jobId}`
//! `{title}` (seed 003's HR-Job: the one place a job's title is written).
//!
//! ONE transaction checks the parent exists and puts the record (`<TAG>#<id>`, `A`): 201 when
//! created, 200 when replaced (a second transaction, without the `attribute_not_exists`), 404
//! `<parent>_not_found` (nothing written) when the parent is missing. One function for the five
//! kinds: they are one access pattern (write a reference record) with one shape and one policy.

use crate::data::{self as hr, Put};
use api::declare::*;
use keys::{Id, Name, hr::Reference};
use model::hr::{Country, Department, Job, Location, ReferenceRecord, Region, Warehouse};
use serde::Deserialize;

use crate::reference;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "put-reference",
    access: Access::Staff,
    needs: Needs::TABLE,
    routes: &[
        Route::put(
            "/regions/{regionId}",
            "HR reference data: a region",
            &[Pattern {
                id: "",
                route: "`PUT /regions/{regionId}` `{name}` (staff)",
                index: Index::Table,
                request: "TransactWriteItems: Put `REGION#<id>` / `A` (`attribute_not_exists`, then again without when it exists)",
                returns: "201 / 200 the region",
                example: Example::staff("/regions/EU").with_body(r#"{"name": "Europe"}"#),
            }],
        ),
        Route::put(
            "/countries/{countryId}",
            "HR reference data: a country, in a region (checked in the same transaction)",
            &[Pattern {
                id: "",
                route: "`PUT /countries/{countryId}` `{name, regionId}` (staff)",
                index: Index::Table,
                request: "TransactWriteItems: ConditionCheck the parent; Put `<TAG>#<id>` / `A` (`attribute_not_exists`, then again without when it exists)",
                returns: "201 / 200 the country; 404 `region_not_found`",
                example: Example::staff("/countries/DE")
                    .with_body(r#"{"name": "Germany", "regionId": "EU"}"#),
            }],
        ),
        Route::put(
            "/locations/{locationId}",
            "HR reference data: a location, in a country (checked in the same transaction)",
            &[Pattern {
                id: "",
                route: "`PUT /locations/{locationId}` `{name, countryId}` (staff)",
                index: Index::Table,
                request: "TransactWriteItems: ConditionCheck the parent; Put `<TAG>#<id>` / `A` (`attribute_not_exists`, then again without when it exists)",
                returns: "201 / 200 the location; 404 `country_not_found`",
                example: Example::staff("/locations/BER")
                    .with_body(r#"{"name": "Berlin", "countryId": "DE"}"#),
            }],
        ),
        Route::put(
            "/departments/{departmentId}",
            "HR reference data: a department, at a location (checked in the same transaction)",
            &[Pattern {
                id: "",
                route: "`PUT /departments/{departmentId}` `{name, locationId}` (staff)",
                index: Index::Table,
                request: "TransactWriteItems: ConditionCheck the parent; Put `<TAG>#<id>` / `A` (`attribute_not_exists`, then again without when it exists)",
                returns: "201 / 200 the department; 404 `location_not_found`",
                example: Example::staff("/departments/SALES")
                    .with_body(r#"{"name": "Sales", "locationId": "BER"}"#),
            }],
        ),
        Route::put(
            "/warehouses/{warehouseId}",
            "HR reference data: a warehouse, in a region (checked in the same transaction)",
            &[Pattern {
                id: "",
                route: "`PUT /warehouses/{warehouseId}` `{name, regionId}` (staff)",
                index: Index::Table,
                request: "TransactWriteItems: ConditionCheck the parent; Put `<TAG>#<id>` / `A` (`attribute_not_exists`, then again without when it exists)",
                returns: "201 / 200 the warehouse; 404 `region_not_found`",
                example: Example::staff("/warehouses/W3")
                    .with_body(r#"{"name": "Marzahn", "regionId": "EU"}"#),
            }],
        ),
        Route::put(
            "/jobs/{jobId}",
            "HR reference data: a job and its title (renamed for every holder at once)",
            &[Pattern {
                id: "",
                route: "`PUT /jobs/{jobId}` `{title}` (staff)",
                index: Index::Table,
                request: "TransactWriteItems: Put `JOB#<id>` / `A` (`attribute_not_exists`, then again without when it exists)",
                returns: "201 / 200 the job",
                example: Example::staff("/jobs/SA_MAN").with_body(r#"{"title": "Sales Manager"}"#),
            }],
        ),
    ],
};

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    reference::put::<Region>("replaced", "putRegion").worst(worst::<0>),
    reference::put::<Country>("replaced", "putCountry").worst(worst::<1>),
    reference::put::<Location>("replaced", "putLocation").worst(worst::<2>),
    reference::put::<Department>("replaced", "putDepartment").worst(worst::<3>),
    reference::put::<Warehouse>("replaced", "putWarehouse").worst(worst::<4>),
    reference::put::<Job>("replaced (renamed)", "putJob").worst(worst::<5>),
];
pub use crate::reference::MAX_NAME_CHARS;

/// Characters of 4 bytes in the name (or title) of route `route`'s largest record: a job's
/// title is a key name ([`keys::MAX_TEXT_LEN`]), any other name [`MAX_NAME_CHARS`].
pub fn longest_name(route: usize) -> (&'static str, usize) {
    let example = FUNCTION.routes[route].patterns[0].example;
    if example.body.is_some_and(|b| b.contains("\"title\"")) {
        ("title", keys::MAX_TEXT_LEN)
    } else {
        ("name", MAX_NAME_CHARS)
    }
}

/// The request of route `route` with its name (or title) at the most characters of 4 bytes.
pub fn largest(route: usize) -> Example {
    use api::function::{leak, widest_text};
    let example = FUNCTION.routes[route].patterns[0].example;
    let mut body: serde_json::Value =
        serde_json::from_str(example.body.expect("a body")).expect("JSON");
    let (field, chars) = longest_name(route);
    body[field] = widest_text(chars).into();
    Example {
        body: Some(leak(body.to_string())),
        ..example
    }
}

/// Route `ROUTE`'s costliest write: its sample's record, named at the most characters.
fn worst<const ROUTE: usize>() -> api::function::Worst {
    let (field, chars) = longest_name(ROUTE);
    api::function::Worst::new(
        format!("a {field} of {chars} characters of 4 bytes"),
        largest(ROUTE),
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Record {
    name: Option<String>,
    title: Option<String>,
    region_id: Option<String>,
    country_id: Option<String>,
    location_id: Option<String>,
}

async fn put<R: ReferenceRecord>(deps: &Deps, record: R) -> Result<Response<Body>, ApiError> {
    match hr::put_reference(&deps.table, &record).await? {
        Put::Created(()) => api::json(201, &reference::view(&record)),
        Put::Replaced(()) => api::json(200, &reference::view(&record)),
        Put::Missing(kind) => Err(reference::not_found(kind).because(format!(
            "No such {}: {}",
            reference::id_param(kind),
            record.parent().map_or("", Id::as_str)
        ))),
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let kind = reference::kind_of(&req)?;
    let id = api::path_id(&req, reference::id_param(kind))?;
    let body: Record = api::json_body(&req)?;
    // Exactly the name field and the parent this kind has, and no other.
    let name_field = reference::name_field(kind);
    let parent_field = kind.parent().map(reference::id_param);
    let given = [
        ("name", &body.name, name_field == "name"),
        ("title", &body.title, name_field == "title"),
        (
            "regionId",
            &body.region_id,
            parent_field == Some("regionId"),
        ),
        (
            "countryId",
            &body.country_id,
            parent_field == Some("countryId"),
        ),
        (
            "locationId",
            &body.location_id,
            parent_field == Some("locationId"),
        ),
    ];
    for (field, value, wanted) in given {
        if value.is_some() != wanted {
            return Err(Common::InvalidBody.because(match value {
                Some(_) => format!("{field} is not a field of this record"),
                None => format!("{field} is required"),
            }));
        }
    }
    let name = body
        .name
        .or(body.title)
        .map(|n| n.trim().to_owned())
        .unwrap_or_default();
    api::text_field(name_field, &name, MAX_NAME_CHARS)?;
    let parent = [body.region_id, body.country_id, body.location_id]
        .into_iter()
        .flatten()
        .next()
        .map(|v| api::field(parent_field.unwrap_or("parent"), Id::parse("parent", &v)))
        .transpose()?;
    // A record with a parent: its own id, its name and its parent's id, under their names.
    macro_rules! with_parent {
        ($record:ident, $id:ident, $parent:ident) => {{
            let $parent = parent.expect("checked above: this kind has a parent");
            put(
                deps,
                $record {
                    $id: id,
                    name,
                    $parent,
                },
            )
            .await
        }};
    }
    match kind {
        Reference::Region => {
            put(
                deps,
                Region {
                    region_id: id,
                    name,
                },
            )
            .await
        }
        Reference::Country => with_parent!(Country, country_id, region_id),
        Reference::Location => with_parent!(Location, location_id, country_id),
        Reference::Department => with_parent!(Department, department_id, location_id),
        Reference::Warehouse => with_parent!(Warehouse, warehouse_id, region_id),
        Reference::Job => {
            let title = api::field("title", Name::parse("title", &name))?;
            put(deps, Job { job_id: id, title }).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use testkit::{Harness, all_items};

    #[tokio::test]
    async fn each_kind_needs_its_parent_and_is_created_then_replaced() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let put = async |path: &str, body: &str| h.as_staff().put(path, body).await;
        let (s, b) = put("/countries/DE", r#"{"name":"Germany","regionId":"EU"}"#).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("region_not_found")));
        assert!(all_items(table).await.is_empty(), "nothing written");
        for (path, body) in [
            ("/regions/EU", r#"{"name":"Europe"}"#),
            ("/countries/DE", r#"{"name":"Germany","regionId":"EU"}"#),
            ("/locations/BER", r#"{"name":"Berlin","countryId":"DE"}"#),
            (
                "/departments/SALES",
                r#"{"name":"Sales","locationId":"BER"}"#,
            ),
            ("/warehouses/W1", r#"{"name":"Spandau","regionId":"EU"}"#),
            ("/jobs/SA_REP", r#"{"title":"Sales  Representative"}"#),
        ] {
            let (s, b) = put(path, body).await;
            assert_eq!(s, 201, "{path}: {b}");
            let sent = serde_json::from_str::<Value>(body).unwrap();
            assert_eq!(b["name"], sent["name"]);
            assert_eq!(
                b.as_object().unwrap().len(),
                sent.as_object().unwrap().len() + 1
            );
            let (s, _) = put(path, body).await;
            assert_eq!(s, 200, "{path} replaced");
        }
        let types: Vec<_> = all_items(table)
            .await
            .iter()
            .map(|i| model::type_of(i).unwrap().to_owned())
            .collect();
        assert_eq!(types.len(), 6);
        let job = &h
            .as_staff()
            .put("/jobs/SA_REP", r#"{"title":"Sales Rep"}"#)
            .await
            .1;
        assert_eq!(
            job,
            &serde_json::json!({"jobId": "SA_REP", "title": "Sales Rep"})
        );
    }

    #[tokio::test]
    async fn a_body_names_exactly_its_own_parent() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let put = async |path: &str, body: &str| h.as_staff().put(path, body).await;
        for (path, body) in [
            ("/regions/EU", r#"{"name":"Europe","regionId":"EU"}"#),
            ("/countries/DE", r#"{"name":"Germany"}"#),
            ("/countries/DE", r#"{"name":"Germany","countryId":"EU"}"#),
            ("/warehouses/W1", r#"{"name":"W","regionId":"E#U"}"#),
            ("/regions/E%23U", r#"{"name":"Europe"}"#),
            ("/regions/EU", r#"{"name":"  "}"#),
            ("/regions/EU", r#"{"name":"Europe","extra":1}"#),
            ("/regions/EU", r#"{"title":"Europe"}"#),
            ("/jobs/SA_REP", r#"{"name":"Sales Rep"}"#),
            ("/jobs/SA_REP", r#"{"title":"Sales Rep","regionId":"EU"}"#),
            ("/jobs/SA_REP", r#"{"title":" "}"#),
        ] {
            let (s, b) = put(path, body).await;
            assert_eq!(s, 400, "{path} {body}: {b}");
        }
        assert!(all_items(table).await.is_empty());
    }
}
