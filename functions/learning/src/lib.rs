//! Learning: course occurrences and certificates.
//!
//! One module per Lambda (its declaration, handler and tests); one binary per Lambda in
//! `src/bin/`, a few lines that serve the module. Beside them, what the context does with the table
//! and shows of it: [`data`] (its reads and writes), [`views`] (its records as clients read them),
//! [`params`] (its own request parameters), and [`fixtures`] (the entities its tests, the seeds and
//! the tools start from).

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

pub mod data;
pub mod fixtures;
pub mod params;
pub mod views;
