stream_handler::main!(commerce::commerce_stream);
