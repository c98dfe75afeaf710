//! Table access shared by the functions.
//!
//! A [`Table`] is made once at start-up from the environment (`TABLE_NAME`, and the SDK's own
//! settings: `AWS_ENDPOINT_URL_DYNAMODB` points it at DynamoDB Local). Every request it sends asks
//! for `ReturnConsumedCapacity=TOTAL` and records the answer in the table's [`Meter`], which logs
//! it and lets tests check that an access pattern made one request at the minimum cost.

mod error;
mod meter;
mod txn;

pub mod aggregate;
pub mod commerce;
pub mod cursor;
pub mod item;
pub mod reviews;

use aws_sdk_dynamodb::Client;

pub use aws_sdk_dynamodb;
pub use error::StoreError;
pub use meter::{Meter, Request};

/// The single table, and the client that reaches it.
#[derive(Clone, Debug)]
pub struct Table {
    client: Client,
    name: String,
    meter: Meter,
}

impl Table {
    pub fn new(client: Client, name: impl Into<String>) -> Table {
        Table {
            client,
            name: name.into(),
            meter: Meter::default(),
        }
    }

    /// Reads `TABLE_NAME` and the SDK's standard configuration once, at start-up.
    pub async fn from_env() -> Result<Table, StoreError> {
        let name = std::env::var("TABLE_NAME")
            .map_err(|_| StoreError::Config("TABLE_NAME is not set".into()))?;
        let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        Ok(Table::new(Client::new(&config), name))
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// One GetItem, metered. `consistent` asks for a strongly consistent read (twice the cost);
    /// `projection` limits the attributes returned (not the cost, which is the item's size).
    pub async fn get_item(
        &self,
        key: &keys::Key,
        consistent: bool,
        projection: Option<&str>,
    ) -> Result<Option<item::Item>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.name)
            .set_key(Some(item::key_map(key)))
            .consistent_read(consistent)
            .set_projection_expression(projection.map(str::to_owned))
            .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(error::from_sdk)?;
        self.meter.record(
            "GetItem",
            out.consumed_capacity.as_slice(),
            usize::from(out.item.is_some()),
        );
        Ok(out.item)
    }
}
