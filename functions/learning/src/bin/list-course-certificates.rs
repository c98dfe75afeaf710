api::main!(learning::list_course_certificates);
