api::main!(learning::get_course_occurrence);
