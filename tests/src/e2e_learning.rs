//! End to end, the learning platform (Walch's talk) over HTTP through the real binaries: staff
//! create a course day and issue certificates; anyone verifies one certificate, staff list them,
//! walking the sharded L11 list page by page through its merged cursor.

use std::collections::BTreeSet;

use serde_json::json;

use crate::stack::{Stack, TABLE_PER_CONTEXT, http, start_stack, start_stack_in};

#[tokio::test]
async fn the_learning_patterns_over_http_through_the_real_binaries() {
    the_learning_patterns(start_stack().await).await
}

/// The same requests and answers with `TableLayout` table-per-context.
#[tokio::test]
async fn the_learning_patterns_with_a_table_per_context() {
    the_learning_patterns(start_stack_in(TABLE_PER_CONTEXT).await).await
}

async fn the_learning_patterns(stack: Stack) {
    let p = stack.port;
    let staff = stack.bearer("staff-1", &["staff"]);
    let staff = [("authorization", staff.as_str())];

    let course = json!({"courseName": "Intro to DynamoDB", "startDate": "2022-03-15",
                        "location": "Building 1", "courseType": "DevChat"})
    .to_string();
    let (s, _, body) = http(p, "POST", "/courses", Some(&course), &staff).await;
    assert_eq!(s, 201, "{body}");
    let (s, _, body) = http(p, "POST", "/courses", Some(&course), &staff).await;
    assert_eq!((s, body["code"].as_str()), (409, Some("course_exists")));
    // A customer may not create one.
    let ann = stack.bearer("ann", &[]);
    let (s, _, _) = http(
        p,
        "POST",
        "/courses",
        Some(&course),
        &[("authorization", &ann)],
    )
    .await;
    assert_eq!(s, 403);

    let mut students: Vec<String> = (0..23).map(|n| format!("Student {n}")).collect();
    students.extend(["David Spurdy".to_owned(), "Davids Purdy".to_owned()]);
    for student in &students {
        let cert = json!({"courseName": "Intro to DynamoDB", "date": "2022-03-15",
                          "location": "Building 1", "student": student,
                          "certType": "Completion", "instructor": "Tyler Walch"})
        .to_string();
        let (s, _, body) = http(p, "POST", "/certificates", Some(&cert), &staff).await;
        assert_eq!(s, 201, "{student}: {body}");
        assert_eq!(body["version"], 2);
    }

    // L1 and L7, public, by name as the seed writes it (URL-encoded) or by key.
    let (s, _, body) = http(
        p,
        "GET",
        "/courses/Intro%20to%20DynamoDB/occurrences/2022-03-15/Building%201",
        None,
        &[],
    )
    .await;
    assert_eq!(
        (s, body["courseKey"].as_str()),
        (200, Some("introtodynamodb"))
    );
    for student in ["David%20Spurdy", "Davids%20Purdy"] {
        let path = format!("/courses/introtodynamodb/certificates/2022-03-15/{student}");
        let (s, _, body) = http(p, "GET", &path, None, &[]).await;
        assert_eq!(s, 200, "{student}: {body}");
    }
    // L8: the day, one query per page; it lists people, so staff only (docs/access.md).
    let day = "/courses/introtodynamodb/days/2022-03-15?limit=100";
    let (s, _, _) = http(p, "GET", day, None, &[]).await;
    assert_eq!(s, 401, "no token");
    let (s, _, _) = http(p, "GET", day, None, &[("authorization", &ann)]).await;
    assert_eq!(s, 403, "a customer");
    let (s, _, body) = http(p, "GET", day, None, &staff).await;
    assert_eq!(s, 200);
    assert_eq!(body["courses"].as_array().unwrap().len(), 1);
    assert_eq!(
        body["certificates"].as_array().unwrap().len(),
        students.len()
    );

    // L11 walked 4 at a time through the merged cursor: every certificate once, in GSI1 order.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut path = "/certificates?type=completion&limit=4".to_owned();
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let (s, _, page) = http(p, "GET", &path, None, &staff).await;
        assert_eq!(s, 200, "{page}");
        seen.extend(
            page["certificates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["student"].as_str().unwrap().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    let distinct: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(distinct.len(), seen.len(), "each once");
    assert_eq!(distinct, students.iter().collect(), "every one");
}
