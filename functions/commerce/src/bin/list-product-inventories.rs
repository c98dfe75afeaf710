api::main!(commerce::list_product_inventories);
