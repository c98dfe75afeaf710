//! Wire formats: how records read from the table are shown to clients (camelCase JSON). Items
//! keep the seeds' PascalCase attribute names (declared in `model`); the API speaks camelCase,
//! and this is its contract, kept apart from how items are stored.

use model::Derived;
use serde_json::Value;

/// Where a view notes the derived values it could not show (removed by [`crate::json`], which
/// names them in a header).
pub const DRIFT: &str = "_drift";

/// A derived value as shown: the number, or `null` when it drifted (noted in `drift` under `name`).
pub fn derived(value: &Derived, name: &'static str, drift: &mut Vec<&'static str>) -> Value {
    match value.value() {
        Some(n) => n.into(),
        None => {
            drift.push(name);
            Value::Null
        }
    }
}

/// Adds a view's drift note to its object (nothing when nothing drifted).
pub fn with_drift(mut view: Value, drift: Vec<&'static str>) -> Value {
    if !drift.is_empty() {
        view[DRIFT] = drift.into();
    }
    view
}

/// A counter kept on write shards, as shown: `identity` (its `date`, its `productId`) and each of
/// `totals` (attribute, name) summed over `shards` in one BatchGetItem
/// ([`store::aggregate::sum_shards`]), a drifted one `null` and noted as [`derived`] notes it.
pub async fn sharded_counter(
    table: &store::Table,
    shards: &[keys::PrimaryKey],
    identity: Value,
    totals: &[(&'static str, &'static str)],
) -> Result<Value, crate::ApiError> {
    let attributes: Vec<&'static str> = totals.iter().map(|(attribute, _)| *attribute).collect();
    let sums = store::aggregate::sum_shards(table, shards, &attributes).await?;
    let (mut view, mut drift) = (identity, Vec::new());
    for (attribute, name) in totals {
        view[*name] = derived(&sums[attribute], name, &mut drift);
    }
    Ok(with_drift(view, drift))
}

/// Removes every drift note from a response body, collecting the names.
pub fn take_drift(value: &mut Value, names: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(found)) = map.remove(DRIFT) {
                names.extend(
                    found
                        .into_iter()
                        .filter_map(|v| v.as_str().map(str::to_owned)),
                );
            }
            map.values_mut().for_each(|v| take_drift(v, names));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| take_drift(v, names)),
        _ => {}
    }
}

pub mod commerce {
    use model::commerce::{CartLine, Customer, Order, OrderLine, TrackingEvent};
    use serde_json::{Value, json};

    use super::{derived, with_drift};

    pub fn customer(c: &Customer) -> Value {
        let mut drift = Vec::new();
        let view = json!({
            "customerId": c.customer_id,
            "name": c.name,
            "email": c.email,
            "createdAt": c.created_at,
            "updatedAt": c.updated_at,
            "orderCount": derived(&c.order_count, "orderCount", &mut drift),
            "lifetimeValue": derived(&c.lifetime_value, "lifetimeValue", &mut drift),
            "accountRepId": c.account_rep_id,
        });
        with_drift(view, drift)
    }

    pub fn order_summary(o: &Order) -> Value {
        json!({
            "orderId": o.order_id,
            "customerId": o.customer_id,
            "status": o.status,
            "createdAt": o.created_at,
            "currency": o.currency,
            "total": o.total,
            "itemCount": o.item_count,
            "accountRepId": o.account_rep_id,
        })
    }

    /// A rep's line of a sales-period ranking (O14): its order total (cents) and order count,
    /// both derived by the stream pipeline (`null` and named when they drifted).
    pub fn rep_sales(r: &model::commerce::RepSales) -> Value {
        let mut drift = Vec::new();
        let view = json!({
            "repId": r.rep_id,
            "total": derived(&r.total, "total", &mut drift),
            "orderCount": derived(&r.order_count, "orderCount", &mut drift),
        });
        with_drift(view, drift)
    }

    pub fn order_line(l: &OrderLine) -> Value {
        json!({ "sku": l.sku, "quantity": l.quantity, "unitPrice": l.unit_price })
    }

    pub fn tracking_event(e: &TrackingEvent) -> Value {
        json!({ "eventId": e.event_id, "status": e.status, "note": e.note, "at": e.at })
    }

    pub fn cart_line(l: &CartLine) -> Value {
        json!({
            "productId": l.product_id,
            "quantity": l.quantity,
            "updatedAt": l.updated_at,
            "version": l.version,
        })
    }

    /// A product (O13) with its total inventory over every warehouse, derived by the stream
    /// pipeline (shown as the customer's counters are: `null` and named when it drifted).
    pub fn product(p: &model::commerce::Product) -> Value {
        let mut drift = Vec::new();
        let view = json!({
            "sku": p.sku,
            "name": p.name,
            "description": p.description,
            "price": p.price,
            "currency": p.currency,
            "createdAt": p.created_at,
            "updatedAt": p.updated_at,
            "totalInventory": derived(&p.total_inventory, "totalInventory", &mut drift),
        });
        with_drift(view, drift)
    }

    /// A product's stock in one warehouse (O12).
    pub fn inventory(i: &model::commerce::Inventory) -> Value {
        json!({
            "sku": i.sku,
            "warehouseId": i.warehouse_id,
            "quantity": i.quantity,
            "updatedAt": i.updated_at,
            "version": i.version,
        })
    }
}

pub mod reviews {
    use model::reviews::{Book, Review, User};
    use serde_json::{Value, json};

    use super::{derived, with_drift};
    use crate::Caller;

    pub fn book(b: &Book) -> Value {
        let mut drift = Vec::new();
        let count = derived(&b.rating_count, "rating.count", &mut drift);
        if b.rating_sum.value().is_none() {
            drift.push("rating.average");
        }
        let view = json!({
            "isbn": b.isbn,
            "title": b.title,
            "author": b.author,
            "publicationYear": b.publication_year,
            "rating": { "count": count, "average": b.average_rating() },
        });
        with_drift(view, drift)
    }

    pub fn user(u: &User) -> Value {
        let mut drift = Vec::new();
        let view = json!({
            "username": u.username,
            "membershipDate": u.membership_date,
            "reviewCount": derived(&u.review_count, "reviewCount", &mut drift),
        });
        with_drift(view, drift)
    }

    pub fn review(r: &Review) -> Value {
        json!({
            "isbn": r.isbn,
            "username": r.username,
            "grade": r.grade,
            "text": r.review_text,
            "reviewDate": r.review_date,
        })
    }

    /// A review on a page anyone may read (R1): its `username`, the author's account id (the
    /// token's `sub`, also their `customerId`), only for the author and staff; anyone else reads
    /// the grade, the text and the date (docs/access.md).
    pub fn public_review(r: &Review, caller: Option<&Caller>) -> Value {
        let mut view = review(r);
        if !caller.is_some_and(|c| c.may_see(&r.username))
            && let Some(members) = view.as_object_mut()
        {
            members.shift_remove("username");
        }
        view
    }
}

pub mod learning {
    use model::learning::{Certificate, CourseOccurrence};
    use serde_json::{Value, json};

    pub fn occurrence(o: &CourseOccurrence) -> Value {
        json!({
            "courseName": o.course_name.to_string(),
            "courseKey": o.course_name.key().as_key(),
            "startDate": o.start_date,
            "location": o.location.to_string(),
            "courseType": o.course_type,
        })
    }

    pub fn certificate(c: &Certificate) -> Value {
        json!({
            "courseName": c.cert_name.to_string(),
            "courseKey": c.cert_name.key().as_key(),
            "date": c.issued_date,
            "location": c.location.to_string(),
            "student": c.student.as_str(),
            "certType": c.cert_type.to_string(),
            "instructor": c.instructor.as_str(),
            "version": c.entity_version.version().number(),
        })
    }
}

pub mod hr {
    use model::hr::{CurrentJob, Employee, EmployeeWarehouse, JobHistory};
    use serde_json::{Value, json};
    use store::hr::{EmployeeView, Sources};

    pub fn employee(e: &Employee) -> Value {
        json!({
            "employeeId": e.employee_id.as_str(),
            "name": e.name.as_str(),
            "hireDate": e.hire_date,
            "warehouseId": e.warehouse_id.as_ref().map(|w| w.as_str()),
        })
    }

    /// A job held, with its title as the job has it now (read from the job).
    pub fn job(j: &JobHistory, sources: &Sources) -> Value {
        json!({
            "jobId": j.job_id.as_str(),
            "title": sources.title(&j.job_id),
            "departmentId": j.department_id.as_str(),
            "startDate": j.start_date,
        })
    }

    /// An employee as a GSI1 list shows them: from an edge or the employee item.
    pub fn listed(employee_id: &keys::Id, name: &keys::Name) -> Value {
        json!({"employeeId": employee_id.as_str(), "name": name.as_str()})
    }

    pub fn with_job(c: &CurrentJob, sources: &Sources) -> Value {
        let mut v = listed(&c.employee_id, &c.employee_name);
        v["job"] = job(&c.job(), sources);
        v
    }

    /// A warehouse edge, with the warehouse's name as the warehouse has it now.
    pub fn warehouse(w: &EmployeeWarehouse, sources: &Sources) -> Value {
        json!({
            "warehouseId": w.warehouse_id.as_str(),
            "name": sources.warehouse_name(&w.warehouse_id),
        })
    }

    /// H1: the employee, its current job and its warehouse.
    pub fn employee_view(v: &EmployeeView, sources: &Sources) -> Value {
        let mut out = employee(&v.employee);
        out["currentJob"] = v
            .current_job
            .as_ref()
            .map_or(Value::Null, |c| job(&c.job(), sources));
        out["warehouse"] = v
            .warehouse
            .as_ref()
            .map_or(Value::Null, |w| warehouse(w, sources));
        out
    }
}
