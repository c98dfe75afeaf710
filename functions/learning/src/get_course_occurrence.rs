//! L1: `GET /courses/{course}/occurrences/{date}/{location}`: one course occurrence by name, date
//! (`YYYY-MM-DD`) and location. ONE GetItem. 404 `course_not_found`. Anyone may read it.

use crate::{params, views as view};
use api::declare::*;
use keys::learning as k;
use model::{Entity, learning::CourseOccurrence};
use store::Read;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "get-course-occurrence",
    Access::Public,
    &Route::get(
        "/courses/{course}/occurrences/{date}/{location}",
        "L1: a course occurrence by name, date and location",
        &[Pattern {
            id: "L1",
            route: "`GET /courses/{course}/occurrences/{date}/{location}`",
            index: Index::Table,
            request: "GetItem",
            returns: "the occurrence; 404 `course_not_found`",
            example: Example::anyone(
                "/courses/Intro%20to%20DynamoDB/occurrences/2022-03-15/Building%201",
            ),
        }],
    ),
);

api::refusals! {
    CourseNotFound = crate::refusals::COURSE_NOT_FOUND,
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::ok::<view::CourseOccurrence>("the occurrence")
    .refusals(Refused::ALL)
    .worst_read_units(1.0)
    .worst(|| {
        use crate::create_course_occurrence::{largest, longest_course_name, longest_location};
        use api::function::{Worst, leak, path_segment};
        let target = format!(
            "/courses/{}/occurrences/2022-03-16/{}",
            path_segment(&longest_course_name()),
            path_segment(&longest_location(0))
        );
        Worst::new("the largest occurrence", Example::anyone(leak(target)))
            .after("create-course-occurrence", largest())
    })];

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let course = params::path_course(&req)?;
    let date = params::path_date(&req, "date")?;
    let location = params::path_location(&req)?;
    let key = k::course_occurrence(course.key(), date, CourseOccurrence::VERSION, &location);
    let found = deps.table.get(&key, Read::Eventual).await?;
    api::found(found, view::occurrence, Refused::CourseNotFound, || {
        format!("There is no {course} on {date} at {location}.")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use testkit::{Harness, percent_encode};

    #[tokio::test]
    async fn finds_the_occurrence_however_the_course_and_location_are_spelled() {
        let table = testkit::table().await;
        let seed = crate::fixtures::occurrence(crate::fixtures::INTRO, "2022-03-15", "Building 1");
        table.put(&seed, None).await.unwrap();
        let h = Harness::new(&FUNCTION, handle, table.clone());
        for (course, location) in [
            ("Intro to DynamoDB", "Building 1"),
            ("introtodynamodb", "building01"),
        ] {
            table.meter().reset();
            let (course, location) = (percent_encode(course), percent_encode(location));
            let path = format!("/courses/{course}/occurrences/2022-03-15/{location}");
            let (s, body) = h.get(&path, &[]).await;
            assert_eq!(s, 200, "{body}");
            assert_eq!(body["courseName"], "Intro to DynamoDB");
            assert_eq!(body["location"], "Building 1");
            let requests = table.meter().requests();
            assert_eq!(requests.len(), 1);
            assert_eq!(requests[0].operation, "GetItem");
        }
        for (date, location, status) in [
            ("2022-03-16", "Building 1", 404),
            ("2022-03-15", "Building 2", 404),
            ("2022-02-30", "Building 1", 400),
            ("2022-03-15", "Building 100", 400),
        ] {
            let path = format!(
                "/courses/Intro%20to%20DynamoDB/occurrences/{date}/{}",
                percent_encode(location)
            );
            let (s, body) = h.get(&path, &[]).await;
            assert_eq!(s, status, "{date} {location}: {body}");
            if status == 404 {
                assert_eq!(body["code"], "course_not_found");
            }
        }
    }
}
