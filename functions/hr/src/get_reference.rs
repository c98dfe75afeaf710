//! HR reference data read back, one record by id, staff only: `GET /regions/{regionId}`,
//! `/countries/{countryId}`, `/locations/{locationId}`, `/departments/{departmentId}`,
//! `/warehouses/{warehouseId}`, `/jobs/{jobId}`. ONE GetItem of `<TAG>#<id>` / `A`; the record as
//! its PUT answers it; 404 `<kind>_not_found`. One function for the six kinds: one access pattern
//! (read a reference record) with one shape and one policy.

use crate::data as hr;
use api::declare::*;
use model::hr::{Country, Department, Job, Location, ReferenceRecord, Region, Warehouse};

use crate::reference;

const REQUEST: &str = "GetItem `<TAG>#<id>` / `A`";

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "get-reference",
    access: Access::Staff,
    needs: Needs::TABLE,
    routes: &[
        Route::get(
            "/regions/{regionId}",
            "HR reference data read back: a region",
            &[Pattern {
                id: "",
                route: "`GET /regions/{regionId}` (staff)",
                index: Index::Table,
                request: REQUEST,
                returns: "the region; 404 `region_not_found`",
                example: Example::staff("/regions/EU"),
            }],
        ),
        Route::get(
            "/countries/{countryId}",
            "HR reference data read back: a country",
            &[Pattern {
                id: "",
                route: "`GET /countries/{countryId}` (staff)",
                index: Index::Table,
                request: REQUEST,
                returns: "the country; 404 `country_not_found`",
                example: Example::staff("/countries/DE"),
            }],
        ),
        Route::get(
            "/locations/{locationId}",
            "HR reference data read back: a location",
            &[Pattern {
                id: "",
                route: "`GET /locations/{locationId}` (staff)",
                index: Index::Table,
                request: REQUEST,
                returns: "the location; 404 `location_not_found`",
                example: Example::staff("/locations/BER"),
            }],
        ),
        Route::get(
            "/departments/{departmentId}",
            "HR reference data read back: a department",
            &[Pattern {
                id: "",
                route: "`GET /departments/{departmentId}` (staff)",
                index: Index::Table,
                request: REQUEST,
                returns: "the department; 404 `department_not_found`",
                example: Example::staff("/departments/SALES"),
            }],
        ),
        Route::get(
            "/warehouses/{warehouseId}",
            "HR reference data read back: a warehouse",
            &[Pattern {
                id: "",
                route: "`GET /warehouses/{warehouseId}` (staff)",
                index: Index::Table,
                request: REQUEST,
                returns: "the warehouse; 404 `warehouse_not_found`",
                example: Example::staff("/warehouses/W1"),
            }],
        ),
        Route::get(
            "/jobs/{jobId}",
            "HR reference data read back: a job and its title",
            &[Pattern {
                id: "",
                route: "`GET /jobs/{jobId}` (staff)",
                index: Index::Table,
                request: REQUEST,
                returns: "the job; 404 `job_not_found`",
                example: Example::staff("/jobs/SA_REP"),
            }],
        ),
    ],
};

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    reference::get::<Region>("the region", "getRegion"),
    reference::get::<Country>("the country", "getCountry"),
    reference::get::<Location>("the location", "getLocation"),
    reference::get::<Department>("the department", "getDepartment"),
    reference::get::<Warehouse>("the warehouse", "getWarehouse"),
    reference::get::<Job>("the job", "getJob"),
];

async fn get<R: ReferenceRecord>(deps: &Deps, req: &Request) -> Result<Response<Body>, ApiError> {
    let id = api::path_id(req, reference::id_param(R::KIND))?;
    let found = hr::reference::<R>(&deps.table, &id).await?;
    api::found(
        found,
        reference::view,
        reference::not_found(R::KIND),
        || format!("No such {}: {id}", reference::id_param(R::KIND)),
    )
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let kind = reference::kind_of(&req)?;
    reference::with_kind!(kind, get(deps, &req))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use testkit::Harness;

    #[tokio::test]
    async fn each_kind_reads_back_as_it_was_put_and_a_missing_one_is_404() {
        let table = crate::fixtures::org_with(testkit::table().await, &[]).await;
        crate::fixtures::job_record(&table, "SA_REP").await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        for (path, want) in [
            ("/regions/EU", json!({"regionId": "EU", "name": "Europe"})),
            (
                "/countries/DE",
                json!({"countryId": "DE", "name": "Germany", "regionId": "EU"}),
            ),
            (
                "/locations/BER",
                json!({"locationId": "BER", "name": "Berlin", "countryId": "DE"}),
            ),
            (
                "/departments/D1",
                json!({"departmentId": "D1", "name": "Sales", "locationId": "BER"}),
            ),
            (
                "/warehouses/W1",
                json!({"warehouseId": "W1", "name": "Warehouse W1", "regionId": "EU"}),
            ),
            (
                "/jobs/SA_REP",
                json!({"jobId": "SA_REP", "title": "SA_REP"}),
            ),
        ] {
            table.meter().reset();
            assert_eq!(h.as_staff().get(path, &[]).await, (200, want), "{path}");
            let requests = table.meter().requests();
            assert_eq!((requests.len(), requests[0].operation), (1, "GetItem"));
        }
        for (path, code) in [
            ("/regions/XX", "region_not_found"),
            ("/warehouses/W9", "warehouse_not_found"),
            ("/jobs/NOPE", "job_not_found"),
        ] {
            let (s, b) = h.as_staff().get(path, &[]).await;
            assert_eq!((s, b["code"].as_str()), (404, Some(code)), "{path}");
        }
        assert_eq!(h.as_staff().get("/jobs/SA%23REP", &[]).await.0, 400);
    }
}
