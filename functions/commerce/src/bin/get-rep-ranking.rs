api::main!(commerce::get_rep_ranking);
