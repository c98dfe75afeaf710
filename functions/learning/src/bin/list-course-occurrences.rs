api::main!(learning::list_course_occurrences);
