//! Table access shared by the functions: a small generic store over the model.
//!
//! A [`Table`] is made once at start-up from the environment (`TABLE_NAME`, and the SDK's own
//! settings: `AWS_ENDPOINT_URL_DYNAMODB` points it at DynamoDB Local). It sends the few kinds of
//! request an access pattern is made of, typed by the model: a metered [`Table::get`], a
//! [`Table::query`] over a typed key condition (the index comes from the key's type), a put,
//! update or delete with a [`Condition`], a [`Transaction`] that knows each part's IAM action, a
//! batch get that asks again for unprocessed keys. Every request asks for
//! `ReturnConsumedCapacity` and is recorded by the table's [`Meter`]; errors map to one
//! [`StoreError`]; retries share one backoff policy. A [`Paging`] reads the pages of a paginated
//! pattern and signs their cursors ([`cursor`]).

pub mod deadline;
mod deps;
mod error;
mod expr;
mod meter;
mod query;
mod txn;

pub mod sdk;

pub mod aggregate;
pub mod cursor;
pub mod merge;
pub mod paging;
pub mod retry;

use aws_sdk_dynamodb::{
    Client,
    error::SdkError,
    types::{
        ConsumedCapacity, KeysAndAttributes, PutRequest, ReturnConsumedCapacity, ReturnValue,
        WriteRequest,
    },
};
use keys::PrimaryKey;
use model::{Entity, Item, attr, key_item};

pub use aws_sdk_dynamodb;
pub use deps::{
    Deps, HR_TABLE, INDEX_DESIGN, Needs, Peer, REVIEWS_TABLE, Setting, index_design,
    index_design_from_env, shard_count,
};
pub use error::StoreError;
pub use expr::{Condition, Update};
pub use merge::Budget;
pub use meter::{Meter, Request, Touched};
pub use paging::{
    PAGE_READ_BUDGET, PageRequest, Paging, PagingError, budget_fetches, budget_items, read_within,
    shown,
};
pub use query::{KeyExpression, Page, ParentPage, Query, Selection};
pub use txn::{Part, TRANSACTION_ATTEMPTS, Transaction, cancellation};

use error::{build_error, from_sdk};
use expr::{Placeholders, with_expressions};

/// What [`Table::update_or_current`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Updated {
    /// The item as written.
    Written(Item),
    /// The condition failed: the item as it is (`None`: there is none).
    Refused(Option<Item>),
}

/// An item's primary key attributes (`PK`, `SK`), to read it again.
pub(crate) fn key_of(item: &Item) -> Item {
    item.iter()
        .filter(|(name, _)| [keys::attr::PK, keys::attr::SK].contains(&name.as_str()))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// How many times a batch read asks again for keys DynamoDB left unprocessed.
const BATCH_ATTEMPTS: u32 = 8;

/// A table (the function's context's: the single table with `TableLayout` one-table), and the
/// client that reaches it.
#[derive(Clone, Debug)]
pub struct Table {
    client: Client,
    name: String,
    meter: Meter,
    /// Whether each write's items are read before and after it ([`Table::recording_touched`]).
    touched: bool,
}

/// How fresh a point read must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// Eventually consistent: half the cost.
    Eventual,
    /// Strongly consistent: sees every write acknowledged before it.
    Strong,
}

impl Table {
    /// A table handle whose meter keeps nothing (what a Lambda uses).
    pub fn new(client: Client, name: impl Into<String>) -> Table {
        Table {
            client,
            name: name.into(),
            meter: Meter::default(),
            touched: false,
        }
    }

    /// The same handle, keeping every request it sends (tests and tools).
    pub fn recording(mut self) -> Table {
        self.meter = Meter::recording();
        self
    }

    /// Reads `TABLE_NAME` and the SDK's configuration ([`sdk::config`]) once, at start-up: a
    /// function's table, whose every attempt is bounded ([`deadline::attempt_timeouts`]).
    pub async fn from_env() -> Result<Table, StoreError> {
        let name = std::env::var("TABLE_NAME")
            .ok()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| StoreError::Config("TABLE_NAME is not set".into()))?;
        let config = sdk::config()
            .await?
            .into_builder()
            .timeout_config(deadline::attempt_timeouts())
            .build();
        let client = sdk::dynamodb_client(&config, &name);
        Ok(Table::new(client, name))
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Another table through the same client, recording into the same meter: a peer context's
    /// ([`Peer`]), or the same table again.
    pub fn named(&self, name: impl Into<String>) -> Table {
        Table {
            name: name.into(),
            ..self.clone()
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same handle, recording, and reading each item it writes before and after the write
    /// ([`Touched`]): the cost tests bill writes from them, as DynamoDB does. Two more reads
    /// per item written, unmetered: never for a benchmark.
    pub fn recording_touched(mut self) -> Table {
        self.meter = Meter::recording();
        self.touched = true;
        self
    }

    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// `what`, made only when the meter keeps requests (a Lambda's does not: no allocation).
    pub(crate) fn recorded<T: Default>(&self, what: impl FnOnce() -> T) -> T {
        if self.meter.is_recording() {
            what()
        } else {
            T::default()
        }
    }

    /// One GetItem of an entity; `None` when there is no such item.
    pub async fn get<E: Entity>(
        &self,
        key: &PrimaryKey,
        read: Read,
    ) -> Result<Option<E>, StoreError> {
        self.get_item(key, read, None)
            .await?
            .map(|item| Ok(model::from_item(item)?))
            .transpose()
    }

    /// Whether an item exists: one GetItem of its key only (eventually consistent).
    pub async fn exists(&self, key: &PrimaryKey) -> Result<bool, StoreError> {
        Ok(self
            .get_item(key, Read::Eventual, Some(&[keys::attr::PK]))
            .await?
            .is_some())
    }

    /// One GetItem, metered; `projection` limits the attributes returned (not the cost, which is
    /// the item's size).
    pub async fn get_item(
        &self,
        key: &PrimaryKey,
        read: Read,
        projection: Option<&[&str]>,
    ) -> Result<Option<Item>, StoreError> {
        let mut p = Placeholders::default();
        let projection = projection.map(|attrs| {
            attrs
                .iter()
                .map(|a| p.name(a))
                .collect::<Vec<_>>()
                .join(", ")
        });
        let projected = projection.is_some();
        let flight = self.meter.flight();
        let out = deadline::bounded(
            self.client
                .get_item()
                .table_name(&self.name)
                .set_key(Some(key_item(key)))
                .consistent_read(read == Read::Strong)
                .set_projection_expression(projection)
                .set_expression_attribute_names(p.names())
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send(),
        )
        .await
        .map_err(from_sdk)?;
        let concurrent = flight.land();
        let found = usize::from(out.item.is_some());
        // A projection does not lower the bill: a recording meter bills the item whole.
        let read_whole = match (self.meter.is_recording(), projected && found == 1) {
            (false, _) => Vec::new(),
            (true, true) => self.whole(&[key_item(key)]).await,
            (true, false) => vec![out.item.clone()],
        };
        self.meter.record(
            Request {
                items: found,
                missed: 1 - found,
                consistent: read == Read::Strong,
                partitions: self.recorded(|| vec![key.pk().to_owned()]),
                read: read_whole,
                concurrent,
                ..Request::new("GetItem")
            },
            out.consumed_capacity.as_slice(),
        );
        Ok(out.item)
    }

    /// Puts an entity's item, on `condition` (a failed one is [`StoreError::ConditionFailed`]).
    pub async fn put<E: Entity>(
        &self,
        entity: &E,
        condition: Option<Condition>,
    ) -> Result<(), StoreError> {
        self.put_item(model::to_item(entity)?, condition).await
    }

    /// Puts an item the model made ([`model::to_item`]), on `condition`.
    pub async fn put_item(
        &self,
        item: Item,
        condition: Option<Condition>,
    ) -> Result<(), StoreError> {
        let keys = self.keys_to_image(|| vec![key_of(&item)]);
        let sent = self.touched.then(|| item.clone());
        let mut p = Placeholders::default();
        let condition = condition.map(|c| c.render(&mut p));
        let request = with_expressions!(
            self.client
                .put_item()
                .table_name(&self.name)
                .set_item(Some(item)),
            condition,
            p
        )
        .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let before = self.images(&keys).await;
        let result = send_single_write!(request);
        let written = result.as_ref().ok().map(|o| o.consumed_capacity.as_ref());
        let refused = condition_refused(&result);
        let touched = match refused {
            true => refused_touched(before, sent),
            false => self.touched(&keys, before, written.is_some()).await,
        };
        self.record_write("PutItem", written, touched, refused);
        result.map(|_| ()).map_err(from_sdk)
    }

    /// Updates an item, on `condition`; returns the item as it is after the update.
    pub async fn update(
        &self,
        key: &PrimaryKey,
        update: &Update,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        let out = self
            .update_item(key, update, condition, false)
            .await
            .map_err(from_sdk)?;
        out.attributes
            .ok_or_else(|| StoreError::Corrupt("UpdateItem returned no attributes".into()))
    }

    /// Updates an item, on `condition`; when the condition fails, the item as it is
    /// (`ReturnValuesOnConditionCheckFailure`: no second request to learn why) instead of an
    /// error.
    pub async fn update_or_current(
        &self,
        key: &PrimaryKey,
        update: &Update,
        condition: Condition,
    ) -> Result<Updated, StoreError> {
        use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
        match self.update_item(key, update, Some(condition), true).await {
            Ok(out) => out
                .attributes
                .map(Updated::Written)
                .ok_or_else(|| StoreError::Corrupt("UpdateItem returned no attributes".into())),
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), UpdateItemError::ConditionalCheckFailedException(_)) =>
            {
                let UpdateItemError::ConditionalCheckFailedException(failed) = e.into_err() else {
                    unreachable!("matched above")
                };
                Ok(Updated::Refused(failed.item))
            }
            Err(e) => Err(from_sdk(e)),
        }
    }

    /// One `UpdateItem`, recorded: the item after it, or (`current_on_failure`) the item as it
    /// is in the failed condition's error.
    async fn update_item(
        &self,
        key: &PrimaryKey,
        update: &Update,
        condition: Option<Condition>,
        current_on_failure: bool,
    ) -> Result<
        aws_sdk_dynamodb::operation::update_item::UpdateItemOutput,
        SdkError<aws_sdk_dynamodb::operation::update_item::UpdateItemError>,
    > {
        use aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure as OnFailure;
        let mut p = Placeholders::default();
        let expression = update.render(&mut p);
        let condition = condition.map(|c| c.render(&mut p));
        let request = with_expressions!(
            self.client
                .update_item()
                .table_name(&self.name)
                .set_key(Some(key_item(key)))
                .update_expression(expression),
            condition,
            p
        )
        .return_values(ReturnValue::AllNew)
        .set_return_values_on_condition_check_failure(
            current_on_failure.then_some(OnFailure::AllOld),
        )
        .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let keys = self.keys_to_image(|| vec![key_item(key)]);
        let before = self.images(&keys).await;
        let result = send_single_write!(request);
        let written = result.as_ref().ok().map(|o| o.consumed_capacity.as_ref());
        let refused = condition_refused(&result);
        let touched = match refused {
            true => refused_touched(before, None),
            false => self.touched(&keys, before, written.is_some()).await,
        };
        self.record_write("UpdateItem", written, touched, refused);
        result
    }

    /// Creates or updates an entity's item with `update` (which must set every attribute its
    /// record requires, and may keep derived ones), and its `Type`. Returns the entity as stored
    /// and whether this call created it (its revision is 1).
    pub async fn upsert<E: Entity>(
        &self,
        key: &PrimaryKey,
        update: Update,
    ) -> Result<(E, bool), StoreError> {
        let update = update
            .set(attr::TYPE, model::s(E::TYPE))
            .add(attr::REVISION, 1);
        let item = self.update(key, &update, None).await?;
        let created = item
            .get(attr::REVISION)
            .and_then(|v| v.as_n().ok())
            .map(String::as_str)
            == Some("1");
        Ok((model::from_item(item)?, created))
    }

    /// Deletes an item, on `condition` (deleting nothing is not an error).
    pub async fn delete(
        &self,
        key: &PrimaryKey,
        condition: Option<Condition>,
    ) -> Result<(), StoreError> {
        let mut p = Placeholders::default();
        let condition = condition.map(|c| c.render(&mut p));
        let request = with_expressions!(
            self.client
                .delete_item()
                .table_name(&self.name)
                .set_key(Some(key_item(key))),
            condition,
            p
        )
        .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let keys = self.keys_to_image(|| vec![key_item(key)]);
        let before = self.images(&keys).await;
        let result = send_single_write!(request);
        let written = result.as_ref().ok().map(|o| o.consumed_capacity.as_ref());
        let refused = condition_refused(&result);
        let touched = match refused {
            true => refused_touched(before, None),
            false => self.touched(&keys, before, written.is_some()).await,
        };
        self.record_write("DeleteItem", written, touched, refused);
        result.map(|_| ()).map_err(from_sdk)
    }

    /// Records a single-item write: `None` if it failed (nothing written; DynamoDB reports no
    /// capacity, though it bills one its condition `refused`), else the capacity DynamoDB
    /// reported for it.
    fn record_write(
        &self,
        operation: &'static str,
        written: Option<Option<&ConsumedCapacity>>,
        touched: Vec<Touched>,
        refused: bool,
    ) {
        let consumed: Vec<ConsumedCapacity> = written.flatten().cloned().into_iter().collect();
        let items = usize::from(written.is_some());
        self.meter.record(
            Request {
                items,
                touched,
                refused,
                ..Request::new(operation)
            },
            &consumed,
        );
    }

    /// The keys `keys` makes, for a [`Table::recording_touched`] to read their items around a
    /// write; none (and nothing made) for any other table.
    pub(crate) fn keys_to_image(&self, keys: impl FnOnce() -> Vec<Item>) -> Vec<Item> {
        if self.touched { keys() } else { Vec::new() }
    }

    /// The images of the items of `keys` as they are now, for a [`Table::recording_touched`]
    /// (`None` for any other): strongly consistent GetItems the meter does not count, read
    /// around a write to bill it as DynamoDB does ([`Touched`]).
    pub(crate) async fn images(&self, keys: &[Item]) -> Option<Vec<Option<Item>>> {
        if !self.touched {
            return None;
        }
        let keys: Vec<_> = keys.iter().map(|key| (None, key)).collect();
        self.images_in(&keys).await
    }

    /// [`Table::images`] of keys each in this table (`None`) or in another of the account's,
    /// named (a transaction's ConditionCheck on another context's table).
    pub(crate) async fn images_in(
        &self,
        keys: &[(Option<&str>, &Item)],
    ) -> Option<Vec<Option<Item>>> {
        if !self.touched {
            return None;
        }
        let mut images = Vec::with_capacity(keys.len());
        for &(table, key) in keys {
            images.push(self.unmetered_in(table.unwrap_or(&self.name), key).await?);
        }
        Some(images)
    }

    /// The items of `keys` whole (`None`: no such item), for a recording meter to bill a read
    /// as DynamoDB does ([`Table::unmetered`]). Nothing for a meter that keeps nothing (no
    /// request sent).
    pub(crate) async fn whole(&self, keys: &[Item]) -> Vec<Option<Item>> {
        let mut items = Vec::with_capacity(keys.len());
        if !self.meter.is_recording() {
            return items;
        }
        for key in keys {
            items.push(self.unmetered(key).await.flatten());
        }
        items
    }

    /// The item of `key` as it is now (`Some(None)`: no such item; `None`: DynamoDB did not
    /// answer): a strongly consistent GetItem the meter does not count.
    async fn unmetered(&self, key: &Item) -> Option<Option<Item>> {
        self.unmetered_in(&self.name, key).await
    }

    /// [`Table::unmetered`] in table `name` (this client's account and Region).
    async fn unmetered_in(&self, name: &str, key: &Item) -> Option<Option<Item>> {
        let out = deadline::bounded(
            self.client
                .get_item()
                .table_name(name)
                .set_key(Some(key.clone()))
                .consistent_read(true)
                .send(),
        )
        .await
        .ok()?;
        Some(out.item)
    }

    /// What a write of the items of `keys` touched, from their images `before` it: read again
    /// now if it `succeeded` (a refused write touched nothing); checks are none of them.
    pub(crate) async fn touched(
        &self,
        keys: &[Item],
        before: Option<Vec<Option<Item>>>,
        succeeded: bool,
    ) -> Vec<Touched> {
        let after = match (&before, succeeded) {
            (Some(_), true) => self.images(keys).await,
            _ => None,
        };
        touched_from(before, after, succeeded)
    }
}

/// What a write touched, from its items' images `before` and `after` it (read by a
/// [`Table::recording_touched`]: none otherwise); nothing if it did not succeed.
pub(crate) fn touched_from(
    before: Option<Vec<Option<Item>>>,
    after: Option<Vec<Option<Item>>>,
    succeeded: bool,
) -> Vec<Touched> {
    let (Some(before), true) = (before, succeeded) else {
        return Vec::new();
    };
    let after = after.unwrap_or_default();
    before
        .into_iter()
        .zip(after)
        .map(|(before, after)| Touched {
            before,
            after,
            checked: false,
        })
        .collect()
}

impl Table {
    /// A Query over a typed key condition; the index is the key space's, or the multi-attribute
    /// index the condition was built for.
    pub fn query<C: query::Selection>(&self, condition: C) -> Query<'_, C> {
        Query::new(self, condition)
    }

    /// A transaction, built part by part and sent at once.
    pub fn transaction(&self) -> Transaction<'_> {
        Transaction::new(self)
    }

    /// Reads up to 100 items in ONE BatchGetItem (asking again for the keys DynamoDB leaves
    /// unprocessed under load, with backoff), projecting `attributes` (whole items if none). Missing items are absent
    /// from the answer; the order is DynamoDB's. Each item is read on its own: a transaction may
    /// commit between two of them (BatchGetItem is not isolated from transactions).
    pub async fn batch_get(
        &self,
        keys: &[PrimaryKey],
        attributes: &[&str],
        read: Read,
    ) -> Result<Vec<Item>, StoreError> {
        let mut p = Placeholders::default();
        let projection = attributes
            .iter()
            .map(|a| p.name(a))
            .collect::<Vec<_>>()
            .join(", ");
        let mut pending: Vec<Item> = keys.iter().map(key_item).collect();
        let mut found = Vec::with_capacity(keys.len());
        for attempt in 1..=BATCH_ATTEMPTS {
            let sent = pending.len();
            let asked = self.recorded(|| pending.iter().map(partition_of).collect());
            let sent_keys: Vec<Item> = self.recorded(|| pending.clone());
            let request = KeysAndAttributes::builder()
                .set_keys(Some(std::mem::take(&mut pending)))
                .set_projection_expression((!projection.is_empty()).then(|| projection.clone()))
                .set_expression_attribute_names(p.names())
                .consistent_read(read == Read::Strong)
                .build()
                .map_err(build_error)?;
            let flight = self.meter.flight();
            let out = deadline::bounded(
                self.client
                    .batch_get_item()
                    .request_items(&self.name, request)
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send(),
            )
            .await
            .map_err(from_sdk)?;
            let concurrent = flight.land();
            let items = out
                .responses
                .and_then(|mut r| r.remove(&self.name))
                .unwrap_or_default();
            pending = out
                .unprocessed_keys
                .and_then(|mut u| u.remove(&self.name))
                .map(|k| k.keys)
                .unwrap_or_default();
            // The keys read (not left unprocessed), whole: what a recording meter bills.
            let read_keys: Vec<Item> = sent_keys
                .into_iter()
                .filter(|k| !pending.contains(k))
                .collect();
            let read_whole = self.whole(&read_keys).await;
            self.meter.record(
                Request {
                    items: items.len(),
                    missed: sent.saturating_sub(items.len() + pending.len()),
                    consistent: read == Read::Strong,
                    partitions: asked,
                    read: read_whole,
                    concurrent,
                    ..Request::new("BatchGetItem")
                },
                out.consumed_capacity.as_deref().unwrap_or_default(),
            );
            found.extend(items);
            if pending.is_empty() {
                return Ok(found);
            }
            retry::sleep(attempt).await;
        }
        Err(StoreError::Throttled(format!(
            "unprocessed keys after {BATCH_ATTEMPTS} attempts"
        )))
    }

    /// Writes up to 25 whole items in ONE BatchWriteItem, sending again what DynamoDB leaves
    /// unprocessed under load, with backoff. No conditions: a bulk load of items the model
    /// made (`make seed SIZE=large`), each replacing any item of its key.
    pub async fn batch_put(&self, items: Vec<Item>) -> Result<(), StoreError> {
        let mut pending: Vec<WriteRequest> = items
            .into_iter()
            .map(|item| {
                Ok(WriteRequest::builder()
                    .put_request(
                        PutRequest::builder()
                            .set_item(Some(item))
                            .build()
                            .map_err(build_error)?,
                    )
                    .build())
            })
            .collect::<Result<_, StoreError>>()?;
        let keys = self.keys_to_image(|| {
            pending
                .iter()
                .filter_map(|w| w.put_request().map(|p| key_of(&p.item)))
                .collect()
        });
        let before = self.images(&keys).await;
        for attempt in 1..=BATCH_ATTEMPTS {
            let sent = pending.len();
            let out = deadline::bounded(
                self.client
                    .batch_write_item()
                    .request_items(&self.name, std::mem::take(&mut pending))
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send(),
            )
            .await
            .map_err(from_sdk)?;
            pending = out
                .unprocessed_items
                .and_then(|mut u| u.remove(&self.name))
                .unwrap_or_default();
            // Each item's images once, with the request that wrote the last of them.
            let touched = if pending.is_empty() {
                self.touched(&keys, before.clone(), true).await
            } else {
                Vec::new()
            };
            self.meter.record(
                Request {
                    items: sent - pending.len(),
                    touched,
                    ..Request::new("BatchWriteItem")
                },
                out.consumed_capacity.as_deref().unwrap_or_default(),
            );
            if pending.is_empty() {
                return Ok(());
            }
            retry::sleep(attempt).await;
        }
        Err(StoreError::Throttled(format!(
            "unprocessed items after {BATCH_ATTEMPTS} attempts"
        )))
    }
}

/// How many times a single-item write is sent while DynamoDB refuses it for a conflict with a
/// concurrent transaction (`TransactionConflictException`, e.g. `PUT /customers` while an order
/// transaction checks the customer). Then it is a [`StoreError::Throttled`]: a 503.
pub const WRITE_ATTEMPTS: u32 = 5;

/// Sends a single-item write's `request` (a fluent builder): bounded by the deadline, never
/// attempted again by the SDK once an attempt timed out ([`deadline::NoRetryOfUnansweredWrite`]),
/// again with the store's backoff while it meets a transaction ([`single_write`]).
macro_rules! send_single_write {
    ($request:expr) => {
        single_write(|| {
            deadline::bounded(
                $request
                    .clone()
                    .customize()
                    .config_override(deadline::single_write_config())
                    .send(),
            )
        })
        .await
    };
}
use send_single_write;

/// Sends a single-item write, again with the store's backoff while it meets a transaction.
async fn single_write<T, E, R, Fut>(send: impl Fn() -> Fut) -> Result<T, SdkError<E, R>>
where
    Fut: std::future::Future<Output = Result<T, SdkError<E, R>>>,
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata,
{
    use aws_sdk_dynamodb::error::ProvideErrorMetadata as _;
    let mut attempt = 1;
    loop {
        let result = send().await;
        match &result {
            Err(e) if e.code() == Some(error::TRANSACTION_CONFLICT) && attempt < WRITE_ATTEMPTS => {
                retry::sleep(attempt).await;
                attempt += 1;
            }
            _ => return result,
        }
    }
}

/// The partition key of a key item, as text.
fn partition_of(key: &Item) -> String {
    match key.get(keys::attr::PK) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(pk)) => pk.clone(),
        _ => String::new(),
    }
}

/// Whether a single-item write was refused by its condition: nothing written, and DynamoDB
/// bills it all the same (`devkit::bill`).
fn condition_refused<O, E: aws_sdk_dynamodb::error::ProvideErrorMetadata>(
    result: &Result<O, SdkError<E>>,
) -> bool {
    matches!(result, Err(SdkError::ServiceError(e))
        if e.err().code() == Some("ConditionalCheckFailedException"))
}

/// What a refused write touched, for a [`Table::recording_touched`]: each item as stored
/// (`before`: its images, `None` for any other table) and as sent (a put's; the item as stored
/// for an update or a delete).
fn refused_touched(before: Option<Vec<Option<Item>>>, sent: Option<Item>) -> Vec<Touched> {
    before
        .unwrap_or_default()
        .into_iter()
        .map(|stored| Touched {
            after: sent.clone().or_else(|| stored.clone()),
            before: stored,
            checked: false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! A warm Lambda serves requests for hours: its table handle must not keep what it sent.
    use super::*;
    use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
    use aws_smithy_mocks::{RuleMode, mock, mock_client};

    #[tokio::test]
    async fn a_production_table_retains_nothing_however_many_requests_it_sends() {
        let rule = mock!(Client::get_item).then_output(|| GetItemOutput::builder().build());
        let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
        let table = Table::new(client.clone(), "t");
        let key = keys::derived::daily_stats(
            keys::Date::parse_iso("2026-01-01").unwrap(),
            keys::Shard::new(0, 1).unwrap(),
        );
        for _ in 0..5_000 {
            table.exists(&key).await.unwrap();
        }
        assert_eq!(rule.num_calls(), 5_000);
        assert_eq!(table.meter().retained(), 0);

        // A recording table (tests) keeps each one, with its cost.
        let recording = Table::new(client, "t").recording();
        for _ in 0..3 {
            recording.exists(&key).await.unwrap();
        }
        assert_eq!(recording.meter().retained(), 3);
        assert_eq!(
            recording.meter().requests()[0].iam_actions(),
            ["dynamodb:GetItem"]
        );
    }

    /// The error as the SDK parses DynamoDB's answer: its code in the metadata.
    fn conflict() -> aws_sdk_dynamodb::operation::update_item::UpdateItemError {
        let meta = aws_sdk_dynamodb::error::ErrorMetadata::builder()
            .code("TransactionConflictException")
            .message("Transaction is ongoing for the item")
            .build();
        aws_sdk_dynamodb::operation::update_item::UpdateItemError::TransactionConflictException(
            aws_sdk_dynamodb::types::error::TransactionConflictException::builder()
                .message("Transaction is ongoing for the item")
                .meta(meta)
                .build(),
        )
    }

    /// DynamoDB refuses a single-item write to an item a transaction holds (DynamoDB Local never
    /// does, hence the mocks): the write is sent again, and a conflict that outlasts the retries
    /// is a 503-worthy `Throttled`, not a 500.
    #[tokio::test]
    async fn a_single_item_write_that_meets_a_transaction_is_retried_then_busy() {
        use aws_sdk_dynamodb::operation::update_item::UpdateItemOutput;
        let key = keys::derived::daily_stats(
            keys::Date::parse_iso("2026-01-01").unwrap(),
            keys::Shard::new(0, 1).unwrap(),
        );
        let update = Update::new().set("Name", model::s("Ann"));

        let rule = mock!(Client::update_item)
            .sequence()
            .error(conflict)
            .times(2)
            .output(|| {
                UpdateItemOutput::builder()
                    .set_attributes(Some(Item::from([("Name".into(), model::s("Ann"))])))
                    .build()
            })
            .build();
        let table = Table::new(mock_client!(aws_sdk_dynamodb, [&rule]), "t");
        table.update(&key, &update, None).await.unwrap();
        assert_eq!(rule.num_calls(), 3, "sent until it went through");

        let rule = mock!(Client::update_item).then_error(conflict);
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]),
            "t",
        );
        let e = table.update(&key, &update, None).await.unwrap_err();
        assert!(matches!(e, StoreError::Throttled(_)), "{e:?}");
        assert_eq!(rule.num_calls(), WRITE_ATTEMPTS as usize);

        // A failed condition is an answer, not a conflict: sent once.
        let rule = mock!(Client::update_item).then_error(|| {
            aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(
                aws_sdk_dynamodb::types::error::ConditionalCheckFailedException::builder()
                    .meta(
                        aws_sdk_dynamodb::error::ErrorMetadata::builder()
                            .code("ConditionalCheckFailedException")
                            .build(),
                    )
                    .build(),
            )
        });
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]),
            "t",
        );
        let e = table.update(&key, &update, None).await.unwrap_err();
        assert!(matches!(e, StoreError::ConditionFailed), "{e:?}");
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn a_batch_put_sends_again_what_dynamodb_left_unprocessed() {
        use aws_sdk_dynamodb::{
            operation::batch_write_item::BatchWriteItemOutput,
            types::{AttributeValue, PutRequest, WriteRequest},
        };
        let item = |pk: &str| {
            Item::from([
                ("PK".to_owned(), AttributeValue::S(pk.into())),
                ("SK".to_owned(), AttributeValue::S("A".into())),
            ])
        };
        let left = WriteRequest::builder()
            .put_request(
                PutRequest::builder()
                    .set_item(Some(item("b")))
                    .build()
                    .unwrap(),
            )
            .build();
        let rule = mock!(Client::batch_write_item)
            .sequence()
            .output(move || {
                BatchWriteItemOutput::builder()
                    .unprocessed_items("t", vec![left.clone()])
                    .build()
            })
            .output(|| BatchWriteItemOutput::builder().build())
            .build();
        let table = Table::new(mock_client!(aws_sdk_dynamodb, [&rule]), "t");
        table.batch_put(vec![item("a"), item("b")]).await.unwrap();
        assert_eq!(rule.num_calls(), 2, "the unprocessed item was sent again");

        let never = mock!(Client::batch_write_item).then_output(move || {
            let left = WriteRequest::builder()
                .put_request(
                    PutRequest::builder()
                        .set_item(Some(item("a")))
                        .build()
                        .unwrap(),
                )
                .build();
            BatchWriteItemOutput::builder()
                .unprocessed_items("t", vec![left])
                .build()
        });
        let table = Table::new(
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&never]),
            "t",
        );
        let e = table.batch_put(vec![item("a")]).await.unwrap_err();
        assert!(matches!(e, StoreError::Throttled(_)), "{e:?}");
        assert_eq!(never.num_calls() as u32, BATCH_ATTEMPTS);
    }
}
