api::main!(learning::create_course_occurrence);
