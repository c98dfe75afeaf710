//! `POST /courses` with `{"courseName", "startDate", "location", "courseType"}`: creates a course
//! occurrence (the "Course" of Walch's talk), 201. One PutItem, on `attribute_not_exists`: the same
//! name, date and location (as normalised in the key: case and spacing ignored, numbers padded) is
//! a 409 `course_exists`. Staff only.
//!
//! The item also carries its GSI1 key (`course#<course>#`, `<yyyy/mm/dd>#<location>#`), so the
//! occurrence reads (L2–L6) find it apart from the course's certificates.

use crate::data as learning;
use crate::views as view;
use api::declare::*;
use keys::{
    Date,
    learning::{Course, Location},
};
use model::learning::CourseOccurrence;
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "create-course-occurrence",
    Access::Staff,
    &Route::post(
        "/courses",
        "Create a course occurrence (the Course of Walch's talk)",
        &[
            Pattern {
                id: "",
                route: "`POST /courses` `{courseName, startDate, location, courseType}` (staff)",
                index: Index::Table,
                request: "PutItem, `attribute_not_exists`",
                returns: "201 the occurrence; 409 `course_exists`",
                example: Example::staff("/courses").with_body(r#"{"courseName": "Intro to DynamoDB", "startDate": "2022-03-16", "location": "Building 2", "courseType": "DevChat"}"#),
            },
        ],
    ),
);

api::refusals! {
    CourseExists = Refusal::new(409, "course_exists", "the course occurrence exists already"),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[
    Contract::created::<view::CourseOccurrence>("the occurrence")
        .body::<NewOccurrence>()
        .refusals(Refused::ALL)
        .worst(|| {
                    api::function::Worst::new(
                        format!("a course name and a location of {} and a course type of {MAX_COURSE_TYPE_CHARS} characters of 4 bytes", keys::MAX_TEXT_LEN),
                        largest(),
                    )
                }),
];

// An occurrence's bounds, its entity's (`model::learning::CourseOccurrence`).
const MAX_COURSE_TYPE_CHARS: usize = model::learning::CourseOccurrence::MAX_COURSE_TYPE_CHARS;

/// The longest course name, of the widest characters (`issue-certificate`'s worst case too).
pub fn longest_course_name() -> String {
    api::function::widest_text(keys::MAX_TEXT_LEN)
}

/// The `n`th longest location, of the widest characters: as many occurrences of one course on
/// one day as a worst case needs. It ends in three letters, `n` in base 26 (`aaa`, `aab`, ...):
/// a location's numbers have two digits at most.
pub fn longest_location(n: u16) -> String {
    let letter = |place: u32| char::from(b'a' + (u32::from(n) / 26u32.pow(place) % 26) as u8);
    let suffix: String = (0..3).rev().map(letter).collect();
    format!(
        "{}{suffix}",
        api::function::widest_text(keys::MAX_TEXT_LEN - 3)
    )
}

/// The request that creates the largest occurrence, on 2022-03-16 at the first longest location.
pub fn largest() -> Example {
    largest_at(&longest_location(0))
}

/// The request that creates the largest occurrence on 2022-03-16 at `location`.
pub fn largest_at(location: &str) -> Example {
    let body = serde_json::json!({
        "courseName": longest_course_name(),
        "startDate": "2022-03-16",
        "location": location,
        "courseType": api::function::widest_text(MAX_COURSE_TYPE_CHARS),
    });
    Example::staff("/courses").with_body(api::function::leak(body.to_string()))
}

/// A course, when and where it is given, and its type.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(inline)]
struct NewOccurrence {
    #[schemars(with = "Course")]
    course_name: String,
    #[schemars(with = "Date")]
    start_date: String,
    #[schemars(with = "Location")]
    location: String,
    #[schemars(length(min = 1, max = MAX_COURSE_TYPE_CHARS))]
    course_type: String,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let body: NewOccurrence = api::json_body(&req)?;
    let course_type = api::text_field("courseType", &body.course_type, MAX_COURSE_TYPE_CHARS)?;
    let occurrence = CourseOccurrence {
        course_name: api::field("courseName", Course::parse(&body.course_name))?,
        start_date: api::field("startDate", Date::parse_iso(&body.start_date))?,
        location: api::field("location", Location::parse(&body.location))?,
        course_type: course_type.to_owned(),
    };
    if !learning::create_occurrence(&deps.table, &occurrence).await? {
        return Err(Refused::CourseExists.because(format!(
            "{} on {} at {} exists already.",
            occurrence.course_name, occurrence.start_date, occurrence.location
        )));
    }
    api::json(201, &view::occurrence(&occurrence))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use testkit::{Harness, all_items};

    const SEED: &str = r#"{"courseName":"Intro to DynamoDB","startDate":"2022-03-15","location":"Building 1","courseType":"DevChat"}"#;

    #[tokio::test]
    async fn creates_the_seed_occurrence_with_the_talks_keys_once() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let post = async |body: &str| h.as_staff().post("/courses", body).await;
        let (s, body) = post(SEED).await;
        assert_eq!(s, 201, "{body}");
        assert_eq!(
            body,
            json!({"courseName": "Intro to DynamoDB", "courseKey": "introtodynamodb",
                   "startDate": "2022-03-15", "location": "Building 1", "courseType": "DevChat"})
        );
        let items = all_items(table).await;
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["SK"], model::s("2022/03/15#course#01#building01#"));
        // The same occurrence however it is spelled.
        let again = r#"{"courseName":"intro to  dynamodb","startDate":"2022-03-15","location":"building 01","courseType":"Other"}"#;
        let (s, body) = post(again).await;
        assert_eq!((s, body["code"].as_str()), (409, Some("course_exists")));
        assert_eq!(all_items(table).await, items, "nothing written");
    }

    /// The largest occurrence there can be is an item of at most `model::learning::CourseOccurrence::LARGEST_BYTES`, the
    /// size public pages of occurrences assume, and within 1 KB of it, so the bound is not slack.
    #[tokio::test]
    async fn the_largest_occurrence_is_within_the_size_pages_assume() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let (s, body) = h
            .as_staff()
            .post("/courses", largest().body.expect("a body"))
            .await;
        assert_eq!(s, 201, "{body}");
        let items = all_items(h.table()).await;
        let largest = items
            .iter()
            .map(testkit::item_size)
            .max()
            .expect("the item");
        assert!(
            largest <= model::learning::CourseOccurrence::LARGEST_BYTES as usize,
            "{largest} bytes"
        );
        assert!(
            largest + 1024 > model::learning::CourseOccurrence::LARGEST_BYTES as usize,
            "{largest} bytes"
        );
    }

    #[tokio::test]
    async fn bad_input_is_a_400_and_writes_nothing() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let post = async |body: &str| h.as_staff().post("/courses", body).await;
        for body in [
            r#"{"courseName":"Intro","startDate":"2022-02-30","location":"B 1","courseType":"x"}"#,
            r#"{"courseName":"Intro","startDate":"15/03/2022","location":"B 1","courseType":"x"}"#,
            r#"{"courseName":"Intro","startDate":"2022-03-15","location":"Building 100","courseType":"x"}"#,
            r#"{"courseName":"  ","startDate":"2022-03-15","location":"B 1","courseType":"x"}"#,
            r#"{"courseName":"Intro","startDate":"2022-03-15","location":"B 1","courseType":""}"#,
            r#"{"courseName":"Intro","startDate":"2022-03-15","location":"B 1"}"#,
            r#"{"courseName":"Intro","startDate":"2022-03-15","location":"B 1","courseType":"x","extra":1}"#,
        ] {
            let (s, b) = post(body).await;
            assert_eq!(s, 400, "{body}: {b}");
        }
        let long = format!(
            r#"{{"courseName":"{}","startDate":"2022-03-15","location":"B 1","courseType":"x"}}"#,
            "c".repeat(129)
        );
        assert_eq!(post(&long).await.0, 400);
        assert!(all_items(table).await.is_empty());
    }

    #[tokio::test]
    async fn a_delimiter_in_a_name_is_escaped_not_a_new_key_part() {
        let h = Harness::on_new_table(&FUNCTION, handle).await;
        let table = h.table();
        let post = async |body: &str| h.as_staff().post("/courses", body).await;
        let body = r#"{"courseName":"A#B","startDate":"2022-03-15","location":"Room #1","courseType":"x"}"#;
        let (s, b) = post(body).await;
        assert_eq!(s, 201, "{b}");
        let items = all_items(table).await;
        assert_eq!(items[0]["PK"], model::s("a%23b"));
        assert_eq!(items[0]["SK"], model::s("2022/03/15#course#01#room%2301#"));
    }
}
