api::main!(learning::get_course_day);
