api::main!(learning::issue_certificate);
