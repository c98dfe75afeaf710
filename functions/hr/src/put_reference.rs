//! HR reference data (the relational schema of AWS's relational example), one route per kind,
//! staff only:
//! `PUT /regions/{regionId}` `{name}`, `PUT /countries/{countryId}` `{name, regionId}`,
//! `PUT /locations/{locationId}` `{name, countryId}`, `PUT /departments/{departmentId}`
//! `{name, locationId}`, `PUT /warehouses/{warehouseId}` `{name, regionId}`.
//!
//! ONE transaction checks the parent exists and puts the record (`<TAG>#<id>`, `A`): 201 when
//! created, 200 when replaced (a second transaction, without the `attribute_not_exists`), 404
//! `<parent>_not_found` (nothing written) when the parent is missing. One function for the five
//! kinds: they are one access pattern (write a reference record) with one shape and one policy.

use api::declare::*;
use api::{Access, ApiError};
use keys::{Id, hr::Reference};
use lambda_http::{Body, Request, RequestExt, Response};
use model::hr::{Country, Department, Location, ReferenceRecord, Region, Warehouse};
use serde::Deserialize;
use serde_json::{Value, json};
use store::{
    Deps, Needs,
    hr::{self, Put},
};

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
    ],
};
pub const MAX_NAME_CHARS: usize = 200;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Record {
    name: String,
    region_id: Option<String>,
    country_id: Option<String>,
    location_id: Option<String>,
}

/// The path parameter that names each kind's record, and the body field that names its parent.
fn id_param(kind: Reference) -> &'static str {
    match kind {
        Reference::Region => "regionId",
        Reference::Country => "countryId",
        Reference::Location => "locationId",
        Reference::Department => "departmentId",
        Reference::Warehouse => "warehouseId",
    }
}

fn not_found_code(kind: Reference) -> &'static str {
    match kind {
        Reference::Region => "region_not_found",
        Reference::Country => "country_not_found",
        Reference::Location => "location_not_found",
        Reference::Department => "department_not_found",
        Reference::Warehouse => "warehouse_not_found",
    }
}

async fn put<R: ReferenceRecord>(
    deps: &Deps,
    record: R,
    view: Value,
) -> Result<Response<Body>, ApiError> {
    match hr::put_reference(&deps.table, &record).await? {
        Put::Created(()) => api::json(201, &view),
        Put::Replaced(()) => api::json(200, &view),
        Put::Missing(kind) => Err(ApiError::not_found(
            not_found_code(kind),
            format!(
                "No such {}: {}",
                id_param(kind),
                record.parent().map_or("", Id::as_str)
            ),
        )),
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let params = req.path_parameters();
    let kind = Reference::ALL
        .into_iter()
        .find(|k| params.first(id_param(*k)).is_some())
        .ok_or_else(|| ApiError::bad_request("invalid_parameter", "no record id in the path"))?;
    let id = api::path_id(&req, id_param(kind))?;
    let body: Record = api::json_body(&req)?;
    let name = body.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::bad_request(
            "invalid_body",
            format!("name: give 1 to {MAX_NAME_CHARS} characters"),
        ));
    }
    // Exactly the parent this kind names, and no other.
    let parent_field = kind.parent().map(id_param);
    let given = [
        ("regionId", &body.region_id),
        ("countryId", &body.country_id),
        ("locationId", &body.location_id),
    ];
    for (field, value) in given {
        if value.is_some() != (Some(field) == parent_field) {
            return Err(ApiError::bad_request(
                "invalid_body",
                match value {
                    Some(_) => format!("{field} is not a field of this record"),
                    None => format!("{field} is required"),
                },
            ));
        }
    }
    let parent = given
        .iter()
        .find_map(|(field, value)| {
            value
                .as_deref()
                .map(|v| api::field(field, Id::parse("parent", v)))
        })
        .transpose()?;
    let mut view = json!({ id_param(kind): id.as_str(), "name": name });
    if let (Some(field), Some(p)) = (parent_field, &parent) {
        view[field] = p.as_str().into();
    }
    let parent = || {
        parent
            .clone()
            .expect("checked above: this kind has a parent")
    };
    match kind {
        Reference::Region => {
            put(
                deps,
                Region {
                    region_id: id,
                    name,
                },
                view,
            )
            .await
        }
        Reference::Country => {
            put(
                deps,
                Country {
                    country_id: id,
                    name,
                    region_id: parent(),
                },
                view,
            )
            .await
        }
        Reference::Location => {
            put(
                deps,
                Location {
                    location_id: id,
                    name,
                    country_id: parent(),
                },
                view,
            )
            .await
        }
        Reference::Department => {
            put(
                deps,
                Department {
                    department_id: id,
                    name,
                    location_id: parent(),
                },
                view,
            )
            .await
        }
        Reference::Warehouse => {
            put(
                deps,
                Warehouse {
                    warehouse_id: id,
                    name,
                    region_id: parent(),
                },
                view,
            )
            .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use testkit::{Harness, all_items};

    #[tokio::test]
    async fn each_kind_needs_its_parent_and_is_created_then_replaced() {
        let table = testkit::table().await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let put = async |path: &str, body: &str| h.as_staff().put(path, body).await;
        let (s, b) = put("/countries/DE", r#"{"name":"Germany","regionId":"EU"}"#).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("region_not_found")));
        assert!(all_items(&table).await.is_empty(), "nothing written");
        for (path, body) in [
            ("/regions/EU", r#"{"name":"Europe"}"#),
            ("/countries/DE", r#"{"name":"Germany","regionId":"EU"}"#),
            ("/locations/BER", r#"{"name":"Berlin","countryId":"DE"}"#),
            (
                "/departments/SALES",
                r#"{"name":"Sales","locationId":"BER"}"#,
            ),
            ("/warehouses/W1", r#"{"name":"Spandau","regionId":"EU"}"#),
        ] {
            let (s, b) = put(path, body).await;
            assert_eq!(s, 201, "{path}: {b}");
            assert_eq!(
                b["name"],
                serde_json::from_str::<Value>(body).unwrap()["name"]
            );
            let (s, _) = put(path, body).await;
            assert_eq!(s, 200, "{path} replaced");
        }
        let types: Vec<_> = all_items(&table)
            .await
            .iter()
            .map(|i| model::type_of(i).unwrap().to_owned())
            .collect();
        assert_eq!(types.len(), 5);
    }

    #[tokio::test]
    async fn a_body_names_exactly_its_own_parent() {
        let table = testkit::table().await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let put = async |path: &str, body: &str| h.as_staff().put(path, body).await;
        for (path, body) in [
            ("/regions/EU", r#"{"name":"Europe","regionId":"EU"}"#),
            ("/countries/DE", r#"{"name":"Germany"}"#),
            ("/countries/DE", r#"{"name":"Germany","countryId":"EU"}"#),
            ("/warehouses/W1", r#"{"name":"W","regionId":"E#U"}"#),
            ("/regions/E%23U", r#"{"name":"Europe"}"#),
            ("/regions/EU", r#"{"name":"  "}"#),
            ("/regions/EU", r#"{"name":"Europe","extra":1}"#),
        ] {
            let (s, b) = put(path, body).await;
            assert_eq!(s, 400, "{path} {body}: {b}");
        }
        assert!(all_items(&table).await.is_empty());
    }
}
