//! L8: `GET /courses/{course}/days/{date}`: a course's occurrences and certificates of one date,
//! `{courses: [...], certificates: [...]}`, from ONE query per page: the course's partition,
//! `begins_with(SK, "2022/03/15#")` (the talk's point: static prefixes after the date keep the
//! day's items together). `GET /courses/{course}/days`: every date's, the course's whole
//! partition (the talk's "All Courses and associated Certificates"), oldest date first. Paged
//! (`limit`, default 50, 1..=100, and a signed `cursor`), so a day with many certificates is
//! never cut short silently. Staff only.

use crate::{params, views as view};
use api::declare::*;
use keys::learning as k;
use model::{
    Entity,
    learning::{Certificate, CourseOccurrence},
};
use store::StoreError;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "get-course-day",
    access: Access::Staff,
    needs: Needs {
        cursors: true,
        ..Needs::TABLE
    },
    routes: &[
        Route::get(
            "/courses/{course}/days",
            "L8 all days: a course's occurrences and certificates of every date (its whole partition), one query per page",
            &[Pattern {
                id: "L8 all days",
                route: "`GET /courses/{course}/days?limit=&cursor=`",
                index: Index::Table,
                request: "Query `PK = <course>` (the whole partition, dates ascending); a page stops at 32 read units, as L8's",
                returns: "`{courses, certificates, nextCursor}`",
                example: Example::staff("/courses/introtodynamodb/days"),
            }],
        )
        .paged(50),
        Route::get(
            "/courses/{course}/days/{date}",
            "L8: a course day's occurrences and certificates, one query per page",
            &[Pattern {
                id: "L8",
                route: "`GET /courses/{course}/days/{date}?limit=&cursor=`",
                index: Index::Table,
                request: r#"Query `PK = <course> AND begins_with(SK, "2022/03/15#")`; a page stops at 32 read units (another Query for the rest of the page only while the budget left pays for it at 5 KB an item)"#,
                returns: "`{courses, certificates, nextCursor}`",
                example: Example::staff("/courses/introtodynamodb/days/2022-03-15"),
            }],
        )
        .paged(50),
    ],
};

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::ok::<CoursePage>("one page of the course's items, every date's")
        .operation_id("getCourseDays"),
    Contract::ok::<Page>("one page of the day's items"),
];

api::page! {
    /// A page of a course day's occurrences and certificates.
    Page<'a> {
        course_key: &'a str,
        date: keys::Date,
        courses: Vec<view::CourseOccurrence>,
        certificates: Vec<view::Certificate>,
    }
}

api::page! {
    /// A page of a course's occurrences and certificates, every date's.
    CoursePage<'a> {
        course_key: &'a str,
        courses: Vec<view::CourseOccurrence>,
        certificates: Vec<view::Certificate>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    use lambda_http::RequestExt;
    let course = params::path_course(&req)?;
    let date = match req.path_parameters().first("date") {
        Some(_) => Some(params::path_date(&req, "date")?),
        None => {
            api::count_as_pattern("L8 all days");
            None
        }
    };
    let key = course.key().as_key();
    let paging = api::paging(deps, &req, &FUNCTION, |limit| match date {
        Some(date) => format!("L8|{key}|{date}|{limit}"),
        None => format!("L8 all days|{key}|{limit}"),
    })?;
    let query = match date {
        Some(date) => k::course_day(course.key(), date),
        None => k::course_partition(course.key()),
    };
    // Within the read budget, as a public page: its occurrences and certificates are up to
    // 5 KB and 4 KB each.
    let largest = model::learning::CourseOccurrence::LARGEST_BYTES
        .max(model::learning::Certificate::LARGEST_BYTES);
    let (items, next) = paging
        .items_within(deps.table.query(query), largest)
        .await?;
    let (mut courses, mut certificates) = (Vec::new(), Vec::new());
    for item in items {
        match model::type_of(&item) {
            Some(CourseOccurrence::TYPE) => courses.push(view::occurrence(&model::from_item::<
                CourseOccurrence,
            >(item)?)),
            Some(Certificate::TYPE) => {
                certificates.push(view::certificate(&model::from_item::<Certificate>(item)?))
            }
            other => {
                let e = StoreError::Corrupt(format!("unexpected {other:?} in a course day"));
                return Err(e.into());
            }
        }
    }
    match date {
        Some(date) => api::json(
            200,
            &Page {
                course_key: key,
                date,
                courses,
                certificates,
                next_cursor: next,
            },
        ),
        None => api::json(
            200,
            &CoursePage {
                course_key: key,
                courses,
                certificates,
                next_cursor: next,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use keys::learning::CertVersion;
    use testkit::{Harness, walk_pages};

    #[tokio::test]
    async fn one_query_holds_the_days_courses_and_certificates() {
        let table = testkit::table().await;
        for date in ["2022-03-15", "2022-03-16"] {
            let o = fixtures::occurrence(fixtures::INTRO, date, "Building 1");
            table.put(&o, None).await.unwrap();
        }
        for (student, date, v) in [
            ("David Spurdy", "2022-03-15", CertVersion::V1),
            ("Ann Lee", "2022-03-15", CertVersion::V2),
            ("Bo", "2022-03-16", CertVersion::V2),
        ] {
            let c = fixtures::certificate(date, student, "Tyler Walch", v);
            table.put(&c, None).await.unwrap();
        }
        let h = Harness::new(&FUNCTION, handle, table.clone());
        table.meter().reset();
        let (s, body) = h.get("/courses/introtodynamodb/days/2022-03-15", &[]).await;
        assert_eq!(s, 200, "{body}");
        assert_eq!(body["courses"].as_array().unwrap().len(), 1);
        let students = testkit::column(&body["certificates"], "student");
        assert_eq!(
            students,
            ["David Spurdy", "Ann Lee"],
            "v01 sorts before v02"
        );
        assert_eq!(table.meter().requests().len(), 1);
        // Paged, every item once.
        let pages = walk_pages("1", async |q: &[(&str, &str)]| {
            h.get("/courses/introtodynamodb/days/2022-03-15", q).await.1
        })
        .await;
        let items: usize = pages
            .iter()
            .map(|p| {
                p["courses"].as_array().unwrap().len() + p["certificates"].as_array().unwrap().len()
            })
            .sum();
        assert_eq!(items, 3);
        // The talk's "All Courses and associated Certificates": every date's, in one query a page,
        // date by date; a day's cursor is not the whole partition's.
        table.meter().reset();
        let (s, all) = h.get("/courses/introtodynamodb/days", &[]).await;
        assert_eq!(s, 200, "{all}");
        assert_eq!(table.meter().requests().len(), 1);
        assert_eq!(all["courses"].as_array().unwrap().len(), 2);
        assert_eq!(
            testkit::column(&all["certificates"], "student"),
            ["David Spurdy", "Ann Lee", "Bo"]
        );
        let every: usize = walk_pages("1", async |q: &[(&str, &str)]| {
            h.get("/courses/introtodynamodb/days", q).await.1
        })
        .await
        .iter()
        .map(|p| {
            p["courses"].as_array().unwrap().len() + p["certificates"].as_array().unwrap().len()
        })
        .sum();
        assert_eq!(every, 5);
        // Forged, and another day's cursor: 400.
        let (_, body) = h
            .get(
                "/courses/introtodynamodb/days/2022-03-15",
                &[("limit", "1")],
            )
            .await;
        let cursor = body["nextCursor"].as_str().unwrap().to_owned();
        for (path, cursor) in [
            ("/courses/introtodynamodb/days/2022-03-16", cursor.as_str()),
            ("/courses/introtodynamodb/days", cursor.as_str()),
            ("/courses/introtodynamodb/days/2022-03-15", "forged"),
        ] {
            let (s, body) = h.get(path, &[("limit", "1"), ("cursor", cursor)]).await;
            assert_eq!(
                (s, body["code"].as_str()),
                (400, Some("invalid_cursor")),
                "{path}"
            );
        }
    }
}
