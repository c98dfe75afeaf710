//! How the learning context's records are shown to clients (camelCase JSON): course occurrences
//! and certificates. Each view is a type whose JSON Schema is `openapi.yaml`'s.

use keys::{Date, learning::CertType};
use model::learning::{Certificate as CertificateRecord, CourseOccurrence as OccurrenceRecord};
use schemars::JsonSchema;
use serde::Serialize;

/// A course occurrence: a course given on a date at a location.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CourseOccurrence {
    /// the course's name as it was created
    pub course_name: String,
    /// the course's key (its name compared as NFKC, case folded, without whitespace)
    pub course_key: String,
    pub start_date: Date,
    pub location: String,
    pub course_type: String,
}

/// A certificate issued to a student for a course occurrence.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Certificate {
    pub course_name: String,
    pub course_key: String,
    pub date: Date,
    pub location: String,
    pub student: String,
    pub cert_type: CertType,
    pub instructor: String,
    /// the entity version its keys are written in
    #[schemars(range(min = 1, max = 2))]
    pub version: u8,
}

pub fn occurrence(o: &OccurrenceRecord) -> CourseOccurrence {
    CourseOccurrence {
        course_name: o.course_name.to_string(),
        course_key: o.course_name.key().as_key().to_owned(),
        start_date: o.start_date,
        location: o.location.to_string(),
        course_type: o.course_type.clone(),
    }
}

pub fn certificate(c: &CertificateRecord) -> Certificate {
    Certificate {
        course_name: c.cert_name.to_string(),
        course_key: c.cert_name.key().as_key().to_owned(),
        date: c.issued_date,
        location: c.location.to_string(),
        student: c.student.as_str().to_owned(),
        cert_type: c.cert_type,
        instructor: c.instructor.as_str().to_owned(),
        version: c.entity_version.version().number(),
    }
}
