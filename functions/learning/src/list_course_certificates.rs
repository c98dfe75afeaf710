//! L9 and L10: `GET /courses/{course}/certificates?date=2022-03-15[&version=1]`: a course day's
//! certificates, every version (L9: `begins_with(SK, "2022/03/15#cert#")`) or one (L10:
//! `"2022/03/15#cert#01#"`), a page at a time (`limit`, default 50, 1..=100, signed `cursor`).
//! ONE query per page; the day's course occurrences are never read. Anyone may read it.

use crate::{params, views as view};
use api::declare::*;
use keys::learning as k;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "list-course-certificates",
    Access::Staff,
    &Route::get(
        "/courses/{course}/certificates",
        "L9-L10: a course day's certificates, every entity version or one",
        &[
            Pattern {
                id: "L9",
                route: "`GET /courses/{course}/certificates?date=&limit=&cursor=`",
                index: Index::Table,
                request: r#"Query `PK = <course> AND begins_with(SK, "2022/03/15#cert#")`; a page stops at 32 read units (another Query only while the budget left pays for it at 4 KB a certificate)"#,
                returns: "`{certificates, nextCursor}`: every entity version",
                example: Example::staff("/courses/introtodynamodb/certificates?date=2022-03-15"),
            },
            Pattern {
                id: "L10",
                route: "`GET /courses/{course}/certificates?date=&version=&limit=&cursor=`",
                index: Index::Table,
                request: r#"Query `PK = <course> AND begins_with(SK, "2022/03/15#cert#01#")`; a page stops at 32 read units (another Query only while the budget left pays for it at 4 KB a certificate)"#,
                returns: "`{certificates, nextCursor}`: one entity version",
                example: Example::staff(
                    "/courses/introtodynamodb/certificates?date=2022-03-15&version=1",
                ),
            },
        ],
    )
    .paged(50),
);

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<Page>("one page of certificates").query(&[
    Query::of::<keys::Date>("date", "").required(),
    params::VERSION,
])];

api::page! {
    /// A page of a course day's certificates.
    Page<'a> {
        course_key: &'a str,
        date: keys::Date,
        certificates: Vec<view::Certificate>,
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let course = params::path_course(&req)?;
    let date = api::query_date(&req, "date")?
        .ok_or_else(|| ApiError::invalid_parameter("date", "give date=YYYY-MM-DD"))?;
    let version = params::query_version(&req)?;
    api::count_as_pattern(if version.is_some() { "L10" } else { "L9" });
    let paging = api::paging(deps, &req, &FUNCTION, |limit| {
        format!("L9-10|{}|{date}|{version:?}|{limit}", course.key().as_key())
    })?;
    let query = deps
        .table
        .query(k::certificates_on(course.key(), date, version));
    // Within the read budget, as a public page: certificates can be 4 KB each.
    let largest = model::learning::Certificate::LARGEST_BYTES;
    let (certificates, next_cursor) = paging
        .page_shown_within(query, largest, view::certificate)
        .await?;
    api::json(
        200,
        &Page {
            course_key: course.key().as_key(),
            date,
            certificates,
            next_cursor,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::learning::CertVersion;
    use testkit::Harness;

    /// A staff page is budgeted as a public one: at `limit=100`, a course day of 80 of the
    /// largest certificates (about 3.7 KB each: 37 read units in one query) is more than one
    /// page, each within 32 read units, and the walk lists every certificate once.
    #[tokio::test]
    async fn a_page_of_the_largest_certificates_stops_at_the_read_budget() {
        use crate::{create_course_occurrence as create, issue_certificate as issue};
        let issuer = issue::tests::issuing_the_largest().await;
        let count = 80;
        let students: Vec<String> = (0..count)
            .map(|n| {
                let widest = api::function::widest_text(keys::MAX_TEXT_LEN - 3);
                format!("{widest}s{n:02}")
            })
            .collect();
        for student in &students {
            let (s, b) = issuer
                .as_staff()
                .post("/certificates", &issue::largest_for(student))
                .await;
            assert_eq!(s, 201, "{b}");
        }
        let h = Harness::new(&FUNCTION, handle, issuer.table().clone());
        let path = h.path(&[&create::longest_course_name()]);
        let pages = testkit::walk_within_read_budget(h.table(), "100", async |q| {
            let mut q = q.to_vec();
            q.push(("date", "2022-03-16"));
            h.as_staff().get(&path, &q).await
        })
        .await;
        assert!(
            pages.len() > 1,
            "{count} certificates of 3.7 KB are more than one budget"
        );
        let listed = pages
            .iter()
            .flat_map(|p| p["certificates"].as_array().cloned().unwrap_or_default())
            .count();
        assert_eq!(listed, count, "every certificate once");
    }

    #[tokio::test]
    async fn l9_every_version_l10_one_never_the_occurrence() {
        let table = testkit::table().await;
        let o = crate::fixtures::occurrence(crate::fixtures::INTRO, "2022-03-15", "Building 1");
        table.put(&o, None).await.unwrap();
        for (student, v) in [
            ("David Spurdy", CertVersion::V1),
            ("Ann Lee", CertVersion::V2),
        ] {
            let c = crate::fixtures::certificate("2022-03-15", student, "Tyler Walch", v);
            table.put(&c, None).await.unwrap();
        }
        let h = Harness::new(&FUNCTION, handle, table.clone());
        for (query, expected) in [
            (
                vec![("date", "2022-03-15")],
                vec!["David Spurdy", "Ann Lee"],
            ),
            (
                vec![("date", "2022-03-15"), ("version", "1")],
                vec!["David Spurdy"],
            ),
            (
                vec![("date", "2022-03-15"), ("version", "2")],
                vec!["Ann Lee"],
            ),
            (vec![("date", "2022-03-16")], vec![]),
        ] {
            table.meter().reset();
            let (s, body) = h.get("/courses/introtodynamodb/certificates", &query).await;
            assert_eq!(s, 200, "{body}");
            let students = testkit::column(&body["certificates"], "student");
            assert_eq!(students, expected, "{query:?}");
            let r = table.meter().requests();
            assert_eq!(
                (r.len(), r[0].items),
                (1, expected.len()),
                "one query, no occurrence read"
            );
        }
        for query in [
            vec![],
            vec![("date", "2022-03-15"), ("version", "3")],
            vec![("date", "x")],
            vec![("date", "2022-03-15"), ("cursor", "forged")],
        ] {
            let (s, _) = h.get("/courses/introtodynamodb/certificates", &query).await;
            assert_eq!(s, 400, "{query:?}");
        }
        // A cursor of one day is refused for another.
        testkit::assert_cursor_refused_by_another_read(
            &h,
            "/courses/introtodynamodb/certificates",
            &[("date", "2022-03-15"), ("limit", "1")],
            &[("date", "2022-03-16"), ("limit", "1")],
        )
        .await;
    }
}
