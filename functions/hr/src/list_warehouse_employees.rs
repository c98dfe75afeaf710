//! H7: `GET /warehouses/{warehouseId}/employees` → the employees who work there, from GSI1's
//! `WAREHOUSE#<warehouseId>` partition, where each employee's warehouse edge stands (AWS's
//! relational example, pattern 7), a page at a time (`limit`, default 50, 1..=100, signed
//! `cursor`). Staff only.

use crate::views as view;
use api::declare::*;
use keys::hr as k;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-warehouse-employees",
    Access::Staff,
    &Route::get(
        "/warehouses/{warehouseId}/employees",
        "H7: the employees of a warehouse (GSI1)",
        &[Pattern {
            id: "H7",
            route: "`GET /warehouses/{warehouseId}/employees?limit=&cursor=` (staff)",
            index: Index::Gsi1,
            request: "Query `GSI1PK = WAREHOUSE#<warehouseId>` (warehouse edges); within 32 read units at 2 KB an edge",
            returns: "`{warehouseId, employees, nextCursor}`",
            example: Example::staff("/warehouses/W1/employees"),
        }],
    )
    .paged(50),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>("a page of the warehouse's employees")];

api::page! {
    /// A page of a warehouse's employees.
    Page {
        warehouse_id: keys::Id,
        employees: Vec<view::Named>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let warehouse = api::path_id(&req, "warehouseId")?;
    let paging = api::paging(deps, &req, &FUNCTION, |limit| {
        format!("H7|{warehouse}|{limit}")
    })?;
    let query = deps.table.query(k::warehouse_employees(&warehouse));
    let largest = crate::data::LARGEST_EMPLOYEE_BYTES;
    let (employees, next_cursor) = paging
        .page_shown_within(query, largest, view::warehouse_employee)
        .await?;
    api::json(
        200,
        &Page {
            warehouse_id: warehouse,
            employees,
            next_cursor,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use testkit::Harness;

    #[tokio::test]
    async fn h7_lists_a_warehouses_employees_only() {
        let table = crate::fixtures::org_with(
            testkit::table().await,
            &[("E1", "Ada Lovelace"), ("E2", "Alan Turing")],
        )
        .await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let get = async |w: &str| {
            let path = format!("/warehouses/{w}/employees");
            h.as_staff().get(&path, &[]).await
        };
        let (s, b) = get("W1").await;
        assert_eq!(s, 200, "{b}");
        let names = testkit::column(&b["employees"], "name");
        assert_eq!(names, ["Ada Lovelace", "Alan Turing"]);
        assert_eq!(get("W2").await.1["employees"], json!([]));
        assert_eq!(get("W%231").await.0, 400);
    }
}
