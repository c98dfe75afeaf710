api::main!(commerce::list_product_order_items);
