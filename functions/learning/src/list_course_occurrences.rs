//! L2–L6: `GET /courses/{course}/occurrences` with none of, or one of `?year=2022`,
//! `?month=2022-03`, `?date=2022-03-15`, and with a date optionally `&location=build` (the
//! beginning of a location): the course's occurrences in date order, then location order, a page
//! at a time (`limit`, default 20, 1..=100, and a signed `cursor`). ONE query per page, on the
//! multi-attribute index `OccurrencesByDate`, which holds occurrences only: a course's
//! certificates are never read. Anyone may read these pages, so a page stops at
//! [`store::PAGE_READ_BUDGET`] read units: a page of the largest occurrences (5 KB) is read in
//! rounds of as many as the budget left pays for; the default page is one round whatever they
//! hold. The concatenated design (GSI1, seed 001's keys) serves the same
//! reads as a store-level query (`crate::data::occurrences_page`); a test holds both equal,
//! page by page.
//!
//! | pattern | `OccurrencesByDate` key condition | GSI1 (concatenated) |
//! |---|---|---|
//! | L2 | `CourseKey = <course>` | `GSI1PK = course#<course>#` |
//! | L3 | `... AND Year = 2022` | `... AND begins_with(GSI1SK, "2022/")` |
//! | L4 | `... AND Year = 2022 AND Month = 3` | `... AND begins_with(GSI1SK, "2022/03/")` |
//! | L5 | `... AND Day = 15` | `... AND begins_with(GSI1SK, "2022/03/15#")` |
//! | L6 | `... AND Day = 15 AND begins_with(LocationKey, "build")` | `... AND begins_with(GSI1SK, "2022/03/15#build")` |

use crate::{params, views as view};
use api::declare::*;
use keys::learning::{Location, OccurrenceRead, Period};
use model::learning::CourseOccurrence;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-course-occurrences",
    Access::Public,
    &Route::get(
        "/courses/{course}/occurrences",
        "L2-L6: a course's occurrences (by year, month, date, partial location), in date order",
        &[
            Pattern {
                id: "L2",
                route: "`GET /courses/{course}/occurrences?limit=&cursor=`",
                index: Index::Multi(OCCURRENCES_BY_DATE),
                request: "Query `CourseKey = <course>`; a page stops at 32 read units (another Query for the rest of the page only while the budget left pays for it at 5 KB an occurrence)",
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences"),
            },
            Pattern {
                id: "L3",
                route: "`GET /courses/{course}/occurrences?year=2022`",
                index: Index::Multi(OCCURRENCES_BY_DATE),
                request: "Query `CourseKey = <course> AND Year = 2022`",
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences?year=2022"),
            },
            Pattern {
                id: "L4",
                route: "`GET /courses/{course}/occurrences?month=2022-03`",
                index: Index::Multi(OCCURRENCES_BY_DATE),
                request: "Query `CourseKey = <course> AND Year = 2022 AND Month = 3`",
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences?month=2022-03"),
            },
            Pattern {
                id: "L5",
                route: "`GET /courses/{course}/occurrences?date=2022-03-15`",
                index: Index::Multi(OCCURRENCES_BY_DATE),
                request: "Query `CourseKey = <course> AND Year = 2022 AND Month = 3 AND Day = 15`",
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone("/courses/introtodynamodb/occurrences?date=2022-03-15"),
            },
            Pattern {
                id: "L6",
                route: "`GET /courses/{course}/occurrences?date=2022-03-15&location=build` (a location's prefix)",
                index: Index::Multi(OCCURRENCES_BY_DATE),
                request: r#"Query `CourseKey = <course> AND Year = 2022 AND Month = 3 AND Day = 15 AND begins_with(LocationKey, "build")`"#,
                returns: "`{courseKey, occurrences, nextCursor}` in date order",
                example: Example::anyone(
                    "/courses/introtodynamodb/occurrences?date=2022-03-15&location=build",
                ),
            },
        ],
    )
    .paged(20),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::ok::<Page>("one page of occurrences")
            .query(&[
                Query::with("year", "", |_| {
                    json_schema!({ "type": "string", "pattern": "^[0-9]{4}$" })
                }),
                Query::with("month", "", |_| {
                    json_schema!({ "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$" })
                }),
                Query::of::<keys::Date>("date", ""),
                Query::of::<Location>("location", "the beginning of a location; needs date"),
            ])
            .page_note(
                "a page also stops at 32 read units (it holds at least 50 of the largest occurrences, 5 KB each), the next page one nextCursor away",
            )
            .worst_read_units(31.0)
        .worst(worst),
];

api::page! {
    /// A page of a course's occurrences.
    Page<'a> {
        course_key: &'a str,
        occurrences: Vec<view::CourseOccurrence>,
    }
}

/// The costliest page: the most occurrences a page may ask for, each the largest there can be,
/// and one more after them.
fn worst() -> api::function::Worst {
    use crate::create_course_occurrence::{largest_at, longest_course_name, longest_location};
    use api::function::{Worst, leak, path_segment};
    let limit = api::function::Page::MAX;
    let target = format!(
        "/courses/{}/occurrences?limit={limit}",
        path_segment(&longest_course_name())
    );
    let mut worst = Worst::new(
        format!(
            "`limit={limit}` on a course of {} of the largest occurrences",
            limit + 1
        ),
        Example::anyone(leak(target)),
    );
    for n in 0..=limit {
        worst = worst.after(
            "create-course-occurrence",
            largest_at(&longest_location(n as u16)),
        );
    }
    worst
}

/// The index the API reads ([`keys::indexes::OccurrencesByDate`]).
const OCCURRENCES_BY_DATE: &str = <keys::indexes::OccurrencesByDate as keys::Index>::NAME;

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
    let read = match (&location, period) {
        (None, period) => OccurrenceRead::In(period),
        (Some(location), Period::Day(date)) => OccurrenceRead::At(date, location.clone()),
        (Some(_), _) => {
            return Err(ApiError::invalid_parameter(
                "location",
                "a location narrows one date: give date=YYYY-MM-DD with it",
            ));
        }
    };
    api::count_as_pattern(read.pattern());
    let condition = read
        .by_date(course.key())
        .map_err(|e| ApiError::invalid_parameter("month", e))?;
    let binding = |limit| {
        let location = location.as_ref().map(Location::as_key).unwrap_or("");
        format!(
            "L2-6|{}|{period:?}|{location}|{limit}",
            course.key().as_key()
        )
    };
    let paging = api::paging(deps, &req, &FUNCTION, binding)?;
    // Anyone may ask: the page stops at the read budget.
    let largest = model::learning::CourseOccurrence::LARGEST_BYTES;
    let (items, next) = paging
        .page_within::<CourseOccurrence, _>(deps.table.query(condition), largest)
        .await?;
    api::json(
        200,
        &Page {
            course_key: course.key().as_key(),
            occurrences: items.iter().map(view::occurrence).collect(),
            next_cursor: next,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::create_occurrence;
    use serde_json::{Value, json};
    use testkit::{Harness, walk_pages};

    /// A harness on a table holding the course's six occurrences ([`SEEDED`]), another course's
    /// and a certificate.
    async fn seeded() -> Harness {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        for (course, date, location) in [
            ("Intro to DynamoDB", "2022-03-15", "Building 1"),
            ("Intro to DynamoDB", "2022-03-15", "Building 2"),
            ("Intro to DynamoDB", "2022-03-15", "Annex 1"),
            ("Intro to DynamoDB", "2022-03-01", "Building 10"),
            ("Intro to DynamoDB", "2022-04-02", "Building 1"),
            ("Intro to DynamoDB", "2023-01-09", "Building 1"),
            ("Advanced Modeling", "2022-03-15", "Building 1"),
        ] {
            let o = crate::fixtures::occurrence(course, date, location);
            assert!(create_occurrence(table, &o).await.unwrap());
        }
        // A certificate in the course's partition: the occurrence reads never pay for it.
        let cert = crate::fixtures::certificate(
            "2022-03-15",
            "David Spurdy",
            "Tyler Walch",
            keys::learning::CertVersion::V2,
        );
        table.put(&cert, None).await.unwrap();
        h
    }

    /// The course's occurrences as [`places`] shows them, in the index's order: date, then
    /// location.
    const SEEDED: [&str; 6] = [
        "2022-03-01 Building 10",
        "2022-03-15 Annex 1",
        "2022-03-15 Building 1",
        "2022-03-15 Building 2",
        "2022-04-02 Building 1",
        "2023-01-09 Building 1",
    ];

    /// `query` of the seed's course, spelled as it was created.
    async fn get(h: &Harness, query: &[(&str, &str)]) -> (u16, Value) {
        h.get("/courses/Intro%20to%20DynamoDB/occurrences", query)
            .await
    }

    fn places(body: &Value) -> Vec<String> {
        testkit::joined(&body["occurrences"], &["startDate", "location"], " ")
    }

    #[tokio::test]
    async fn l2_to_l6_each_one_query_in_date_then_location_order() {
        let h = seeded().await;
        let table = h.table();
        // Each read is one run of the index's order: a slice of SEEDED.
        for (query, expected) in [
            (vec![], &SEEDED[..]),
            (vec![("year", "2022")], &SEEDED[..5]),
            (vec![("month", "2022-03")], &SEEDED[..4]),
            (vec![("date", "2022-03-15")], &SEEDED[1..4]),
            (
                vec![("date", "2022-03-15"), ("location", "build")],
                &SEEDED[2..4],
            ),
            (
                vec![("date", "2022-03-15"), ("location", "Building 1")],
                &SEEDED[2..3],
            ),
            (vec![("year", "2021")], &[]),
        ] {
            table.meter().reset();
            let (s, body) = get(&h, &query).await;
            assert_eq!(s, 200, "{query:?}: {body}");
            assert_eq!(places(&body), expected, "{query:?}");
            let requests = table.meter().requests();
            assert_eq!(requests.len(), 1, "{query:?}: one query");
            assert_eq!(requests[0].index, Some("OccurrencesByDate"));
            assert_eq!(
                requests[0].items,
                expected.len(),
                "{query:?}: no certificate read"
            );
        }
    }

    #[tokio::test]
    async fn pages_walk_every_occurrence_once() {
        let h = seeded().await;
        let pages = walk_pages("2", async |query: &[(&str, &str)]| {
            h.get("/courses/introtodynamodb/occurrences", query).await.1
        })
        .await;
        let all: Vec<String> = pages.iter().flat_map(places).collect();
        assert_eq!(all.len(), 6);
        assert!(all.is_sorted());
    }

    /// L2–L6 from the API (`OccurrencesByDate`) and from GSI1's concatenated keys
    /// (`store::learning`, seed 001's design), walked page by page over random occurrences with
    /// awkward locations (the delimiter and the escape character themselves and characters that
    /// sort next to them, numbers, locations that are prefixes of others, many on one day) and
    /// several page sizes: every page holds the same occurrences in the same order. (`!`, `"` and
    /// `$`, which would part the orders, are refused: `keys::learning::LOCATION_REFUSED`.)
    #[tokio::test]
    async fn both_key_designs_answer_every_page_alike() {
        use crate::data::{OccurrenceIndex, occurrences_page};
        use keys::learning::{Course, OccurrenceRead};

        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut random = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        const PIECES: [&str; 20] = [
            "a", "A", "b", "'", "(", "#", "+", "%", "&", "-", ".", "1", "2", "10", "99", "é", "z",
            "room", "Room ", "ab",
        ];
        const DAYS: [&str; 6] = [
            "2022-03-15",
            "2022-03-01",
            "2022-03-31",
            "2022-04-02",
            "2021-12-31",
            "2023-01-09",
        ];
        let mut written = 0;
        for i in 0..90 {
            // Half of them on one day, which L5 and L6 read.
            let day = if i % 2 == 0 {
                DAYS[0]
            } else {
                DAYS[random(DAYS.len())]
            };
            let location: String = (0..=random(3))
                .map(|_| PIECES[random(PIECES.len())])
                .collect();
            // "." alone, or a number wider than two digits ("1099"), is no location.
            if Location::parse(&location).is_err() {
                continue;
            }
            for course in ["Intro to DynamoDB", "Intro to DynamoDB 2"] {
                let o = crate::fixtures::occurrence(course, day, &location);
                written += usize::from(create_occurrence(table, &o).await.unwrap());
            }
        }
        assert!(written > 100, "{written} occurrences");

        let course = Course::parse("introtodynamodb").unwrap();
        let date = keys::Date::parse_iso(DAYS[0]).unwrap();
        let mut reads = vec![
            (vec![], OccurrenceRead::In(Period::Any)),
            (
                vec![("year", "2022")],
                OccurrenceRead::In(Period::Year(2022)),
            ),
            (
                vec![("month", "2022-03")],
                OccurrenceRead::In(Period::Month(2022, 3)),
            ),
            (
                vec![("date", DAYS[0])],
                OccurrenceRead::In(Period::Day(date)),
            ),
        ];
        for partial in ["a", "ro", "room1", "#", "&", "'", "%", "1", "é"] {
            reads.push((
                vec![("date", DAYS[0]), ("location", partial)],
                OccurrenceRead::At(date, Location::parse(partial).unwrap()),
            ));
        }
        for (params, read) in &reads {
            for limit in [1u32, 3, 7, 100] {
                let size = limit.to_string();
                let api: Vec<Vec<Value>> = walk_pages(&size, async |query: &[(&str, &str)]| {
                    let query: Vec<_> = query.iter().chain(params).copied().collect();
                    let (s, body) = h.get("/courses/introtodynamodb/occurrences", &query).await;
                    assert_eq!(s, 200, "{query:?}: {body}");
                    body
                })
                .await
                .iter()
                .map(|p| p["occurrences"].as_array().unwrap().clone())
                .collect();
                let mut concatenated = Vec::new();
                let mut start = None;
                loop {
                    let page = occurrences_page(
                        table,
                        OccurrenceIndex::Gsi1,
                        course.key(),
                        read,
                        limit,
                        start,
                    )
                    .await
                    .unwrap();
                    let items = page.items.iter().map(|o| json!(view::occurrence(o)));
                    concatenated.push(items.collect::<Vec<_>>());
                    start = page.last_key;
                    if start.is_none() {
                        break;
                    }
                }
                let places = |pages: &[Vec<Value>]| -> Vec<Vec<String>> {
                    let place = |o: &Value| format!("{} {}", o["startDate"], o["location"]);
                    pages
                        .iter()
                        .map(|p| p.iter().map(place).collect())
                        .collect()
                };
                let at = format!("{} {params:?}, limit {limit}", read.pattern());
                assert_eq!(places(&api), places(&concatenated), "{at}");
                assert_eq!(api, concatenated, "{at}");
            }
        }
    }

    #[tokio::test]
    async fn bad_parameters_are_400s() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        for query in [
            vec![("year", "22")],
            vec![("year", "2022"), ("month", "2022-03")],
            vec![("month", "2022-13")],
            vec![("month", "2022-3")],
            vec![("date", "2022-02-30")],
            vec![("location", "Building 1")],
            vec![("year", "2022"), ("location", "B")],
            vec![("date", "2022-03-15"), ("location", "Building 100")],
            vec![("date", "2022-03-15"), ("location", "Room A!")],
            vec![("limit", "0")],
            vec![("cursor", "forged")],
        ] {
            let (s, body) = get(&h, &query).await;
            assert_eq!(s, 400, "{query:?}: {body}");
        }
    }

    /// Anyone may read these pages: at `limit=100`, a page of the largest occurrences consumed
    /// 56.5 units. A page stops at the read budget instead, the walk still lists every
    /// occurrence once, and the default page of the largest occurrences is one query.
    #[tokio::test]
    async fn a_page_of_the_largest_occurrences_stops_at_the_read_budget() {
        use crate::create_course_occurrence::{self as create, largest_at, longest_location};
        let writer = Harness::on_new_table(&create::FUNCTION, create::handle).await;
        let count = 80;
        for n in 0..count {
            let body = largest_at(&longest_location(n)).body.expect("a body");
            let (s, b) = writer.as_staff().post("/courses", body).await;
            assert_eq!(s, 201, "{b}");
        }
        let h = Harness::new(&FUNCTION, handle, writer.table().clone());
        let path = h.path(&[&create::longest_course_name()]);
        let pages =
            testkit::walk_within_read_budget(h.table(), "100", async |q| h.get(&path, q).await)
                .await;
        assert!(
            pages.len() > 1,
            "{count} occurrences of 4 KB are more than one budget"
        );
        let listed: Vec<String> = pages
            .iter()
            .flat_map(|p| p["occurrences"].as_array().cloned().unwrap_or_default())
            .map(|o| o["location"].as_str().unwrap_or_default().to_owned())
            .collect();
        let expected: Vec<String> = (0..count).map(longest_location).collect();
        assert_eq!(listed, expected, "every occurrence once, in location order");
        h.table().meter().reset();
        let answer = h.get(&path, &[]).await;
        testkit::assert_default_page(h.table(), &answer, "occurrences", 20);
    }
}
