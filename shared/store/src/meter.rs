//! Consumed capacity, as DynamoDB reports it, for every request a [`crate::Table`] sends.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::ConsumedCapacity;

/// One request to DynamoDB and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub operation: &'static str,
    /// Read units charged on the table (an index's units are in `index_read_units`).
    pub read_units: f64,
    pub write_units: f64,
    /// Read units charged on a secondary index.
    pub index_read_units: f64,
    /// Items returned (reads) or written (writes).
    pub items: usize,
    /// For a transaction, the IAM action each kind of its parts needs (`dynamodb:PutItem`,
    /// `dynamodb:DeleteItem`, `dynamodb:UpdateItem`, `dynamodb:ConditionCheckItem`); empty for
    /// other requests, whose action is `dynamodb:<operation>`.
    pub actions: Vec<&'static str>,
}

impl Request {
    /// Units charged in all, on the table and its indexes.
    pub fn capacity_units(&self) -> f64 {
        self.read_units + self.write_units + self.index_read_units
    }
}

/// Records every request of a table handle. Clones share the record.
#[derive(Debug, Clone, Default)]
pub struct Meter(Arc<Mutex<Vec<Request>>>);

impl Meter {
    pub(crate) fn record(
        &self,
        operation: &'static str,
        consumed: &[ConsumedCapacity],
        items: usize,
    ) {
        self.record_with_actions(operation, consumed, items, Vec::new());
    }

    pub(crate) fn record_with_actions(
        &self,
        operation: &'static str,
        consumed: &[ConsumedCapacity],
        items: usize,
        actions: Vec<&'static str>,
    ) {
        let mut request = Request {
            operation,
            read_units: 0.0,
            write_units: 0.0,
            index_read_units: 0.0,
            items,
            actions,
        };
        let is_write = matches!(
            operation,
            "PutItem" | "UpdateItem" | "DeleteItem" | "TransactWriteItems" | "BatchWriteItem"
        );
        for c in consumed {
            let total = c.capacity_units().unwrap_or(0.0);
            if is_write {
                // Writes to an index are part of the write's cost.
                request.write_units += total;
                continue;
            }
            let index_units: f64 = c
                .global_secondary_indexes()
                .map(|m| m.values().filter_map(|i| i.capacity_units()).sum())
                .unwrap_or(0.0);
            request.index_read_units += index_units;
            request.read_units += c
                .table()
                .and_then(|t| t.capacity_units())
                .unwrap_or(total - index_units);
        }
        tracing::info!(
            operation,
            read_units = request.read_units,
            write_units = request.write_units,
            index_read_units = request.index_read_units,
            items,
            "dynamodb request"
        );
        if let Ok(mut log) = self.0.lock() {
            log.push(request);
        }
    }

    /// The requests recorded so far.
    pub fn requests(&self) -> Vec<Request> {
        self.0.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Forgets what was recorded (between steps of a test).
    pub fn reset(&self) {
        if let Ok(mut log) = self.0.lock() {
            log.clear();
        }
    }
}
