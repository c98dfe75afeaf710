//! The learning context's fixtures: the course occurrences and certificates of Walch's talk
//! (not written: each test writes them through the function or [`crate::data`] it tests). Not
//! behind a feature: one build serves the functions, the tools and the tests.

use keys::Date;

/// The course of Walch's talk: "Intro to DynamoDB".
pub const INTRO: &str = "Intro to DynamoDB";

/// A course occurrence (not written), of type "DevChat".
pub fn occurrence(course: &str, date: &str, location: &str) -> model::learning::CourseOccurrence {
    use keys::learning::{Course, Location};
    model::learning::CourseOccurrence {
        course_name: Course::parse(course).expect("a valid test course"),
        start_date: Date::parse_iso(date).expect("a valid test date"),
        location: Location::parse(location).expect("a valid test location"),
        course_type: "DevChat".into(),
    }
}

/// A completion certificate (not written) of the course of Walch's talk in Building 1, in
/// `version`.
pub fn certificate(
    date: &str,
    student: &str,
    instructor: &str,
    version: keys::learning::CertVersion,
) -> model::learning::Certificate {
    use keys::learning::{CertType, Name};
    let course = occurrence(INTRO, date, "Building 1");
    model::learning::Certificate {
        cert_name: course.course_name,
        issued_date: course.start_date,
        location: course.location,
        student: Name::parse("student", student).expect("a valid test name"),
        cert_type: CertType::Completion,
        instructor: Name::parse("instructor", instructor).expect("a valid test name"),
        entity_version: version,
    }
}
