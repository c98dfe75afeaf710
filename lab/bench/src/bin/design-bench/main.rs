//! `make bench`: what the designs cost, each against its baseline measured in the same run on
//! DynamoDB Local (fresh tables; units as DynamoDB Local reports them).
//! - [`coalesce`]: the stream pipeline's writes, coalesced per batch, against one record at a time;
//! - [`merged`]: a page of a write-sharded index read as one list (L11), against a page of one
//!   partition holding the same items (L9).

mod coalesce;
mod merged;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    coalesce::run().await?;
    println!();
    merged::run().await
}
