//! Learning: course occurrences and certificates.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, a few lines that serve the module.

api::functions![
    create_course_occurrence,
    get_course_occurrence,
    list_course_occurrences,
    get_course_day,
    list_course_certificates,
    get_certificate,
    issue_certificate,
    list_certificates,
];

pub mod params;
pub mod views;
