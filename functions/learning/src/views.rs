//! How the learning context's records are shown to clients (camelCase JSON): course occurrences
//! and certificates.

use model::learning::{Certificate, CourseOccurrence};
use serde_json::{Value, json};

pub fn occurrence(o: &CourseOccurrence) -> Value {
    json!({
        "courseName": o.course_name.to_string(),
        "courseKey": o.course_name.key().as_key(),
        "startDate": o.start_date,
        "location": o.location.to_string(),
        "courseType": o.course_type,
    })
}

pub fn certificate(c: &Certificate) -> Value {
    json!({
        "courseName": c.cert_name.to_string(),
        "courseKey": c.cert_name.key().as_key(),
        "date": c.issued_date,
        "location": c.location.to_string(),
        "student": c.student.as_str(),
        "certType": c.cert_type.to_string(),
        "instructor": c.instructor.as_str(),
        "version": c.entity_version.version().number(),
    })
}
