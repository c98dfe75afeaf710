//! Commerce records and the requests behind C1–C7.
//!
//! Record types hold the non-key attributes of an item (PascalCase, like the seeds' items); keys
//! and `Type` come from the `keys` crate when an item is written and are ignored when it is read.

use aws_sdk_dynamodb::types::{
    ConditionCheck, ReturnConsumedCapacity, ReturnValue, TransactWriteItem,
};
use keys::{
    Id, attr,
    commerce::{self as k, EventId, OrderId, OrderStatus, types},
};
use serde::{Deserialize, Serialize};

use crate::{
    StoreError, Table,
    error::from_sdk,
    item::{Item, created_by_this_call, item_of, key_map, n, record_of, s, type_of, with_index},
    txn,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Customer {
    pub customer_id: String,
    pub name: String,
    pub email: String,
    pub created_at: String,
    pub updated_at: String,
    /// Derived by the stream pipeline from the customer's orders.
    #[serde(default)]
    pub order_count: u64,
    /// Derived: sum of order totals, in cents.
    #[serde(default)]
    pub lifetime_value: i64,
}

/// An order as its customer's collection and its own header item both hold it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct OrderSummary {
    pub order_id: String,
    pub customer_id: String,
    pub status: String,
    pub created_at: String,
    /// Sum of quantity × unit price, in cents.
    pub total: i64,
    pub item_count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct OrderLine {
    pub order_id: String,
    pub sku: u64,
    pub quantity: u32,
    /// In cents.
    pub unit_price: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TrackingEvent {
    pub order_id: String,
    pub event_id: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CartLine {
    pub cart_id: String,
    pub product_id: String,
    pub quantity: u32,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct IdempotencyRecord {
    customer_id: String,
    order_id: String,
    request_hash: String,
    response: String,
    expires_at: i64,
}

/// A page of a paginated query.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// DynamoDB's `LastEvaluatedKey`: more items may follow.
    pub last_key: Option<Item>,
}

fn query_error(e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

// ---------------------------------------------------------------------------------------------
// C2: create or update a customer

/// Creates the customer or updates its name and email, keeping the derived attributes.
/// Returns the customer as stored and whether it was created by this call.
pub async fn put_customer(
    table: &Table,
    customer: &Id,
    name: &str,
    email: &str,
    now: &str,
) -> Result<(Customer, bool), StoreError> {
    let out = table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key_map(&k::customer(customer))))
        .update_expression(
            "SET #type = :type, CustomerId = :id, #name = :name, Email = :email, \
             UpdatedAt = :now, CreatedAt = if_not_exists(CreatedAt, :now) ADD Version :one",
        )
        .expression_attribute_names("#type", attr::TYPE)
        .expression_attribute_names("#name", "Name")
        .expression_attribute_values(":type", s(types::CUSTOMER))
        .expression_attribute_values(":id", s(customer.as_str()))
        .expression_attribute_values(":name", s(name))
        .expression_attribute_values(":email", s(email))
        .expression_attribute_values(":now", s(now))
        .expression_attribute_values(":one", n(1))
        .return_values(ReturnValue::AllNew)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    table
        .meter()
        .record("UpdateItem", out.consumed_capacity.as_slice(), 1);
    let item = out
        .attributes
        .ok_or_else(|| StoreError::Corrupt("UpdateItem returned no attributes".into()))?;
    let created = created_by_this_call(&item);
    Ok((record_of(item)?, created))
}

// ---------------------------------------------------------------------------------------------
// C1: a customer and their newest N orders

/// The customer and its `newest` most recent order summaries, newest first, in one query:
/// the collection read backwards from the `A` record (seed 000), `Limit = newest + 1`.
/// `None` when the customer does not exist.
pub async fn customer_with_orders(
    table: &Table,
    customer: &Id,
    newest: u32,
) -> Result<Option<(Customer, Vec<OrderSummary>)>, StoreError> {
    let pk = k::customer_pk(customer);
    let out = table
        .client()
        .query()
        .table_name(table.name())
        // Bounded on both sides so the read starts at the A record and meets only orders.
        .key_condition_expression("PK = :pk AND SK BETWEEN :orders AND :a")
        .expression_attribute_values(":pk", s(pk))
        .expression_attribute_values(":orders", s(k::ORDER_SUMMARY_PREFIX))
        .expression_attribute_values(":a", s(k::A_RECORD))
        .scan_index_forward(false)
        .limit(newest as i32 + 1)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    let items = out.items.unwrap_or_default();
    table
        .meter()
        .record("Query", out.consumed_capacity.as_slice(), items.len());
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return Ok(None);
    };
    if type_of(&first) != Some(types::CUSTOMER) {
        // Orders exist only with their customer (C3 checks it in the same transaction), so a
        // collection without its A record has no customer.
        return Ok(None);
    }
    let customer: Customer = record_of(first)?;
    let orders = items
        .map(|item| match type_of(&item) {
            Some(types::ORDER_SUMMARY) => record_of(item),
            other => Err(query_error(format!(
                "unexpected {other:?} in a customer collection"
            ))),
        })
        .collect::<Result<_, _>>()?;
    Ok(Some((customer, orders)))
}

/// Whether the customer exists: one (eventually consistent) GetItem of its key only.
pub async fn customer_exists(table: &Table, customer: &Id) -> Result<bool, StoreError> {
    let item = table
        .get_item(&k::customer(customer), false, Some("PK"))
        .await?;
    Ok(item.is_some())
}

// ---------------------------------------------------------------------------------------------
// C3: place an order

/// A new order as the handler validated it.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub customer: Id,
    pub order_id: OrderId,
    pub created_at: String,
    /// (sku, quantity, unit price in cents); SKUs distinct.
    pub lines: Vec<(u64, u32, i64)>,
}

impl NewOrder {
    pub fn total(&self) -> i64 {
        self.lines.iter().map(|(_, q, p)| i64::from(*q) * p).sum()
    }

    pub fn summary(&self) -> OrderSummary {
        OrderSummary {
            order_id: self.order_id.to_string(),
            customer_id: self.customer.to_string(),
            status: OrderStatus::Open.to_string(),
            created_at: self.created_at.clone(),
            total: self.total(),
            item_count: self.lines.len() as u64,
        }
    }
}

/// A client retry's key and what the first attempt answered.
#[derive(Debug, Clone)]
pub struct Idempotency {
    pub key: Id,
    /// A digest of the request body: the same key with another body is refused.
    pub request_hash: String,
    /// The response body to replay on a retry.
    pub response: String,
    pub expires_at: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PlaceOutcome {
    Placed,
    CustomerNotFound,
    /// The idempotency key was used before: the first attempt's response, and whether its
    /// request was the same as this one.
    Replayed {
        response: String,
        same_request: bool,
    },
}

/// Places an order in one transaction:
/// 1. the customer must exist (ConditionCheck on its A record);
/// 2. the idempotency record, if a key was given, must not exist yet;
/// 3. the summary in the customer's collection, the header and the lines in the order's own.
///
/// A cancellation caused only by conflicting concurrent transactions is retried with backoff;
/// a used idempotency key is answered with the first attempt's response.
pub async fn place_order(
    table: &Table,
    order: &NewOrder,
    idempotency: Option<&Idempotency>,
) -> Result<PlaceOutcome, StoreError> {
    let summary = order.summary();
    let mut actions = vec![
        TransactWriteItem::builder()
            .condition_check(
                ConditionCheck::builder()
                    .table_name(table.name())
                    .set_key(Some(key_map(&k::customer(&order.customer))))
                    .condition_expression("attribute_exists(PK)")
                    .build()
                    .map_err(query_error)?,
            )
            .build(),
    ];
    if let Some(idem) = idempotency {
        let record = IdempotencyRecord {
            customer_id: order.customer.to_string(),
            order_id: order.order_id.to_string(),
            request_hash: idem.request_hash.clone(),
            response: idem.response.clone(),
            expires_at: idem.expires_at,
        };
        actions.push(txn::put(
            table,
            item_of(
                &k::idempotency(&order.customer, &idem.key),
                types::IDEMPOTENCY,
                &record,
            )?,
            "attribute_not_exists(PK)",
        )?);
    }
    actions.push(txn::put(
        table,
        item_of(
            &k::order_summary(&order.customer, order.order_id),
            types::ORDER_SUMMARY,
            &summary,
        )?,
        "attribute_not_exists(PK)",
    )?);
    actions.push(txn::put(
        table,
        with_index(
            item_of(
                &k::order_header(order.order_id),
                types::ORDER_HEADER,
                &summary,
            )?,
            attr::GSI2PK,
            attr::GSI2SK,
            &k::order_status_index(order.order_id, OrderStatus::Open),
        ),
        "attribute_not_exists(PK)",
    )?);
    for (sku, quantity, unit_price) in &order.lines {
        let line = OrderLine {
            order_id: order.order_id.to_string(),
            sku: *sku,
            quantity: *quantity,
            unit_price: *unit_price,
        };
        actions.push(txn::put(
            table,
            with_index(
                item_of(
                    &k::order_line(order.order_id, *sku)?,
                    types::ORDER_LINE,
                    &line,
                )?,
                attr::GSI1PK,
                attr::GSI1SK,
                &k::order_line_product_index(order.order_id, *sku)?,
            ),
            "attribute_not_exists(PK)",
        )?);
    }
    let written = actions.len();

    match txn::transact(table, actions, written).await {
        Ok(()) => Ok(PlaceOutcome::Placed),
        Err(e) if e.cancellation_reason(0) == Some("ConditionalCheckFailed") => {
            Ok(PlaceOutcome::CustomerNotFound)
        }
        Err(e)
            if idempotency.is_some()
                && e.cancellation_reason(1) == Some("ConditionalCheckFailed") =>
        {
            let idem = idempotency.expect("checked above");
            let record = read_idempotency(table, &order.customer, &idem.key)
                .await?
                .ok_or_else(|| StoreError::Corrupt("idempotency record vanished".into()))?;
            Ok(PlaceOutcome::Replayed {
                same_request: record.request_hash == idem.request_hash,
                response: record.response,
            })
        }
        Err(e) => Err(e),
    }
}

async fn read_idempotency(
    table: &Table,
    customer: &Id,
    key: &Id,
) -> Result<Option<IdempotencyRecord>, StoreError> {
    table
        .get_item(&k::idempotency(customer, key), true, None)
        .await?
        .map(record_of)
        .transpose()
}

// ---------------------------------------------------------------------------------------------
// C4: a customer's orders in a date range

/// One page of the customer's orders placed on `from..=to`, newest first.
pub async fn orders_in_range(
    table: &Table,
    customer: &Id,
    from: keys::Date,
    to: keys::Date,
    limit: u32,
    start: Option<Item>,
) -> Result<Page<OrderSummary>, StoreError> {
    let (lo, hi) = k::order_summary_range(from, to)?;
    let out = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :pk AND SK BETWEEN :lo AND :hi")
        .expression_attribute_values(":pk", s(k::customer_pk(customer)))
        .expression_attribute_values(":lo", s(lo))
        .expression_attribute_values(":hi", s(hi))
        .scan_index_forward(false)
        .limit(limit as i32)
        .set_exclusive_start_key(start)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    let items = out.items.unwrap_or_default();
    table
        .meter()
        .record("Query", out.consumed_capacity.as_slice(), items.len());
    Ok(Page {
        items: items.into_iter().map(record_of).collect::<Result<_, _>>()?,
        last_key: out.last_evaluated_key,
    })
}

// ---------------------------------------------------------------------------------------------
// C5: an order's tracking page

#[derive(Debug, Clone, PartialEq)]
pub struct OrderPage {
    pub order: OrderSummary,
    pub lines: Vec<OrderLine>,
    /// Oldest first.
    pub events: Vec<TrackingEvent>,
}

/// The whole order collection (header, line items, tracking events) in one query.
pub async fn order_page(table: &Table, order: OrderId) -> Result<Option<OrderPage>, StoreError> {
    let out = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s(k::order_pk(order)))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    let items = out.items.unwrap_or_default();
    table
        .meter()
        .record("Query", out.consumed_capacity.as_slice(), items.len());
    let (mut header, mut lines, mut events) = (None, Vec::new(), Vec::new());
    for item in items {
        match type_of(&item) {
            Some(types::ORDER_HEADER) => header = Some(record_of(item)?),
            Some(types::ORDER_LINE) => lines.push(record_of(item)?),
            Some(types::TRACKING_EVENT) => events.push(record_of(item)?),
            other => {
                return Err(query_error(format!(
                    "unexpected {other:?} in an order collection"
                )));
            }
        }
    }
    Ok(header.map(|order| OrderPage {
        order,
        lines,
        events,
    }))
}

// ---------------------------------------------------------------------------------------------
// C6: append a tracking event

/// Appends a tracking event to an existing order; `false` when the order does not exist.
pub async fn add_tracking_event(
    table: &Table,
    order: OrderId,
    event: EventId,
    record: &TrackingEvent,
) -> Result<bool, StoreError> {
    let actions = vec![
        TransactWriteItem::builder()
            .condition_check(
                ConditionCheck::builder()
                    .table_name(table.name())
                    .set_key(Some(key_map(&k::order_header(order))))
                    .condition_expression("attribute_exists(PK)")
                    .build()
                    .map_err(query_error)?,
            )
            .build(),
        txn::put(
            table,
            item_of(
                &k::tracking_event(order, event),
                types::TRACKING_EVENT,
                record,
            )?,
            "attribute_not_exists(PK)",
        )?,
    ];
    match txn::transact(table, actions, 1).await {
        Ok(()) => Ok(true),
        Err(e) if e.cancellation_reason(0) == Some("ConditionalCheckFailed") => Ok(false),
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------------
// Derived: an order's current status, from its newest tracking event

/// Sets the order's status on its header (and GSI2 key) and on its summary in the customer's
/// collection, unless a newer event was applied already: each write is conditioned on
/// `LastEventId <= event`, so events applied out of order, twice, or after a crash between the two
/// writes all end with the newest event's status. Returns false when a newer event (or no order)
/// was found.
pub async fn apply_order_status(
    table: &Table,
    order: OrderId,
    event: EventId,
    status: OrderStatus,
) -> Result<bool, StoreError> {
    let condition =
        "attribute_exists(PK) AND (attribute_not_exists(LastEventId) OR LastEventId <= :event)";
    let header = table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key_map(&k::order_header(order))))
        .update_expression("SET #status = :status, LastEventId = :event, GSI2SK = :gsi2sk")
        .condition_expression(condition)
        .expression_attribute_names("#status", "Status")
        .expression_attribute_values(":status", s(status.as_str()))
        .expression_attribute_values(":event", s(event.to_string()))
        .expression_attribute_values(":gsi2sk", s(k::order_status_index(order, status).sk))
        .return_values(ReturnValue::AllNew)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await;
    let header = match header {
        Ok(out) => {
            table
                .meter()
                .record("UpdateItem", out.consumed_capacity.as_slice(), 1);
            out.attributes.unwrap_or_default()
        }
        Err(e) => {
            table.meter().record("UpdateItem", &[], 0);
            return match from_sdk(e) {
                StoreError::ConditionFailed => Ok(false),
                other => Err(other),
            };
        }
    };
    let customer = crate::item::get_s(&header, "CustomerId")
        .ok_or_else(|| StoreError::Corrupt(format!("order header {order} has no CustomerId")))
        .and_then(|c| Ok(Id::parse("customerId", c)?))?;
    let summary = table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key_map(&k::order_summary(&customer, order))))
        .update_expression("SET #status = :status, LastEventId = :event")
        .condition_expression(condition)
        .expression_attribute_names("#status", "Status")
        .expression_attribute_values(":status", s(status.as_str()))
        .expression_attribute_values(":event", s(event.to_string()))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await;
    match summary {
        Ok(out) => {
            table
                .meter()
                .record("UpdateItem", out.consumed_capacity.as_slice(), 1);
            Ok(true)
        }
        Err(e) => {
            table.meter().record("UpdateItem", &[], 0);
            match from_sdk(e) {
                StoreError::ConditionFailed => Ok(false),
                other => Err(other),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// C7: shopping cart

/// Sets one line of a cart: one small item per product, so changing a line costs one small write
/// however big the cart (seed 004).
pub async fn put_cart_line(
    table: &Table,
    cart: &Id,
    product: &Id,
    line: &CartLine,
) -> Result<(), StoreError> {
    let out = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(item_of(
            &k::cart_line(cart, product),
            types::CART_LINE,
            line,
        )?))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    table
        .meter()
        .record("PutItem", out.consumed_capacity.as_slice(), 1);
    Ok(())
}

/// Removes one line of a cart (nothing to do if it is not there).
pub async fn delete_cart_line(table: &Table, cart: &Id, product: &Id) -> Result<(), StoreError> {
    let out = table
        .client()
        .delete_item()
        .table_name(table.name())
        .set_key(Some(key_map(&k::cart_line(cart, product))))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    table
        .meter()
        .record("DeleteItem", out.consumed_capacity.as_slice(), 1);
    Ok(())
}

/// Every line of a cart, by product id, in one query.
pub async fn cart_lines(table: &Table, cart: &Id) -> Result<Vec<CartLine>, StoreError> {
    let out = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :pk AND begins_with(SK, :lines)")
        .expression_attribute_values(":pk", s(k::cart_pk(cart)))
        .expression_attribute_values(":lines", s(k::CART_LINE_PREFIX))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(from_sdk)?;
    let items = out.items.unwrap_or_default();
    table
        .meter()
        .record("Query", out.consumed_capacity.as_slice(), items.len());
    items.into_iter().map(record_of).collect()
}

#[cfg(test)]
mod tests {
    //! DynamoDB Local never raises TransactionConflict, so the retry path is tested with the SDK's
    //! own mocking (aws-smithy-mocks): the client below answers from rules, not from a database.
    use super::*;
    use aws_sdk_dynamodb::{Client, operation::transact_write_items::TransactWriteItemsOutput};
    use aws_smithy_mocks::{mock, mock_client};

    use crate::txn::cancelled;

    fn order() -> NewOrder {
        NewOrder {
            customer: Id::parse("c", "1").unwrap(),
            order_id: keys::SortableId::new(),
            created_at: "2020-01-01T00:00:00.000Z".into(),
            lines: vec![(1, 1, 1)],
        }
    }

    #[tokio::test]
    async fn a_transaction_cancelled_by_conflicts_is_retried_until_it_goes_through() {
        let conflict = ["None", "None", "TransactionConflict", "None"];
        let rule = mock!(Client::transact_write_items)
            .sequence()
            .error(move || cancelled(&conflict))
            .times(2)
            .output(|| TransactWriteItemsOutput::builder().build())
            .build();
        let table = Table::new(mock_client!(aws_sdk_dynamodb, [&rule]), "t");
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::Placed
        );
        assert_eq!(rule.num_calls(), 3);
    }

    #[tokio::test]
    async fn persistent_conflict_is_a_busy_answer_and_a_failed_condition_is_not_retried() {
        let rule = mock!(Client::transact_write_items)
            .then_error(|| cancelled(&["None", "TransactionConflict", "None", "None"]));
        let table = Table::new(
            mock_client!(
                aws_sdk_dynamodb,
                aws_smithy_mocks::RuleMode::MatchAny,
                [&rule]
            ),
            "t",
        );
        assert!(matches!(
            place_order(&table, &order(), None).await,
            Err(StoreError::Throttled(_))
        ));
        assert_eq!(rule.num_calls(), txn::TRANSACTION_ATTEMPTS as usize);

        let rule = mock!(Client::transact_write_items)
            .then_error(|| cancelled(&["ConditionalCheckFailed", "None", "None", "None"]));
        let table = Table::new(mock_client!(aws_sdk_dynamodb, [&rule]), "t");
        assert_eq!(
            place_order(&table, &order(), None).await.unwrap(),
            PlaceOutcome::CustomerNotFound
        );
        assert_eq!(rule.num_calls(), 1);
    }
}
