stream_handler::main!(reviews::aggregate_reviews);
