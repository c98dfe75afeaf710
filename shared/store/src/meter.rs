//! Consumed capacity, as DynamoDB reports it, for every request a [`crate::Table`] sends.
//!
//! Every request is logged (operation, units, items). A production table keeps nothing: a warm
//! Lambda serves millions of requests and its memory must not grow with them. A *recording*
//! meter (tests, tools) also keeps each request, so a test can check that an access pattern made
//! one request at the minimum cost, and which IAM actions on which resources it needed, and,
//! for a write, each item it touched as it was before and after ([`Touched`]): what DynamoDB
//! bills a write by, which DynamoDB Local does not report faithfully for transactions.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicUsize, Ordering},
};

use aws_sdk_dynamodb::types::ConsumedCapacity;
use model::Item;

/// One request to DynamoDB and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub operation: &'static str,
    /// The index a Query read; `None` for the table.
    pub index: Option<&'static str>,
    /// Read units charged on the table (an index's units are in `index_read_units`).
    pub read_units: f64,
    pub write_units: f64,
    /// Read units charged on a secondary index.
    pub index_read_units: f64,
    /// Items returned (reads) or written (writes).
    pub items: usize,
    /// Keys a GetItem or BatchGetItem asked for that found no item. DynamoDB charges each of
    /// them its minimum read (a 4 KB item); DynamoDB Local reports a BatchGetItem's as free.
    pub missed: usize,
    /// A strongly consistent read: its minimum charge is a whole unit, not half.
    pub consistent: bool,
    /// For a transaction, the IAM action each kind of its parts needs (`dynamodb:PutItem`,
    /// `dynamodb:DeleteItem`, `dynamodb:UpdateItem`, `dynamodb:ConditionCheckItem`).
    pub parts: Vec<&'static str>,
    /// A write's items, before and after it ([`crate::Table::recording_touched`]'s only).
    pub touched: Vec<Touched>,
    /// The partition keys a read asked for (a multi-attribute index's values joined by `, `);
    /// kept by recording meters only, for the capacity planner's profiles.
    pub partitions: Vec<String>,
    /// What a read read, each item as DynamoDB bills it (whole, whatever the projection), `None`
    /// for a key that found nothing; kept by recording meters only (`devkit::bill`).
    pub read: Vec<Option<Item>>,
    /// A TransactWriteItems DynamoDB answered as a replay of one it had applied (the same
    /// `ClientRequestToken`, after an answer was lost): billed as reads, writing nothing.
    pub replayed: bool,
    /// A read sent while another read of the same table handle awaited its answer (two requests
    /// sent at once, as `tokio::try_join!` sends them): not a round trip of its own. Kept by
    /// recording meters, for reads only (a write counts as its own round trip).
    pub concurrent: bool,
    /// A single-item write its condition refused: nothing written; `touched` (a
    /// [`crate::Table::recording_touched`]'s) holds the item as stored and as sent.
    pub refused: bool,
}

/// One item a successful write touched: as it was before the write and after it (`None`: no
/// such item). Read by a [`crate::Table::recording_touched`] around each write, strongly
/// consistent and unmetered, so a test can bill the write as DynamoDB does, from the items'
/// sizes and the indexes they stand in.
#[derive(Debug, Clone, PartialEq)]
pub struct Touched {
    pub before: Option<Item>,
    pub after: Option<Item>,
    /// A transaction's ConditionCheck: read, not written.
    pub checked: bool,
}

impl Request {
    /// A request of `operation` (`GetItem`, `Query`, ...), nothing charged yet: the fields
    /// below are set by the call that sends it, the units by [`Meter::record`].
    pub fn new(operation: &'static str) -> Request {
        Request {
            operation,
            index: None,
            read_units: 0.0,
            write_units: 0.0,
            index_read_units: 0.0,
            items: 0,
            missed: 0,
            consistent: false,
            parts: Vec::new(),
            touched: Vec::new(),
            partitions: Vec::new(),
            read: Vec::new(),
            replayed: false,
            concurrent: false,
            refused: false,
        }
    }

    /// Units charged in all, on the table and its indexes.
    pub fn capacity_units(&self) -> f64 {
        self.read_units + self.write_units + self.index_read_units
    }

    /// The IAM actions this request needed: its own, or its parts' for a transaction (whose
    /// permission is the parts', on the table).
    pub fn iam_actions(&self) -> Vec<String> {
        if self.operation == "TransactWriteItems" {
            self.parts.iter().map(|a| (*a).to_owned()).collect()
        } else {
            vec![format!("dynamodb:{}", self.operation)]
        }
    }
}

/// The request in the invocation's metrics document ([`telemetry`]).
fn record_metrics(request: &Request, is_write: bool) {
    use telemetry::Metric;
    Metric::DynamoDbRequests.add(1.0);
    let items = request.items as f64;
    if is_write {
        Metric::WriteCapacityUnits.add(request.write_units);
        Metric::ItemsWritten.add(items);
    } else {
        Metric::ReadCapacityUnits.add(request.read_units + request.index_read_units);
        Metric::ItemsRead.add(items);
    }
}

/// Records the requests of a table handle. Clones share the record.
#[derive(Debug, Clone, Default)]
pub struct Meter(Option<Arc<Log>>);

/// A recording meter's requests, and how many of its reads await their answer.
#[derive(Debug, Default)]
struct Log {
    requests: Mutex<Vec<Request>>,
    in_flight: AtomicUsize,
}

/// A read on its way ([`Meter::flight`]), until [`Flight::land`].
pub(crate) struct Flight<'m> {
    in_flight: Option<&'m AtomicUsize>,
    concurrent: bool,
}

impl Flight<'_> {
    /// The read answered: whether another was awaiting its answer when it was sent.
    pub(crate) fn land(self) -> bool {
        self.concurrent
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        if let Some(n) = self.in_flight {
            n.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Meter {
    /// A meter that keeps every request (tests and tools; never a Lambda).
    pub fn recording() -> Meter {
        Meter(Some(Arc::default()))
    }

    /// A read about to be sent: a recording meter notes whether another of its reads is still
    /// awaiting an answer ([`Request::concurrent`]); any other meter, nothing.
    pub(crate) fn flight(&self) -> Flight<'_> {
        let in_flight = self.0.as_ref().map(|log| &log.in_flight);
        let concurrent = in_flight.is_some_and(|n| n.fetch_add(1, Ordering::SeqCst) > 0);
        Flight {
            in_flight,
            concurrent,
        }
    }

    /// Records `request`, charged what DynamoDB reported (`consumed`).
    pub(crate) fn record(&self, mut request: Request, consumed: &[ConsumedCapacity]) {
        let operation = request.operation;
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
        record_metrics(&request, is_write);
        // Debug: one line per request at INFO would cost more in CloudWatch Logs than the request
        // itself at volume. `RUST_LOG=store=debug` shows them.
        tracing::debug!(
            operation,
            index = request.index,
            read_units = request.read_units,
            write_units = request.write_units,
            index_read_units = request.index_read_units,
            items = request.items,
            "dynamodb request"
        );
        if let Some(mut log) = self.0.as_ref().and_then(|l| l.requests.lock().ok()) {
            log.push(request);
        }
    }

    /// Whether this meter keeps the requests it records.
    pub fn is_recording(&self) -> bool {
        self.0.is_some()
    }

    /// The requests recorded so far (none unless the meter is recording).
    pub fn requests(&self) -> Vec<Request> {
        self.0
            .as_ref()
            .and_then(|l| l.requests.lock().ok().map(|l| l.clone()))
            .unwrap_or_default()
    }

    /// The operation of each request recorded so far, in order (`GetItem`, `TransactWriteItems`).
    pub fn operations(&self) -> Vec<&'static str> {
        self.requests().iter().map(|r| r.operation).collect()
    }

    /// How many requests the meter holds: always 0 for a production table.
    pub fn retained(&self) -> usize {
        self.0
            .as_ref()
            .and_then(|l| l.requests.lock().ok().map(|l| l.len()))
            .unwrap_or(0)
    }

    /// Forgets what was recorded (between steps of a test).
    pub fn reset(&self) {
        if let Some(mut log) = self.0.as_ref().and_then(|l| l.requests.lock().ok()) {
            log.clear();
        }
    }
}
