//! `PUT /employees/{employeeId}` `{name, hireDate, warehouseId?}`: creates (201) or replaces
//! (200) an employee, staff only. ONE transaction writes the employee (on the revision it read)
//! and keeps its edges in step: the warehouse edge follows `warehouseId` (the warehouse checked
//! to exist: 404 `warehouse_not_found` otherwise, nothing written) and a new name is copied onto
//! the current-job and warehouse edges (`crate::data::put_employee`).

use crate::data::{self as hr, EmployeeInput, Put};
use crate::views as view;
use api::declare::*;
use keys::{Date, Id, Name};
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "put-employee",
    Access::Staff,
    &Route::put(
        "/employees/{employeeId}",
        "Create or replace an employee; its warehouse and current-job edges follow in the same transaction",
        &[Pattern {
            id: "",
            route: "`PUT /employees/{employeeId}` `{name, hireDate, warehouseId?}` (staff)",
            index: Index::Table,
            request: "GetItem the warehouse; Query H1 (consistent); TransactWriteItems: Put employee (on its revision), ConditionCheck warehouse, Put / Delete the warehouse edge, Put the renamed current-job edge",
            returns: "201 / 200 the employee; 404 `warehouse_not_found`",
            example: Example::staff("/employees/E101").with_body(
                r#"{"name": "Alan Turing", "hireDate": "2025-06-02", "warehouseId": "W1"}"#,
            ),
        }],
    ),
);

api::refusals! {
    WarehouseNotFound = crate::reference::NotFound::Warehouse.refusal(),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::put::<view::Employee>("replaced", "created")
    .body::<NewEmployee>()
    .refusals(Refused::ALL)
        .worst(|| {
                    let body = serde_json::json!({
                        "name": api::function::widest_text(keys::MAX_TEXT_LEN),
                        "hireDate": "2025-06-02",
                        "warehouseId": "W2",
                    });
                    api::function::Worst::new(
                        format!("a rep with a current job renamed to a name of {} characters of 4 bytes and moved to another warehouse (its edges rewritten)", keys::MAX_TEXT_LEN),
                        Example::staff("/employees/E100").with_body(api::function::leak(body.to_string())),
                    )
                }),
];

/// An employee's name, hire date and warehouse.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(inline)]
struct NewEmployee {
    #[schemars(with = "keys::schema::FreeText")]
    name: String,
    #[schemars(with = "Date")]
    hire_date: String,
    #[serde(default)]
    #[schemars(with = "Id")]
    warehouse_id: Option<String>,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let employee_id = api::path_id(&req, "employeeId")?;
    let body: NewEmployee = api::json_body(&req)?;
    let input = EmployeeInput {
        employee_id,
        name: api::field("name", Name::parse("name", &body.name))?,
        hire_date: api::field("hireDate", Date::parse_iso(&body.hire_date))?,
        warehouse_id: body
            .warehouse_id
            .map(|w| api::field("warehouseId", Id::parse("warehouseId", &w)))
            .transpose()?,
    };
    match hr::put_employee(&deps.table, &input).await? {
        Put::Created(e) => api::json(201, &view::employee(&e)),
        Put::Replaced(e) => api::json(200, &view::employee(&e)),
        Put::Missing(_) => Err(Refused::WarehouseNotFound.because(format!(
            "No such warehouse: {}",
            input.warehouse_id.as_ref().map_or("", Id::as_str)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use testkit::{Harness, all_items};

    #[tokio::test]
    async fn creates_then_replaces_and_refuses_a_missing_warehouse() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let put = async |path: &str, body: &str| h.as_staff().put(path, body).await;
        let body = r#"{"name":"Ada Lovelace","hireDate":"2024-01-15","warehouseId":"W1"}"#;
        let (s, b) = put("/employees/E1", body).await;
        assert_eq!((s, b["code"].as_str()), (404, Some("warehouse_not_found")));
        assert!(all_items(table).await.is_empty());
        crate::fixtures::org(table).await;
        let (s, b) = put("/employees/E1", body).await;
        assert_eq!(s, 201, "{b}");
        assert_eq!(b["warehouseId"], "W1");
        let (s, b) = put(
            "/employees/E1",
            r#"{"name":"Ada King","hireDate":"2024-01-15"}"#,
        )
        .await;
        assert_eq!((s, b["name"].as_str()), (200, Some("Ada King")));
        assert_eq!(b["warehouseId"], Value::Null);
    }

    #[tokio::test]
    async fn bad_input_is_a_400_and_writes_nothing() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let put = async |path: &str, body: &str| h.as_staff().put(path, body).await;
        for (path, body) in [
            ("/employees/E1", r#"{"name":"Ada","hireDate":"2024-02-30"}"#),
            ("/employees/E1", r#"{"name":" ","hireDate":"2024-02-01"}"#),
            (
                "/employees/E1",
                r#"{"name":"Ada","hireDate":"2024-02-01","warehouseId":"W#1"}"#,
            ),
            (
                "/employees/E%231",
                r#"{"name":"Ada","hireDate":"2024-02-01"}"#,
            ),
            ("/employees/E1", r#"{"name":"Ada"}"#),
            (
                "/employees/E1",
                r#"{"name":"Ada","hireDate":"2024-02-01","salary":1}"#,
            ),
        ] {
            assert_eq!(put(path, body).await.0, 400, "{path} {body}");
        }
        assert!(all_items(table).await.is_empty());
    }
}
