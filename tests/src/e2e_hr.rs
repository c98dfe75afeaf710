//! End to end, HR (the HR half of AWS's relational example) over HTTP through the real binaries:
//! staff build an org, hire 30 employees and promote some; H1, H2, H3, H6 (walked through its
//! merged cursor), H7 and H11 answer from it; a customer is refused everywhere.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::stack::{Stack, TABLE_PER_CONTEXT, http, start_stack, start_stack_in};

/// Employee ids of every page of `path` with `query` (`""` for none), 4 at a time.
async fn walk(port: u16, path: &str, query: &str, auth: &[(&str, &str)]) -> Vec<String> {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut url = match query {
            "" => format!("{path}?limit=4"),
            q => format!("{path}?{q}&limit=4"),
        };
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let (s, _, page) = http(port, "GET", &url, None, auth).await;
        assert_eq!(s, 200, "{url}: {page}");
        seen.extend(
            page["employees"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["employeeId"].as_str().unwrap().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return seen,
        }
    }
    panic!("{path}?{query}: a walk that does not end");
}

#[tokio::test]
async fn the_hr_patterns_over_http_through_the_real_binaries() {
    the_hr_patterns(start_stack().await).await
}

/// The same requests and answers with `TableLayout` table-per-context.
#[tokio::test]
async fn the_hr_patterns_with_a_table_per_context() {
    the_hr_patterns(start_stack_in(TABLE_PER_CONTEXT).await).await
}

async fn the_hr_patterns(stack: Stack) {
    let p = stack.port;
    let staff = stack.bearer("staff-1", &["staff"]);
    let staff = [("authorization", staff.as_str())];
    let ann = stack.bearer("ann", &[]);
    let ann = [("authorization", ann.as_str())];

    let put = async |path: &str, body: Value| {
        let (s, _, b) = http(p, "PUT", path, Some(&body.to_string()), &staff).await;
        assert!(s == 201 || s == 200, "{path}: {s} {b}");
    };
    put("/regions/EU", json!({"name": "Europe"})).await;
    put(
        "/countries/DE",
        json!({"name": "Germany", "regionId": "EU"}),
    )
    .await;
    put(
        "/locations/BER",
        json!({"name": "Berlin", "countryId": "DE"}),
    )
    .await;
    put(
        "/departments/SALES",
        json!({"name": "Sales", "locationId": "BER"}),
    )
    .await;
    for w in ["W1", "W2"] {
        put(
            &format!("/warehouses/{w}"),
            json!({"name": w, "regionId": "EU"}),
        )
        .await;
    }
    for (job, title) in [("CLERK", "Sales Clerk"), ("LEAD", "Sales Lead")] {
        put(&format!("/jobs/{job}"), json!({ "title": title })).await;
    }
    // A customer reaches none of it.
    let (s, _, _) = http(p, "PUT", "/regions/EU", Some(r#"{"name":"x"}"#), &ann).await;
    assert_eq!(s, 403);
    let (s, _, _) = http(p, "GET", "/employees?name=x", None, &ann).await;
    assert_eq!(s, 403);

    // 30 employees hired on the first of consecutive months from 2023-01, alternating
    // warehouses, all clerks; every fifth promoted to lead in 2026.
    for n in 1..=30u32 {
        let hired = format!("{}-{:02}-01", 2023 + (n - 1) / 12, (n - 1) % 12 + 1);
        let name = if n % 10 == 0 {
            "Sam Lee".to_owned()
        } else {
            format!("Person {n}")
        };
        let warehouse = if n % 2 == 0 { "W2" } else { "W1" };
        put(
            &format!("/employees/E{n}"),
            json!({"name": name, "hireDate": hired, "warehouseId": warehouse}),
        )
        .await;
        let mut jobs = vec![("CLERK", hired.clone())];
        if n % 5 == 0 {
            jobs.push(("LEAD", "2026-01-05".to_owned()));
        }
        for (job, start) in jobs {
            let body = json!({"jobId": job, "departmentId": "SALES", "startDate": start});
            let path = format!("/employees/E{n}/jobs");
            let (s, _, b) = http(p, "POST", &path, Some(&body.to_string()), &staff).await;
            assert_eq!(s, 201, "{path}: {b}");
        }
    }

    // H1 and H3.
    let (s, _, e5) = http(p, "GET", "/employees/E5", None, &staff).await;
    assert_eq!(s, 200, "{e5}");
    assert_eq!(e5["currentJob"]["jobId"], "LEAD");
    assert_eq!(e5["warehouse"]["warehouseId"], "W1");
    let (s, _, job) = http(p, "GET", "/employees/E5/job", None, &staff).await;
    assert_eq!((s, job["title"].as_str()), (200, Some("Sales Lead")));

    // H11: the promoted moved; H7: a warehouse's half; H2: by name, normalised.
    let leads: BTreeSet<String> = walk(p, "/employees", "jobTitle=sales%20lead", &staff)
        .await
        .into_iter()
        .collect();
    let expected_leads: BTreeSet<String> = (1..=6).map(|n| format!("E{}", n * 5)).collect();
    assert_eq!(leads, expected_leads);
    assert_eq!(
        walk(p, "/employees", "jobTitle=Sales%20Clerk", &staff)
            .await
            .len(),
        24
    );
    assert_eq!(
        walk(p, "/warehouses/W1/employees", "", &staff).await.len(),
        15
    );
    let sams: BTreeSet<String> = walk(p, "/employees", "name=SAM%20%20lee", &staff)
        .await
        .into_iter()
        .collect();
    assert_eq!(sams, ["E10", "E20", "E30"].map(String::from).into());

    // H6: hired since 2024-07-01 (E19..E30), newest first, each once, across the shards.
    let hired = walk(p, "/employees", "hiredSince=2024-07-01", &staff).await;
    let expected: Vec<String> = (19..=30).rev().map(|n| format!("E{n}")).collect();
    assert_eq!(hired, expected);

    // Renamed through the API, a warehouse and a job show their new names on every employee
    // at once (read from the records themselves), and H11 finds the job under its new title only.
    put(
        "/warehouses/W1",
        json!({"name": "Spandau Nord", "regionId": "EU"}),
    )
    .await;
    put("/jobs/LEAD", json!({"title": "Team Lead"})).await;
    let (s, _, e5) = http(p, "GET", "/employees/E5", None, &staff).await;
    assert_eq!(s, 200, "{e5}");
    assert_eq!(
        (&e5["warehouse"]["name"], &e5["currentJob"]["title"]),
        (&json!("Spandau Nord"), &json!("Team Lead"))
    );
    let leads: BTreeSet<String> = walk(p, "/employees", "jobTitle=team%20lead", &staff)
        .await
        .into_iter()
        .collect();
    assert_eq!(leads, expected_leads);
    assert!(
        walk(p, "/employees", "jobTitle=sales%20lead", &staff)
            .await
            .is_empty()
    );

    // The reference data reads back, one record or a kind's list; an employee's whole history.
    let (s, _, w1) = http(p, "GET", "/warehouses/W1", None, &staff).await;
    assert_eq!(
        (s, w1),
        (
            200,
            json!({"warehouseId": "W1", "name": "Spandau Nord", "regionId": "EU"})
        )
    );
    let (s, _, jobs) = http(p, "GET", "/jobs", None, &staff).await;
    assert_eq!(s, 200, "{jobs}");
    assert_eq!(
        jobs["jobs"],
        json!([{"jobId": "CLERK", "title": "Sales Clerk"}, {"jobId": "LEAD", "title": "Team Lead"}])
    );
    let (s, _, gone) = http(p, "GET", "/jobs/NOPE", None, &staff).await;
    assert_eq!((s, gone["code"].as_str()), (404, Some("job_not_found")));
    let (s, _, history) = http(p, "GET", "/employees/E5/jobs", None, &staff).await;
    assert_eq!(s, 200, "{history}");
    let held: Vec<(&str, &str)> = history["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["jobId"].as_str().unwrap(), j["title"].as_str().unwrap()))
        .collect();
    assert_eq!(held, [("LEAD", "Team Lead"), ("CLERK", "Sales Clerk")]);
    let (s, _, _) = http(p, "GET", "/jobs", None, &ann).await;
    assert_eq!(s, 403);
}
