//! `POST /certificates` with `{"courseName", "date", "location", "student", "certType",
//! "instructor"}`: issues a certificate for a course occurrence, 201. Written as entity v02 (word
//! boundaries kept in people's keys). ONE TransactWriteItems: the occurrence exists (else 404
//! `course_not_found`), no v02 certificate has the key, and no v01 certificate of this student
//! exists for that course day (else 409 `certificate_exists`). A v01 item that shares the v01 key
//! but names another student (`David Spurdy` for `Davids Purdy`) does not stop the issue: that
//! collision is what v02 is for. Staff only.

use crate::data::{Issued, issue_certificate};
use crate::{params, views as view};
use api::declare::*;
use keys::{
    Date,
    learning::{CertVersion, Course, Location, Name},
};
use model::learning::Certificate;
use serde::Deserialize;

/// Who may call it, what it needs, its routes and the patterns they serve.
pub const FUNCTION: Function = Function::one(
    "issue-certificate",
    Access::Staff,
    &Route::post(
        "/certificates",
        "Issue a certificate for a course occurrence (written as entity v02)",
        &[
            Pattern {
                id: "",
                route: "`POST /certificates` `{courseName, date, location, student, certType, instructor}` (staff)",
                index: Index::Table,
                request: "TransactWriteItems: ConditionCheck occurrence; Put v02 (`attribute_not_exists`); ConditionCheck v01 key (absent or another student)",
                returns: "201 the certificate; 404 `course_not_found`; 409 `certificate_exists`",
                example: Example::staff("/certificates").with_body(r#"{"courseName": "Intro to DynamoDB", "date": "2022-03-15", "location": "Building 1", "student": "Davids Purdy", "certType": "Completion", "instructor": "Tyler Walch"}"#),
            },
        ],
    ),
);

/// The body that issues `student` the largest certificate: the longest course name and
/// location (`create-course-occurrence`'s largest occurrence, on 2022-03-16), an instructor of the
/// most four-byte characters.
pub fn largest_for(student: &str) -> String {
    serde_json::json!({
        "courseName": crate::create_course_occurrence::longest_course_name(),
        "date": "2022-03-16",
        "location": crate::create_course_occurrence::longest_location(0),
        "student": student,
        "certType": "Completion",
        "instructor": api::function::widest_text(keys::MAX_TEXT_LEN),
    })
    .to_string()
}

api::refusals! {
    CourseNotFound = crate::refusals::COURSE_NOT_FOUND,
    CertificateExists = Refusal::new(409, "certificate_exists", "the student holds that course day's certificate already"),
}

/// Its routes' contracts (`api::contract`), in `FUNCTION`'s order.
pub const CONTRACTS: &[Contract] = &[Contract::created::<view::Certificate>("the certificate")
    .body::<NewCertificate>()
    .refusals(Refused::ALL)
    .worst(|| {
        use api::function::{leak, widest_text};
        let body = largest_for(&widest_text(keys::MAX_TEXT_LEN));
        api::function::Worst::new(
            format!(
                "course, location, student and instructor names of {} characters of 4 bytes",
                keys::MAX_TEXT_LEN
            ),
            Example::staff("/certificates").with_body(leak(body)),
        )
        .after(
            "create-course-occurrence",
            crate::create_course_occurrence::largest(),
        )
    })];

/// The course occurrence, the student, the type and the instructor.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(inline)]
struct NewCertificate {
    #[schemars(with = "Course")]
    course_name: String,
    #[schemars(with = "Date")]
    date: String,
    #[schemars(with = "Location")]
    location: String,
    #[schemars(with = "keys::schema::FreeText")]
    student: String,
    #[schemars(with = "keys::learning::CertType")]
    cert_type: String,
    #[schemars(with = "keys::schema::FreeText")]
    instructor: String,
}

pub async fn handle(deps: &Deps, req: Request) -> Result<Response<Body>, ApiError> {
    let body: NewCertificate = api::json_body(&req)?;
    let certificate = Certificate {
        cert_name: api::field("courseName", Course::parse(&body.course_name))?,
        issued_date: api::field("date", Date::parse_iso(&body.date))?,
        location: api::field("location", Location::parse(&body.location))?,
        student: api::field("student", Name::parse("student", &body.student))?,
        cert_type: params::cert_type("certType", &body.cert_type)
            .map_err(|e| Common::InvalidBody.because(e.message))?,
        instructor: api::field("instructor", Name::parse("instructor", &body.instructor))?,
        entity_version: CertVersion::CURRENT,
    };
    match issue_certificate(&deps.table, &certificate).await? {
        Issued::Issued => api::json(201, &view::certificate(&certificate)),
        Issued::CourseNotFound => Err(Refused::CourseNotFound.because(format!(
            "There is no {} on {} at {}; create it with POST /courses first.",
            certificate.cert_name, certificate.issued_date, certificate.location
        ))),
        Issued::AlreadyHeld => Err(Refused::CertificateExists.because(format!(
            "{} holds the certificate of {} on {} already.",
            certificate.student, certificate.cert_name, certificate.issued_date
        ))),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::create_occurrence;
    use serde_json::Value;
    use store::Table;
    use testkit::{Harness, all_items};

    /// On a new table, the largest occurrence (what the largest certificates are issued for),
    /// and this function's harness on that table.
    pub(crate) async fn issuing_the_largest() -> Harness {
        use crate::create_course_occurrence as create;
        let writer = Harness::on_new_table(&create::FUNCTION, create::handle).await;
        let (s, b) = writer
            .as_staff()
            .post("/courses", create::largest().body.expect("a body"))
            .await;
        assert_eq!(s, 201, "{b}");
        Harness::new(&FUNCTION, handle, writer.table().clone())
    }

    /// The largest certificate there can be is an item of at most `model::learning::Certificate::LARGEST_BYTES`,
    /// the size staff pages of certificates assume, and within 1 KB of it.
    #[tokio::test]
    async fn the_largest_certificate_is_within_the_size_pages_assume() {
        let h = issuing_the_largest().await;
        let student = api::function::widest_text(keys::MAX_TEXT_LEN);
        let (s, b) = h
            .as_staff()
            .post("/certificates", &largest_for(&student))
            .await;
        assert_eq!(s, 201, "{b}");
        let largest = all_items(h.table())
            .await
            .iter()
            .filter(|i| model::type_of(i) == Some("Certificate"))
            .map(testkit::item_size)
            .max()
            .expect("the certificate");
        assert!(
            largest <= model::learning::Certificate::LARGEST_BYTES as usize,
            "{largest} bytes"
        );
        assert!(
            largest + 1024 > model::learning::Certificate::LARGEST_BYTES as usize,
            "{largest} bytes"
        );
    }

    async fn post(table: &Table, student: &str) -> (u16, Value) {
        let body = format!(
            r#"{{"courseName":"Intro to DynamoDB","date":"2022-03-15","location":"Building 1","student":"{student}","certType":"Completion","instructor":"Tyler Walch"}}"#
        );
        let h = Harness::new(&FUNCTION, handle, table.clone());
        h.as_staff().post("/certificates", &body).await
    }

    async fn with_course() -> Table {
        let table = testkit::table().await;
        let course =
            crate::fixtures::occurrence(crate::fixtures::INTRO, "2022-03-15", "Building 1");
        assert!(create_occurrence(&table, &course).await.unwrap());
        table
    }

    /// `student` holds the certificate already: a second is refused, 409 (nothing written). The
    /// seed's collision, Davids Purdy, whose v01 key is the same, is another person: his is issued.
    async fn held_by_one_not_the_other(table: &Table, student: &str) {
        let (s, body) = post(table, student).await;
        assert_eq!(
            (s, body["code"].as_str()),
            (409, Some("certificate_exists"))
        );
        let (s, body) = post(table, "Davids Purdy").await;
        assert_eq!(s, 201, "{body}");
    }

    #[tokio::test]
    async fn issues_v02_once_per_student_and_only_for_an_occurrence() {
        let table = with_course().await;
        let (s, body) = post(&table, "David Spurdy").await;
        assert_eq!(s, 201, "{body}");
        assert_eq!(body["version"], 2);
        let items = all_items(&table).await;
        let cert = items
            .iter()
            .find(|i| model::type_of(i) == Some("Certificate"))
            .unwrap();
        assert_eq!(cert["SK"], model::s("2022/03/15#cert#02#david-spurdy#"));
        // The same student again, however spelled: 409, nothing written.
        held_by_one_not_the_other(&table, "david  SPURDY").await;
        assert_eq!(all_items(&table).await.len(), 3);

        let empty = testkit::table().await;
        let (s, body) = post(&empty, "David Spurdy").await;
        assert_eq!((s, body["code"].as_str()), (404, Some("course_not_found")));
        assert!(all_items(&empty).await.is_empty());
    }

    #[tokio::test]
    async fn a_v01_certificate_of_the_same_student_counts_one_of_another_does_not() {
        let table = with_course().await;
        let v1 = crate::fixtures::certificate(
            "2022-03-15",
            "David Spurdy",
            "Tyler Walch",
            CertVersion::V1,
        );
        table.put(&v1, None).await.unwrap();
        held_by_one_not_the_other(&table, "David Spurdy").await;
    }

    #[tokio::test]
    async fn bad_input_is_a_400() {
        let table = with_course().await;
        let h = Harness::new(&FUNCTION, handle, table.clone());
        for body in [
            r#"{"courseName":"Intro to DynamoDB","date":"2022-03-15","location":"Building 1","student":"A","certType":"Gold","instructor":"T"}"#,
            r#"{"courseName":"Intro to DynamoDB","date":"2022-02-30","location":"Building 1","student":"A","certType":"Completion","instructor":"T"}"#,
            r#"{"courseName":"Intro to DynamoDB","date":"2022-03-15","location":"Building 1","student":" ","certType":"Completion","instructor":"T"}"#,
            r#"{"courseName":"Intro to DynamoDB","date":"2022-03-15","location":"Building 999","student":"A","certType":"Completion","instructor":"T"}"#,
            r#"{"courseName":"Intro to DynamoDB","date":"2022-03-15","location":"Building 1","student":"A","certType":"Completion"}"#,
        ] {
            let (s, b) = h.as_staff().post("/certificates", body).await;
            assert_eq!(s, 400, "{body}: {b}");
        }
        assert_eq!(all_items(&table).await.len(), 1);
    }
}
