api::main!(commerce::get_product_sales);
