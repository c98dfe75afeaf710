//! `make seed`: loads the seeds' example rows, then seed 003's realistic org, into the local table.
//! Usage: seed [--table NAME]   (DynamoDB Local at AWS_ENDPOINT_URL_DYNAMODB, default :8000)

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let table = tools::table_from_args(&args);
    let written = tools::seed::load(&table).await?;
    let org = tools::org::load(&table).await?;
    println!(
        "seeded table {} at {}: customer {} with {} orders, cart {}, {} books, {} users and {} reviews ({written} new items)",
        table.name(),
        dev::endpoint(),
        tools::seed::CUSTOMER,
        tools::seed::ORDER_DATES.len(),
        tools::seed::CART,
        tools::seed::BOOKS.len(),
        tools::seed::USERS.len(),
        tools::seed::REVIEWS.len(),
    );
    println!(
        "and seed 003's org: {} regions, {} warehouses, {} employees ({} account reps with {} customers each), {} products, {} orders over 2026-Q3 and 2026-Q4 (new: {org:?})",
        tools::org::REGIONS.len(),
        tools::org::WAREHOUSES.len(),
        tools::org::EMPLOYEES,
        tools::org::REPS.len(),
        tools::org::CUSTOMERS_PER_REP,
        tools::org::PRODUCTS,
        tools::org::ORDERS,
    );
    Ok(())
}
