//! L2–L6: `GET /courses/{course}/occurrences` with none of, or one of `?year=2022`,
//! `?month=2022-03`, `?date=2022-03-15`, and with a date optionally `&location=build` (the
//! beginning of a location): the course's occurrences in date order, then location order, a page
//! at a time (`limit`, default 20, 1..=100, and a signed `cursor`). ONE query per page, on GSI1,
//! whose course partitions hold occurrences only: a course's certificates are never read.
//!
//! | pattern | GSI1 key condition |
//! |---|---|
//! | L2 | `GSI1PK = course#<course>#` |
//! | L3 | `... AND begins_with(GSI1SK, "2022/")` |
//! | L4 | `... AND begins_with(GSI1SK, "2022/03/")` |
//! | L5 | `... AND begins_with(GSI1SK, "2022/03/15#")` |
//! | L6 | `... AND begins_with(GSI1SK, "2022/03/15#build")` |

use api::declare::*;
use api::{learning as params, views::learning as view};
use keys::learning::{self as k, Location, Period};
use model::learning::CourseOccurrence;
use serde_json::json;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function {
    name: "list-course-occurrences",
    access: Access::Public,
    needs: Needs::CURSORS,
    routes: &[Route::get(
        "/courses/{course}/occurrences",
        "L2-L6: a course's occurrences (by year, month, date, partial location), in date order",
        &[
            Pattern {
                id: "L2",
                route: "`GET /courses/{course}/occurrences?limit=&cursor=`",
                index: Index::Gsi1,
                request: "Query `GSI1PK = course#<course>#`",
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences"),
            },
            Pattern {
                id: "L3",
                route: "`GET /courses/{course}/occurrences?year=2022`",
                index: Index::Gsi1,
                request: r#"Query `GSI1PK = course#<course># AND begins_with(GSI1SK, "2022/")`"#,
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences?year=2022"),
            },
            Pattern {
                id: "L4",
                route: "`GET /courses/{course}/occurrences?month=2022-03`",
                index: Index::Gsi1,
                request: r#"Query `GSI1PK = course#<course># AND begins_with(GSI1SK, "2022/03/")`"#,
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences?month=2022-03"),
            },
            Pattern {
                id: "L5",
                route: "`GET /courses/{course}/occurrences?date=2022-03-15`",
                index: Index::Gsi1,
                request: r#"Query `GSI1PK = course#<course># AND begins_with(GSI1SK, "2022/03/15#")`"#,
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences?date=2022-03-15"),
            },
            Pattern {
                id: "L6",
                route: "`GET /courses/{course}/occurrences?date=2022-03-15&location=build` (a location's prefix)",
                index: Index::Gsi1,
                request: r#"Query `GSI1PK = course#<course># AND begins_with(GSI1SK, "2022/03/15#build")`"#,
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone(
                    "/courses/introtodynamodb/occurrences?date=2022-03-15&location=build",
                ),
            },
        ],
    )],
};
pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;

/// The period the query string asks for: at most one of `year`, `month`, `date`.
fn period(req: &Request) -> Result<Period, ApiError> {
    let given: Vec<&str> = ["year", "month", "date"]
        .into_iter()
        .filter(|p| api::query(req, p).is_some())
        .collect();
    if given.len() > 1 {
        return Err(ApiError::invalid_parameter(
            given[1],
            format!(
                "give only one of year, month and date (got {})",
                given.join(", ")
            ),
        ));
    }
    let bad = |name: &str, v: &str, shape: &str| {
        ApiError::invalid_parameter(name, format!("{v:?} is not a {shape}"))
    };
    if let Some(v) = api::query(req, "year") {
        let year = v
            .parse::<u16>()
            .ok()
            .filter(|y| (1..=9999).contains(y) && v.len() == 4)
            .ok_or_else(|| bad("year", &v, "year (YYYY)"))?;
        return Ok(Period::Year(year));
    }
    if let Some(v) = api::query(req, "month") {
        let parsed = v.split_once('-').and_then(|(y, m)| {
            let year = y.parse::<u16>().ok().filter(|_| y.len() == 4)?;
            let month = m
                .parse::<u8>()
                .ok()
                .filter(|n| m.len() == 2 && (1..=12).contains(n))?;
            Some(Period::Month(year, month))
        });
        return parsed.ok_or_else(|| bad("month", &v, "month (YYYY-MM)"));
    }
    Ok(match api::query_date(req, "date")? {
        Some(d) => Period::Day(d),
        None => Period::Any,
    })
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let course = params::path_course(&req)?;
    let period = period(&req)?;
    let location = api::query(&req, "location")
        .map(|l| Location::parse(&l).map_err(|e| ApiError::invalid_parameter("location", e)))
        .transpose()?;
    api::count_as_pattern(match (&location, period) {
        (Some(_), _) => "L6",
        (None, Period::Any) => "L2",
        (None, Period::Year(_)) => "L3",
        (None, Period::Month(..)) => "L4",
        (None, Period::Day(_)) => "L5",
    });
    let condition = match (&location, period) {
        (None, period) => k::occurrences(course.key(), period)
            .map_err(|e| ApiError::invalid_parameter("month", e))?,
        (Some(location), Period::Day(date)) => k::occurrences_at(course.key(), date, location),
        (Some(_), _) => {
            return Err(ApiError::invalid_parameter(
                "location",
                "a location narrows one date: give date=YYYY-MM-DD with it",
            ));
        }
    };
    let binding = |limit| {
        let location = location.as_ref().map(Location::as_key).unwrap_or("");
        format!(
            "L2-6|{}|{period:?}|{location}|{limit}",
            course.key().as_key()
        )
    };
    let page = api::page_request(&req, DEFAULT_LIMIT, MAX_LIMIT)?;
    let paging = store::Paging::new(deps, page, binding)?;
    let (items, next) = paging
        .page::<CourseOccurrence, _>(deps.table.query(condition))
        .await?;
    api::json(
        200,
        &json!({
            "courseKey": course.key().as_key(),
            "occurrences": items.iter().map(view::occurrence).collect::<Vec<_>>(),
            "nextCursor": next,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use store::{Table, learning::create_occurrence};
    use testkit::{Harness, walk_pages};

    async fn seed(table: &Table) {
        for (course, date, location) in [
            ("Intro to DynamoDB", "2022-03-15", "Building 1"),
            ("Intro to DynamoDB", "2022-03-15", "Building 2"),
            ("Intro to DynamoDB", "2022-03-15", "Annex 1"),
            ("Intro to DynamoDB", "2022-03-01", "Building 10"),
            ("Intro to DynamoDB", "2022-04-02", "Building 1"),
            ("Intro to DynamoDB", "2023-01-09", "Building 1"),
            ("Advanced Modeling", "2022-03-15", "Building 1"),
        ] {
            let o = testkit::fixtures::occurrence(course, date, location);
            assert!(create_occurrence(table, &o).await.unwrap());
        }
        // A certificate in the course's partition: the occurrence reads never pay for it.
        let cert = testkit::fixtures::certificate(
            "2022-03-15",
            "David Spurdy",
            "Tyler Walch",
            keys::learning::CertVersion::V2,
        );
        table.put(&cert, None).await.unwrap();
    }

    /// `query` of the seed's course, spelled as it was created.
    async fn get(h: &Harness, query: &[(&str, &str)]) -> (u16, Value) {
        h.get("/courses/Intro%20to%20DynamoDB/occurrences", query)
            .await
    }

    fn places(body: &Value) -> Vec<String> {
        body["occurrences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                format!(
                    "{} {}",
                    o["startDate"].as_str().unwrap(),
                    o["location"].as_str().unwrap()
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn l2_to_l6_each_one_query_in_date_then_location_order() {
        let table = testkit::table().await;
        seed(&table).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        for (query, expected) in [
            (
                vec![],
                vec![
                    "2022-03-01 Building 10",
                    "2022-03-15 Annex 1",
                    "2022-03-15 Building 1",
                    "2022-03-15 Building 2",
                    "2022-04-02 Building 1",
                    "2023-01-09 Building 1",
                ],
            ),
            (
                vec![("year", "2022")],
                vec![
                    "2022-03-01 Building 10",
                    "2022-03-15 Annex 1",
                    "2022-03-15 Building 1",
                    "2022-03-15 Building 2",
                    "2022-04-02 Building 1",
                ],
            ),
            (
                vec![("month", "2022-03")],
                vec![
                    "2022-03-01 Building 10",
                    "2022-03-15 Annex 1",
                    "2022-03-15 Building 1",
                    "2022-03-15 Building 2",
                ],
            ),
            (
                vec![("date", "2022-03-15")],
                vec![
                    "2022-03-15 Annex 1",
                    "2022-03-15 Building 1",
                    "2022-03-15 Building 2",
                ],
            ),
            (
                vec![("date", "2022-03-15"), ("location", "build")],
                vec!["2022-03-15 Building 1", "2022-03-15 Building 2"],
            ),
            (
                vec![("date", "2022-03-15"), ("location", "Building 1")],
                vec!["2022-03-15 Building 1"],
            ),
            (vec![("year", "2021")], vec![]),
        ] {
            table.meter().reset();
            let (s, body) = get(&h, &query).await;
            assert_eq!(s, 200, "{query:?}: {body}");
            assert_eq!(places(&body), expected, "{query:?}");
            let requests = table.meter().requests();
            assert_eq!(requests.len(), 1, "{query:?}: one query");
            assert_eq!(requests[0].index, Some("GSI1"));
            assert_eq!(
                requests[0].items,
                expected.len(),
                "{query:?}: no certificate read"
            );
        }
    }

    #[tokio::test]
    async fn pages_walk_every_occurrence_once() {
        let table = testkit::table().await;
        seed(&table).await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        let pages = walk_pages("2", async |query: &[(&str, &str)]| {
            h.get("/courses/introtodynamodb/occurrences", query).await.1
        })
        .await;
        let all: Vec<String> = pages.iter().flat_map(places).collect();
        assert_eq!(all.len(), 6);
        assert!(all.is_sorted());
    }

    #[tokio::test]
    async fn bad_parameters_are_400s() {
        let h = Harness::new(&FUNCTION, handle, testkit::table().await);
        for query in [
            vec![("year", "22")],
            vec![("year", "2022"), ("month", "2022-03")],
            vec![("month", "2022-13")],
            vec![("month", "2022-3")],
            vec![("date", "2022-02-30")],
            vec![("location", "Building 1")],
            vec![("year", "2022"), ("location", "B")],
            vec![("date", "2022-03-15"), ("location", "Building 100")],
            vec![("limit", "0")],
            vec![("cursor", "forged")],
        ] {
            let (s, body) = get(&h, &query).await;
            assert_eq!(s, 400, "{query:?}: {body}");
        }
    }
}
