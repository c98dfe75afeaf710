//! HR reference data listed, one kind at a time, by id, staff only, a page at a time (`limit`,
//! default 50, 1..=100, signed `cursor`): `GET /regions`, `/countries`, `/locations`,
//! `/departments`, `/warehouses`, `/jobs`. ONE query of the kind's GSI2 partition
//! (`REFERENCE#<TAG>`, where every record of the kind stands under `<TAG>#<id>`): reference data
//! is small and rarely written, so one partition per kind is cheap and never hot. Each record as
//! its PUT answers it.

use api::declare::*;
use keys::hr as k;
use model::hr::{Country, Department, Job, Location, ReferenceRecord, Region, Warehouse};

use crate::reference;

const REQUEST: &str = "Query `GSI2PK = REFERENCE#<TAG>` (the kind's records, by id); within 32 read units at 2 KB a record";

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "list-references",
    access: Access::Staff,
    needs: Needs::CURSORS,
    routes: &[
        Route::get(
            "/regions",
            "HR reference data listed: the regions, by id",
            &[Pattern {
                id: "",
                route: "`GET /regions?limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: REQUEST,
                returns: "`{regions, nextCursor}`",
                example: Example::staff("/regions"),
            }],
        )
        .paged(50),
        Route::get(
            "/countries",
            "HR reference data listed: the countries, by id",
            &[Pattern {
                id: "",
                route: "`GET /countries?limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: REQUEST,
                returns: "`{countries, nextCursor}`",
                example: Example::staff("/countries"),
            }],
        )
        .paged(50),
        Route::get(
            "/locations",
            "HR reference data listed: the locations, by id",
            &[Pattern {
                id: "",
                route: "`GET /locations?limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: REQUEST,
                returns: "`{locations, nextCursor}`",
                example: Example::staff("/locations"),
            }],
        )
        .paged(50),
        Route::get(
            "/departments",
            "HR reference data listed: the departments, by id",
            &[Pattern {
                id: "",
                route: "`GET /departments?limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: REQUEST,
                returns: "`{departments, nextCursor}`",
                example: Example::staff("/departments"),
            }],
        )
        .paged(50),
        Route::get(
            "/warehouses",
            "HR reference data listed: the warehouses, by id",
            &[Pattern {
                id: "",
                route: "`GET /warehouses?limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: REQUEST,
                returns: "`{warehouses, nextCursor}`",
                example: Example::staff("/warehouses"),
            }],
        )
        .paged(50),
        Route::get(
            "/jobs",
            "HR reference data listed: the jobs and their titles, by id",
            &[Pattern {
                id: "",
                route: "`GET /jobs?limit=&cursor=` (staff)",
                index: Index::Gsi2,
                request: REQUEST,
                returns: "`{jobs, nextCursor}`",
                example: Example::staff("/jobs"),
            }],
        )
        .paged(50),
    ],
};

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    reference::list::<Region>("a page of the regions, by id", "listRegions"),
    reference::list::<Country>("a page of the countries, by id", "listCountries"),
    reference::list::<Location>("a page of the locations, by id", "listLocations"),
    reference::list::<Department>("a page of the departments, by id", "listDepartments"),
    reference::list::<Warehouse>("a page of the warehouses, by id", "listWarehouses"),
    reference::list::<Job>("a page of the jobs, by id", "listJobs"),
];

async fn list<R: ReferenceRecord>(deps: &Deps, req: &Request) -> Result<Response<Body>, ApiError> {
    let kind = R::KIND;
    let paging = api::paging(deps, req, &FUNCTION, |limit| {
        format!("references|{}|{limit}", kind.tag())
    })?;
    let query = deps.table.query(k::references(kind));
    let largest = reference::LARGEST_REFERENCE_BYTES;
    let (records, next) = paging
        .page_shown_within(query, largest, reference::view::<R>)
        .await?;
    api::json(
        200,
        &serde_json::json!({ reference::collection(kind): records, "nextCursor": next }),
    )
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let kind = reference::kind_of(&req)?;
    reference::with_kind!(kind, list(deps, &req))
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::hr::Reference;
    use serde_json::{Value, json};
    use testkit::Harness;

    #[tokio::test]
    async fn each_kind_lists_its_own_records_by_id_a_page_at_a_time() {
        let table = crate::fixtures::org_with(testkit::table().await, &[]).await;
        for job in ["SA_REP", "CLERK", "LEAD"] {
            crate::fixtures::job_record(&table, job).await;
        }
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let ids = |pages: Vec<Value>, kind: Reference| -> Vec<String> {
            let (list, id) = (reference::collection(kind), reference::id_param(kind));
            testkit::column_of_pages(&pages, list, id)
        };
        let jobs = h.as_staff().walk("/jobs", &[], "2").await;
        assert_eq!(jobs.len(), 2, "two pages of two");
        assert_eq!(
            jobs[0]["jobs"][0],
            json!({"jobId": "CLERK", "title": "CLERK"})
        );
        assert_eq!(ids(jobs, Reference::Job), ["CLERK", "LEAD", "SA_REP"]);
        let warehouses = h.as_staff().walk("/warehouses", &[], "50").await;
        assert_eq!(ids(warehouses, Reference::Warehouse), ["W1", "W2"]);
        for (path, kind, want) in [
            ("/regions", Reference::Region, ["EU"]),
            ("/countries", Reference::Country, ["DE"]),
            ("/locations", Reference::Location, ["BER"]),
            ("/departments", Reference::Department, ["D1"]),
        ] {
            table.meter().reset();
            assert_eq!(ids(h.as_staff().walk(path, &[], "50").await, kind), want);
            let requests = table.meter().requests();
            assert_eq!(
                (requests.len(), requests[0].index),
                (1, Some("GSI2")),
                "{path}"
            );
        }
        assert_eq!(h.as_staff().get("/jobs", &[("limit", "0")]).await.0, 400);
        assert_eq!(
            h.as_staff().get("/jobs", &[("cursor", "forged")]).await.0,
            400
        );
    }
}
