api::main!(learning::list_certificates);
