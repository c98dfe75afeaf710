api::main!(commerce::get_daily_stats);
