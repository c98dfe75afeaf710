//! `make reconcile`: recomputes every derived item and sharded counter from the source items and
//! reports where the stored values differ (the drift): customers' and products' counters, daily
//! stats, books and users, order statuses and the status keys that list them (GSI1, GSI2; a
//! header's GSI2 partition is the shard it records), products' total inventories, account reps'
//! quarterly totals and their ranking keys. Zero is the expected answer: the stream
//! handlers are exact. A maintenance command, not an access pattern: it reads the whole table.
//!
//! **Bounded memory**: the table is read by a parallel, segmented Scan ([`Scan`]) whose pages are
//! folded into one [`Tally`] as they arrive, so what is held is the derived values (and, per
//! order, its status and customer), never the items. The lines of cancelled and returned orders,
//! which leave their products' sums, are read back by one Query per such order after the scan, as
//! the stream handler reads them.
//!
//! **Repair under live traffic** ([`repair`]): a correction is written only for drift that held
//! still across two reads separated by a settle time longer than the stream consumers' lag,
//! whose items the stream did not write in between (their marks say when a consumer last wrote
//! them: `store::aggregate::last_marked`), and it is written in one transaction conditioned on
//! every item holding the value (every shard of a sharded counter) being as read. See
//! docs/operations.md for why that cannot count a record in flight twice.
//!
//! Each context recomputes and corrects its own derived values ([`commerce`], [`reviews`]); the
//! daily stats, which orders and reviews both feed, are [`derived`]'s. Learning and HR keep no
//! derived sums; HR's one copy (an employee's name on its edges) is checked and corrected by
//! [`crate::copies`], and the caps' counters (a cart's `LineCount`, an order's `EventCount`) by
//! [`crate::counts`]. This module holds what they share: the scan, the comparison, the repair
//! loop and the conditional writes a correction is made of.

mod commerce;
mod derived;
pub mod lag;
mod reviews;
pub mod values;

use std::{
    collections::{BTreeMap, BTreeSet},
    io::Write,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use futures::StreamExt;
use keys::{PrimaryKey, attr as key_attr};
use model::{Item, commerce::Order};
use store::{Condition, StoreError, Table, Update, aws_sdk_dynamodb::types::AttributeValue};

pub use values::Values;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Report {
    /// Derived values checked.
    pub checked: usize,
    /// (name, expected, stored) for every value that differs.
    pub drift: Vec<(String, String, String)>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "checked {} derived values, {} drifted",
            self.checked,
            self.drift.len()
        )?;
        for (name, expected, stored) in &self.drift {
            writeln!(f, "  {name}: expected {expected}, stored {stored}")?;
        }
        Ok(())
    }
}

fn s<'a>(item: &'a Item, attr: &str) -> &'a str {
    item.get(attr)
        .and_then(|v| v.as_s().ok())
        .map_or("", String::as_str)
}

fn n(item: &Item, attr: &str) -> i64 {
    item.get(attr)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The `YYYY-MM-DD` of a timestamp attribute.
fn day(item: &Item, attr: &str) -> String {
    s(item, attr).get(..10).unwrap_or("").to_owned()
}

fn add(map: &mut BTreeMap<String, i64>, name: String, v: i64) {
    *map.entry(name).or_default() += v;
}

/// How reconcile reads the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    /// Parallel Scan segments (DynamoDB's `TotalSegments`).
    pub segments: u32,
    /// Items scanned so far, on stderr (at most once a second).
    pub progress: bool,
}

impl Default for Scan {
    fn default() -> Self {
        Scan {
            segments: 8,
            progress: false,
        }
    }
}

/// One item holding (a share of) a derived value, as read.
#[derive(Debug, Clone, PartialEq)]
struct Holder {
    /// The item's key as [`target_name`] names it.
    target: String,
    /// Its shard (0 for a value one item holds).
    shard: u32,
    /// The value's attribute as read (`None`: absent).
    raw: Option<AttributeValue>,
}

/// The name of the item `pk`, `sk` in a tally (`<PK>#<SK>`, each escaped: one name, one item).
fn target_name(pk: &str, sk: &str) -> String {
    format!("{}#{}", keys::escape(pk), keys::escape(sk))
}

/// What a pass learns, folded in as pages arrive: expected and stored values (sums as numbers,
/// statuses and keys as text), the items holding each stored value, the orders' state, and which
/// targets the stream wrote since a given time.
#[derive(Default)]
struct Tally {
    expected: BTreeMap<String, i64>,
    stored: BTreeMap<String, i64>,
    expected_text: Values,
    stored_text: Values,
    held: BTreeMap<String, Vec<Holder>>,
    orders: commerce::Orders,
    /// Items a consumer marked at or after this (epoch seconds, the consumers' clock) were
    /// written during the repair ([`Window`]).
    moved_since: Option<i64>,
    /// Those items, each with its newest mark's time.
    moved: BTreeMap<String, i64>,
    items: u64,
    copies: crate::copies::Copies,
    counts: crate::counts::Counts,
}

impl Tally {
    /// Takes in one item of the scan.
    fn read(&mut self, item: &Item) {
        self.items += 1;
        self.copies.read(item);
        self.counts.read(item);
        commerce::read(self, item);
        reviews::read(self, item);
        derived::read(self, item);
        // A consumer's mark, never a correction's (corrections leave none): a correction that
        // landed between the two reads changed the items it wrote, which the reads compare.
        let marked = match store::aggregate::aside_mark(item) {
            // A ranked target's mark, kept aside: its key names the target.
            Some((target, at)) => Some((target, at)),
            None => store::aggregate::last_marked(item).map(|at| {
                let name = target_name(s(item, key_attr::PK), s(item, key_attr::SK));
                (name, at)
            }),
        };
        if let Some(since) = self.moved_since
            && let Some((name, at)) = marked
            && at >= since
        {
            let newest = self.moved.entry(name).or_insert(at);
            *newest = (*newest).max(at);
        }
    }

    /// Records that `item` holds the value `name` in `attr`, as shard `shard`.
    fn hold(&mut self, name: String, item: &Item, attr: &str, shard: u32) {
        let target = target_name(s(item, key_attr::PK), s(item, key_attr::SK));
        self.held.entry(name).or_default().push(Holder {
            target,
            shard,
            raw: item.get(attr).cloned(),
        });
    }
}

/// The outcome of one read of the whole table.
struct Pass {
    expected: Values,
    stored: Values,
    held: BTreeMap<String, Vec<Holder>>,
    moved: BTreeMap<String, i64>,
    orders: commerce::Found,
}

impl Pass {
    /// Once every item is read, and the lines of orders that are no sale fetched.
    fn finish(mut tally: Tally, not_sold_lines: Vec<Item>) -> Pass {
        let orders = std::mem::take(&mut tally.orders);
        let found = orders.finish(&mut tally, &not_sold_lines);
        let text = |m: BTreeMap<String, i64>| {
            m.into_iter()
                .map(|(k, v)| (k, v.to_string()))
                .collect::<Values>()
        };
        let mut expected = text(tally.expected);
        let mut stored = text(tally.stored);
        expected.extend(tally.expected_text);
        stored.extend(tally.stored_text);
        for (e, s) in [tally.copies.finish(), tally.counts.finish()] {
            expected.extend(e);
            stored.extend(s);
        }
        Pass {
            expected,
            stored,
            held: tally.held,
            moved: tally.moved,
            orders: found,
        }
    }

    fn report(&self) -> Report {
        compare(&self.expected, &self.stored)
    }
}

/// Expected and stored values of `items`, as a pass over a table holding them finds them.
#[cfg(test)]
fn recompute(items: &[Item]) -> (Values, Values) {
    let mut tally = Tally::default();
    for item in items {
        tally.read(item);
    }
    let lines = commerce::lines_of(items, &tally.orders);
    let pass = Pass::finish(tally, lines);
    (pass.expected, pass.stored)
}

/// Items scanned, told on stderr at most once a second.
struct Progress {
    on: bool,
    items: AtomicU64,
    segments_done: AtomicU64,
    segments: u32,
    told: Mutex<Instant>,
}

impl Progress {
    fn new(scan: &Scan) -> Progress {
        Progress {
            on: scan.progress,
            items: AtomicU64::new(0),
            segments_done: AtomicU64::new(0),
            segments: scan.segments,
            told: Mutex::new(Instant::now()),
        }
    }

    fn tell(&self, items: usize, segment_done: bool) {
        let total = self.items.fetch_add(items as u64, Ordering::Relaxed) + items as u64;
        let done = self
            .segments_done
            .fetch_add(u64::from(segment_done), Ordering::Relaxed)
            + u64::from(segment_done);
        if !self.on {
            return;
        }
        let mut told = self.told.lock().unwrap_or_else(|e| e.into_inner());
        if told.elapsed() >= Duration::from_secs(1) || done == u64::from(self.segments) {
            *told = Instant::now();
            eprint!(
                "\rreconcile: {total} items scanned, {done} of {} segments done",
                self.segments
            );
            let _ = std::io::stderr().flush();
            if done == u64::from(self.segments) {
                eprintln!();
            }
        }
    }
}

/// Reads the whole table once: `scan.segments` segments in parallel, each page folded into the
/// tally as it arrives.
async fn pass(
    table: &Table,
    scan: &Scan,
    moved_since: Option<i64>,
    clock: &Arc<TableClock>,
) -> Result<Pass, StoreError> {
    let tally = Mutex::new(Tally {
        moved_since,
        ..Tally::default()
    });
    let progress = Progress::new(scan);
    let segments = (0..scan.segments.max(1)).map(|segment| {
        scan_segment(
            table,
            segment,
            scan.segments.max(1),
            &tally,
            &progress,
            clock,
        )
    });
    futures::future::try_join_all(segments).await?;
    let tally = tally.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut lines = Vec::new();
    for order in tally.orders.not_sold() {
        lines.extend(
            table
                .query(keys::commerce::order_lines(order))
                .send_all()
                .await?
                .items,
        );
    }
    Ok(Pass::finish(tally, lines))
}

async fn scan_segment(
    table: &Table,
    segment: u32,
    segments: u32,
    tally: &Mutex<Tally>,
    progress: &Progress,
    clock: &Arc<TableClock>,
) -> Result<(), StoreError> {
    let as_i32 = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    let mut start = None;
    loop {
        let out = table
            .client()
            .scan()
            .table_name(table.name())
            .consistent_read(true)
            .segment(as_i32(segment))
            .total_segments(as_i32(segments))
            .set_exclusive_start_key(start)
            .customize()
            .interceptor(DateReader(clock.clone()))
            .send()
            .await
            .map_err(|e| {
                StoreError::Dynamo(
                    store::aws_sdk_dynamodb::error::DisplayErrorContext(e).to_string(),
                )
            })?;
        let items = out.items.unwrap_or_default();
        {
            let mut tally = tally.lock().unwrap_or_else(|e| e.into_inner());
            for item in &items {
                tally.read(item);
            }
        }
        start = out.last_evaluated_key;
        progress.tell(items.len(), start.is_none());
        if start.is_none() {
            return Ok(());
        }
    }
}

/// Compares expected and stored values; a value missing on one side counts as 0.
pub fn compare(expected: &Values, stored: &Values) -> Report {
    let mut names: Vec<&String> = expected.keys().chain(stored.keys()).collect();
    names.sort();
    names.dedup();
    let zero = "0".to_owned();
    let mut report = Report {
        checked: names.len(),
        drift: Vec::new(),
    };
    for name in names {
        let e = expected.get(name).unwrap_or(&zero);
        let s = stored.get(name).unwrap_or(&zero);
        if e != s {
            report.drift.push((name.clone(), e.clone(), s.clone()));
        }
    }
    report
}

/// Reads the table (a [`Scan::default`]) and reports the drift.
pub async fn run(table: &Table) -> Result<Report, StoreError> {
    scan_report(table, &Scan::default()).await
}

/// Reads the table as `scan` says and reports the drift.
pub async fn scan_report(table: &Table, scan: &Scan) -> Result<Report, StoreError> {
    let clock = Arc::default();
    Ok(pass(table, scan, None, &clock).await?.report())
}

/// What a repair did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Repaired {
    /// Corrections written.
    pub written: usize,
    /// Drifted values left for a later run, and why: they moved while the repair read them.
    pub deferred: Vec<String>,
    /// Drifted values no correction could be written for, and why.
    pub failed: Vec<String>,
    /// Order summaries whose status was corrected: their sums move when the stream applies
    /// that write (a second repair derives them where no stream runs).
    pub statuses: usize,
    /// What the stream consumers had applied when the second read began.
    pub consumers: Option<String>,
}

impl std::fmt::Display for Repaired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "repaired {}, deferred {} (moving while it read them: each says why), failed {}",
            self.written,
            self.deferred.len(),
            self.failed.len()
        )?;
        for why in self.deferred.iter().chain(&self.failed) {
            writeln!(f, "  {why}")?;
        }
        if let Some(consumers) = &self.consumers {
            writeln!(f, "stream: {consumers}")?;
        }
        if self.statuses > 0 {
            writeln!(
                f,
                "{} order statuses corrected: the sums they move follow when the stream applies \
                 them; with no stream running, run the repair again",
                self.statuses
            )?;
        }
        Ok(())
    }
}

/// Corrections written at once.
const CORRECTIONS_IN_FLIGHT: usize = 8;

/// Marks stamped up to this many seconds before the repair began, on the table's clock, count
/// as written during it: the stamps' whole seconds and the `Date` header's.
const CLOCK_SLACK_SECONDS: i64 = 2;

/// Without any `Date` header to read the table's clock by, the consumers' clocks and this
/// machine's may be this far apart: marks stamped this long before the repair began count.
const CLOCK_MARGIN_SECONDS: i64 = 60;

/// This machine's clock, in epoch seconds.
fn local_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
fn now_epoch() -> i64 {
    local_now() as i64
}

/// How far the table's clock is ahead of this machine's (seconds; negative: behind), read from
/// the `Date` header of each Scan response. The consumers stamp their marks with a clock in step
/// with the table's: Lambda and DynamoDB both keep Amazon's time, and the local
/// stack runs its consumers beside DynamoDB Local. A reading is never above the true offset
/// (the header is whole seconds, written before the response travelled), so the largest is
/// the closest.
#[derive(Debug, Default)]
struct TableClock(Mutex<Option<f64>>);

impl TableClock {
    fn read(&self, date: &str) {
        use aws_sdk_dynamodb::primitives::{DateTime, DateTimeFormat};
        let Ok(server) = DateTime::from_str(date, DateTimeFormat::HttpDate) else {
            return;
        };
        let offset = server.secs() as f64 - local_now();
        let mut best = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *best = Some(best.map_or(offset, |b| b.max(offset)));
    }

    fn offset(&self) -> Option<f64> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Reads each response's `Date` into a [`TableClock`].
#[derive(Debug)]
struct DateReader(Arc<TableClock>);

impl aws_sdk_dynamodb::config::Intercept for DateReader {
    fn name(&self) -> &'static str {
        "TableClock"
    }

    fn read_before_deserialization(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        if let Some(date) = context.response().headers().get("date") {
            self.0.read(date);
        }
        Ok(())
    }
}

/// Which marks count as written during a repair: those stamped (on the consumers' clock) from
/// `since`, the moment the first read began on the table's clock, less the slack.
struct Window {
    since: i64,
    /// When the first read began, on the table's clock.
    began: i64,
    /// The table's clock ahead of this machine's, as read.
    offset: f64,
    /// How long before the first read began an entry still counts.
    margin: i64,
}

impl Window {
    /// For a repair whose first read began at `began` (this machine's clock).
    fn new(began: f64, clock: &TableClock) -> Window {
        let (offset, margin) = match clock.offset() {
            Some(offset) => (offset, CLOCK_SLACK_SECONDS),
            None => (0.0, CLOCK_MARGIN_SECONDS),
        };
        let began = (began + offset).floor() as i64;
        Window {
            since: began - margin,
            began,
            offset,
            margin,
        }
    }

    /// Now, on the table's clock.
    fn table_now(&self) -> i64 {
        (local_now() + self.offset).ceil() as i64
    }

    /// Why a value the stream wrote at `stamp` waits, and from when (this machine's clock) a
    /// repair would not wait for that write: one whose window begins after it.
    fn why(&self, stamp: i64) -> String {
        // A later run counts from its own start less the margin (the stamp must fall a whole
        // second before: 1), read through its own offset, which may come out up to a second lower
        // than this one's (the header's resolution, and the response's travel: 2 more).
        let after = ((stamp + self.margin + 3) as f64 - self.offset).ceil() as i64;
        format!(
            "the stream wrote it at {} (the first read began at {}; the clocks may be {} s \
             apart): a repair started after {} will not wait for that write",
            utc(stamp),
            utc(self.began),
            self.margin,
            utc(after)
        )
    }
}

/// How long after a record is made the repair takes it to be readable in the stream: DynamoDB
/// Streams writes records "in near-real time" (AWS gives no bound; they show within a second).
const STREAM_DELAY_SECONDS: i64 = 5;

/// How often the repair looks at the consumers' positions again while it waits.
const LOOK_AGAIN: Duration = Duration::from_secs(1);

/// Waits, at most `wait`, until the consumers of `table`'s stream have answered for every record
/// made before `made_before` (the table's clock), and says in `repaired` how it went. `None`
/// when they have; otherwise why every sum waits for a later run.
async fn caught_up(
    table: &Table,
    watch: &lag::Watch,
    made_before: i64,
    wait: Duration,
    window: &Window,
    repaired: &mut Repaired,
) -> Option<String> {
    let started = std::time::Instant::now();
    loop {
        let looked = match watch.in_flight(table, made_before).await {
            Ok(looked) => looked,
            Err(e) => {
                repaired.consumers = Some(format!("the stream could not be read ({e})"));
                return Some(format!(
                    "the stream could not be read to see what the consumers have applied ({e}): \
                     sums wait"
                ));
            }
        };
        let Some(in_flight) = looked else {
            repaired.consumers = Some("the table has no stream".to_owned());
            return None;
        };
        let reading = watch.consumer_count() - in_flight.not_reading.len();
        let not_reading = if in_flight.not_reading.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = in_flight.not_reading.iter().map(String::as_str).collect();
            format!(
                " ({} no position on this stream: taken as not reading it)",
                names.join(", ")
            )
        };
        if reading == 0 {
            // No consumer says how far it has got (none reads this stream, or they predate
            // positions): the settle time is all there is to go by, as before.
            tokio::time::sleep(wait).await;
            repaired.consumers = Some(format!(
                "no consumer has a position on this stream: waited the settle time, {:.0} s, \
                 for them{not_reading}",
                wait.as_secs_f64()
            ));
            return None;
        }
        let waited = started.elapsed();
        // Nothing in flight, and the stream has had time to show what was made before the read
        // ended.
        let settled = window.table_now() >= made_before + STREAM_DELAY_SECONDS;
        if in_flight.records == 0 && settled {
            repaired.consumers = Some(format!(
                "the consumers had applied every record made before the first read ended \
                 ({}, waited {:.1} s){not_reading}",
                utc(made_before),
                waited.as_secs_f64()
            ));
            return None;
        }
        if waited >= wait && in_flight.records > 0 {
            let consumers: Vec<&str> = in_flight.consumers.iter().map(String::as_str).collect();
            let why = format!(
                "{} records made before the first read ended ({}; the oldest at {}) were still \
                 not applied by {} after {:.0} s: sums wait for a run once they catch up",
                in_flight.records,
                utc(made_before),
                in_flight.oldest.map_or("?".to_owned(), utc),
                consumers.join(" and "),
                waited.as_secs_f64()
            );
            repaired.consumers = Some(format!("{why}{not_reading}"));
            return Some(why);
        }
        tokio::time::sleep(LOOK_AGAIN).await;
    }
}

/// `2026-11-28T15:44:52Z`.
fn utc(epoch: i64) -> String {
    use aws_sdk_dynamodb::primitives::{DateTime, DateTimeFormat};
    DateTime::from_secs(epoch)
        .fmt(DateTimeFormat::DateTime)
        .unwrap_or_else(|_| epoch.to_string())
}

/// `make reconcile REPAIR=1`: corrects the drift that is not in flight.
///
/// Two reads of the whole table, `settle` apart (longer than the stream consumers' lag). A value
/// is corrected only if it drifted the same way in both, the items holding it are as they were,
/// and no consumer marked them since the first read began (on the table's clock, less a slack:
/// [`Window`]: the stream applied nothing to them); the correction is the first read's drift,
/// written in one transaction conditioned on every item holding the value (each shard) being
/// still as read.
/// Anything else is deferred to a later run. Order statuses go through the projection's own
/// write, conditioned on the newest event, and move their orders' sums through the stream (a
/// cancelled order leaves them); with no stream running (a table loaded directly), a second run
/// derives those sums.
pub async fn repair(
    table: &Table,
    scan: &Scan,
    watch: &lag::Watch,
    wait: Duration,
) -> Result<(Report, Repaired), StoreError> {
    let (began, clock) = (local_now(), Arc::default());
    let first = pass(table, scan, None, &clock).await?;
    let report = first.report();
    let mut repaired = Repaired::default();
    if report.drift.is_empty() {
        return Ok((report, repaired));
    }
    let window = Window::new(began, &clock);
    // Every record the first read can have seen the effect of was made before it ended: the
    // second read waits until the consumers have answered for all of them.
    let read_ended = window.table_now() + window.margin;
    let behind = caught_up(table, watch, read_ended, wait, &window, &mut repaired).await;
    let second = pass(table, scan, Some(window.since), &clock).await?;
    let again: BTreeMap<String, (String, String)> = second
        .report()
        .drift
        .into_iter()
        .map(|(name, want, have)| (name, (want, have)))
        .collect();
    let none = Vec::new();
    let mut settled = Vec::new();
    for (name, want, have) in &report.drift {
        let held = second.held.get(name).unwrap_or(&none);
        let still = again.get(name).is_some_and(|(w, h)| (w, h) == (want, have));
        let written = held
            .iter()
            .filter_map(|h| second.moved.get(&h.target))
            .max();
        let why_not = if let Some(why) = behind.as_ref().filter(|_| counts_records(name)) {
            // Consumers still behind after the wait: a sum read now may hold a record in flight.
            Some(why.clone())
        } else if !still {
            Some("it moved between the two reads".to_owned())
        } else if first.held.get(name).unwrap_or(&none) != held {
            Some("its items changed between the two reads".to_owned())
        } else {
            written.map(|stamp| window.why(*stamp))
        };
        match why_not {
            Some(why) => repaired.deferred.push(format!("{name}: {why}")),
            None => settled.push(Drifted {
                table,
                name,
                want,
                have,
                held,
                orders: &second.orders,
            }),
        }
    }
    // An order status that stayed behind its newest event through the whole wait says the
    // consumers may lag more than the settle time; a sum read then could hold a record in flight.
    let behind: BTreeSet<&str> = settled
        .iter()
        .filter_map(|d| order_behind(d.name))
        .collect();
    if !behind.is_empty() {
        let why = format!(
            "the statuses of {} orders stayed behind their events through the wait (the \
             consumers may lag more than it): sums wait",
            behind.len()
        );
        settled.retain(|d| {
            let counts = counts_records(d.name);
            if counts {
                repaired.deferred.push(format!("{}: {why}", d.name));
            }
            !counts
        });
    }
    // The values of one thing (a customer, an order, a day) one after the other, as they share
    // items; several things at once.
    let mut groups: BTreeMap<String, Vec<&Drifted>> = BTreeMap::new();
    for drifted in &settled {
        let thing: Vec<&str> = drifted.name.splitn(3, ' ').take(2).collect();
        groups.entry(thing.join(" ")).or_default().push(drifted);
    }
    let outcomes: Vec<_> = futures::stream::iter(groups.into_values())
        .map(|group| async move {
            let mut outcomes = Vec::new();
            for drifted in group {
                outcomes.push((drifted.name, correct(drifted).await));
            }
            outcomes
        })
        .buffer_unordered(CORRECTIONS_IN_FLIGHT)
        .collect()
        .await;
    for (name, outcome) in outcomes.into_iter().flatten() {
        match outcome {
            Ok(true) => {
                repaired.written += 1;
                if name.ends_with(&format!(" summary {}", Order::STATUS)) {
                    repaired.statuses += 1;
                }
            }
            Ok(false) => repaired
                .deferred
                .push(format!("{name}: changed as it was corrected")),
            Err(e) => repaired.failed.push(format!("{name}: {e}")),
        }
    }
    Ok((report, repaired))
}

/// The order whose status `name` is (`order <id> header Status`), if it is one.
fn order_behind(name: &str) -> Option<&str> {
    let (order, part) = name.strip_prefix("order ")?.split_once(' ')?;
    let attr = part
        .strip_prefix("header ")
        .or_else(|| part.strip_prefix("summary "))?;
    (attr == Order::STATUS).then_some(order)
}

/// Whether the value `name` is a sum of stream records (a count, a total), which a record in
/// flight would be counted in twice: not a status, a key or a copy.
fn counts_records(name: &str) -> bool {
    let (kind, attr) = (name.split(' ').next(), name.rsplit(' ').next());
    matches!(
        kind,
        Some("customer" | "product" | "rep" | "day" | "book" | "user")
    ) && attr != Some(keys::attr::GSI1SK)
}

/// The static attribute name a value's name ends with.
fn attribute(name: &str) -> Option<&'static str> {
    commerce::ATTRIBUTES
        .iter()
        .chain(reviews::ATTRIBUTES)
        .chain(derived::ATTRIBUTES)
        .copied()
        .find(|a| *a == name)
}

/// Writes one correction; `false` when an item holding the value changed since it was read.
async fn correct(drifted: &Drifted<'_>) -> Result<bool, StoreError> {
    let Drifted {
        table,
        name,
        want,
        have,
        ..
    } = *drifted;
    if crate::copies::owns(name) {
        return crate::copies::correct(table, name, want, have).await;
    }
    if crate::counts::owns(name) {
        return crate::counts::correct(table, name, want, have).await;
    }
    match drifted.name.split(' ').next() {
        Some("customer" | "product" | "rep" | "order") => commerce::correct(drifted).await,
        Some("book" | "user") => reviews::correct(drifted).await,
        Some("day") => derived::correct(drifted).await,
        _ => Err(drifted.bad("no correction for it")),
    }
}

/// A drifted value to correct: its name, the value expected and the value stored, and the items
/// holding it as read.
struct Drifted<'a> {
    table: &'a Table,
    name: &'a str,
    want: &'a str,
    have: &'a str,
    held: &'a [Holder],
    orders: &'a commerce::Found,
}

/// A condition that `attr` is as `raw` was read.
fn unchanged(attr: &'static str, raw: Option<&AttributeValue>) -> Condition {
    match raw {
        Some(v) => Condition::Equals(attr, v.clone()),
        None => Condition::AttributeAbsent(attr),
    }
}

/// A shard's value as a counter holds it: a whole number of at least 0, or `None` (drift a read
/// shows as such, counted as 0).
fn shard_value(raw: Option<&AttributeValue>) -> Option<i64> {
    raw.and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|v| *v >= 0)
}

impl<'a> Drifted<'a> {
    /// The words of the name: `["customer", "123", "OrderCount"]`.
    fn parts(&self) -> Vec<&'a str> {
        self.name.split(' ').collect()
    }

    fn bad(&self, what: &str) -> StoreError {
        StoreError::Corrupt(format!("{}: {what}", self.name))
    }

    fn number(&self, v: &str) -> Result<i64, StoreError> {
        v.parse::<i64>().map_err(|_| self.bad("not a number"))
    }

    /// The static name of a derived attribute.
    fn attribute(&self, attr: &str) -> Result<&'static str, StoreError> {
        attribute(attr).ok_or_else(|| self.bad("unknown attribute"))
    }

    /// A conditional update; `false` when the condition failed (the item changed meanwhile).
    async fn update(
        &self,
        key: &PrimaryKey,
        update: &Update,
        condition: Condition,
    ) -> Result<bool, StoreError> {
        match self.table.update(key, update, Some(condition)).await {
            Ok(_) => Ok(true),
            Err(StoreError::ConditionFailed) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// One transaction: each update and each check; `false` when a condition failed.
    async fn write(
        &self,
        updates: Vec<(PrimaryKey, Update, Condition)>,
        checks: Vec<(PrimaryKey, Condition)>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.table.transaction();
        let mut parts = Vec::new();
        for (key, update, condition) in &updates {
            parts.push(tx.update(key, update, Some(condition.clone()))?);
        }
        for (key, condition) in checks {
            parts.push(tx.check(&key, condition)?);
        }
        match tx.send().await {
            Ok(()) => Ok(true),
            Err(e) if parts.iter().any(|p| p.failed(&e)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A value one item holds (a customer's, a book's, a product's, a rep's): set to the value
    /// expected, with `also`, if it is still as read; onto an item that exists when
    /// `must_exist` (a correction never creates a customer).
    async fn set_one(
        &self,
        key: PrimaryKey,
        attr: &'static str,
        must_exist: bool,
        also: Update,
    ) -> Result<bool, StoreError> {
        let holder = match self.held {
            [] if must_exist => return Err(self.bad("its item does not exist")),
            [] => None,
            [one] => Some(one),
            _ => return Err(self.bad("held by several items")),
        };
        let mut condition = unchanged(attr, holder.and_then(|h| h.raw.as_ref()));
        if must_exist {
            condition = Condition::Exists.and(condition);
        }
        let to = self.number(self.want)?;
        self.write(vec![(key, also.set(attr, model::n(to)), condition)], vec![])
            .await
    }

    /// A sharded counter: the difference goes onto shard 0 when it adds, and is taken from the
    /// largest shards when it subtracts (a shard never goes below 0); a shard holding no whole
    /// number is reset to 0. Every shard read is checked unchanged in the same transaction.
    async fn spread(
        &self,
        attr: &'static str,
        key_of: impl Fn(u32) -> Result<PrimaryKey, StoreError>,
        labels_of: impl Fn(u32) -> Update,
    ) -> Result<bool, StoreError> {
        let mut diff = self.number(self.want)? - self.number(self.have)?;
        let mut shards: Vec<(u32, Option<&AttributeValue>, i64)> = self
            .held
            .iter()
            .map(|h| {
                (
                    h.shard,
                    h.raw.as_ref(),
                    shard_value(h.raw.as_ref()).unwrap_or(0),
                )
            })
            .collect();
        let mut new: BTreeMap<u32, i64> = BTreeMap::new();
        for (shard, raw, _) in &shards {
            if raw.is_some() && shard_value(*raw).is_none() {
                new.insert(*shard, 0);
            }
        }
        if diff > 0 {
            let zero = shards.iter().find(|s| s.0 == 0).map_or(0, |s| s.2);
            new.insert(0, zero + diff);
            if !shards.iter().any(|s| s.0 == 0) {
                shards.push((0, None, 0));
            }
        }
        shards.sort_by_key(|s| std::cmp::Reverse(s.2));
        for (shard, _, value) in &shards {
            if diff >= 0 {
                break;
            }
            let take = (-diff).min(*value);
            if take > 0 {
                new.insert(*shard, value - take);
                diff += take;
            }
        }
        let (mut updates, mut checks) = (Vec::new(), Vec::new());
        for (shard, raw, _) in shards {
            let key = key_of(shard)?;
            let condition = unchanged(attr, raw);
            match new.get(&shard) {
                Some(to) => {
                    updates.push((key, labels_of(shard).set(attr, model::n(*to)), condition))
                }
                None => checks.push((key, condition)),
            }
        }
        self.write(updates, checks).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keys::{SortableId, attr::GSI2PK, commerce as ck};
    use model::{
        Entity,
        commerce::{Customer, OrderHeader},
        n as num, s as text,
    };

    fn item(pairs: &[(&str, store::aws_sdk_dynamodb::types::AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    /// Drift after an incident (counters wrong, a status behind) is healed by two repairs (the
    /// statuses first), and a third writes nothing.
    #[tokio::test]
    async fn repair_heals_drift_once_and_then_has_nothing_to_do() {
        use store::Update;
        let table = devkit::table().await;
        crate::seed::load(&table).await.unwrap();
        // The seed writes source items only: derived values are the stream's job, so a fresh
        // seed drifts (nothing counted yet) exactly as a stream that was down would leave it.
        let before = run(&table).await.unwrap();
        assert!(!before.drift.is_empty());
        // And a hand edit on top: a negative count.
        let customer = keys::commerce::customer(&keys::Id::parse("c", "123").unwrap());
        table
            .update(
                &customer,
                &Update::new().set(Customer::ORDER_COUNT, num(-4)),
                None,
            )
            .await
            .unwrap();
        // And an order header moved off the O5 shard it records.
        let header = devkit::all_items(&table)
            .await
            .into_iter()
            .find(|i| model::type_of(i) == Some(OrderHeader::TYPE))
            .unwrap();
        let order = SortableId::parse(s(&header, Order::ORDER_ID)).unwrap();
        let moved = Update::new().set(GSI2PK, model::s("ORDERS#99"));
        let header_key = ck::order_header(order);
        table.update(&header_key, &moved, None).await.unwrap();
        // The seed's third order is behind its PROCESSING event: with a status that stayed
        // behind through the wait, the consumers may lag, so the first repair corrects statuses
        // and keys and lets the sums wait; the second corrects them.
        let (report, repaired) = repair_now(&table).await;
        assert!(repaired.failed.is_empty(), "{repaired}");
        assert!(repaired.statuses > 0, "{repaired}");
        let shard = format!("order {order} header {GSI2PK}");
        assert!(report.drift.iter().any(|d| d.0 == shard), "{report}");
        let waited = "customer 123 OrderCount: the statuses of 1 orders stayed behind their \
                      events through the wait (the consumers may lag more than it): sums wait";
        assert!(repaired.deferred.iter().any(|d| d == waited), "{repaired}");
        assert!(
            repaired.deferred.iter().all(|d| !d.starts_with("order ")),
            "{repaired}"
        );
        assert_eq!(
            repaired.written + repaired.deferred.len(),
            report.drift.len(),
            "{report}"
        );
        let (_, repaired) = repair_now(&table).await;
        assert!(
            repaired.deferred.is_empty() && repaired.failed.is_empty() && repaired.statuses == 0,
            "{repaired}"
        );
        assert_eq!(run(&table).await.unwrap().drift, [], "healed");
        let (report, repaired) = repair_now(&table).await;
        assert_eq!(
            (report.drift.len(), repaired.written),
            (0, 0),
            "nothing the second time"
        );
    }

    /// Every order's GSI1 keys removed (as a move's clean-up run before its time, or a
    /// rehearsal on the wrong table, leaves them): headers and summaries are out of C4 by status
    /// and O10. Reconcile names each missing key, the partition too (it once saw GSI1SK only,
    /// and its repair restored that alone, leaving them out of the index through every pass),
    /// and one repair puts both keys back; the next run finds nothing.
    #[tokio::test]
    async fn orders_out_of_gsi1_are_found_and_put_back_in_one_repair() {
        use keys::attr::{GSI1PK, GSI1SK};
        use store::{Condition, Update};
        let table = devkit::table().await;
        crate::seed::load(&table).await.unwrap();
        // Settle the seed's own drift first (nothing derived yet).
        repair_now(&table).await;
        repair_now(&table).await;
        assert_eq!(run(&table).await.unwrap().drift, [], "a true table first");
        let orders: Vec<Item> = devkit::all_items(&table)
            .await
            .into_iter()
            .filter(|i| {
                matches!(
                    model::type_of(i),
                    Some(OrderHeader::TYPE | model::commerce::OrderSummary::TYPE)
                ) && i.contains_key(GSI1PK)
            })
            .collect();
        assert!(orders.len() >= 2, "headers and summaries in GSI1");
        for item in &orders {
            let key = match model::type_of(item) {
                Some(OrderHeader::TYPE) => {
                    model::from_item::<OrderHeader>(item.clone()).unwrap().key()
                }
                _ => model::from_item::<model::commerce::OrderSummary>(item.clone())
                    .unwrap()
                    .key(),
            };
            let out = Update::new().remove(GSI1PK).remove(GSI1SK);
            table
                .update(&key, &out, Some(Condition::Exists))
                .await
                .unwrap();
        }
        let report = run(&table).await.unwrap();
        let missing = |attr: &str| {
            report
                .drift
                .iter()
                .filter(|d| d.0.ends_with(&format!(" {attr}")) && d.0.starts_with("order "))
                .count()
        };
        assert_eq!(
            (missing(GSI1PK), missing(GSI1SK)),
            (orders.len(), orders.len()),
            "{report}"
        );
        let (_, repaired) = repair_now(&table).await;
        assert!(
            repaired.failed.is_empty() && repaired.deferred.is_empty(),
            "{repaired}"
        );
        assert_eq!(
            run(&table).await.unwrap().drift,
            [],
            "back in GSI1 after one repair"
        );
        let back = devkit::all_items(&table).await;
        for item in &orders {
            let now = back
                .iter()
                .find(|i| s(i, "PK") == s(item, "PK") && s(i, "SK") == s(item, "SK"))
                .unwrap();
            assert_eq!(
                (now.get(GSI1PK), now.get(GSI1SK)),
                (item.get(GSI1PK), item.get(GSI1SK)),
                "the keys it had"
            );
        }
    }

    /// A small volume of every context, seeded, with drift of every kind on top.
    async fn drifted_volume() -> Table {
        let table = devkit::table().await;
        let small = crate::volume::Volume {
            customers: 40,
            orders: 120,
            products: 12,
            carts: 5,
            books: 15,
            users: 30,
            reviews: 150,
            courses: 2,
            occurrences_per_course: 2,
            certificates: 20,
            employees: 20,
        };
        crate::volume::load(&table, &small, |_, _| {})
            .await
            .unwrap();
        crate::seed::load(&table).await.unwrap();
        table
    }

    /// A parallel scan in any number of segments reports exactly what one segment does: the
    /// values, their drift, and the lines of cancelled orders taken out of their products.
    #[tokio::test]
    async fn a_segmented_scan_reports_what_a_single_one_does() {
        let table = drifted_volume().await;
        let one = Scan {
            segments: 1,
            progress: false,
        };
        let single = scan_report(&table, &one).await.unwrap();
        assert!(single.checked > 500, "{}", single.checked);
        assert!(!single.drift.is_empty());
        for segments in [2, 7, 32] {
            let segmented = scan_report(
                &table,
                &Scan {
                    segments,
                    ..one.clone()
                },
            )
            .await
            .unwrap();
            assert_eq!(segmented, single, "{segments} segments");
        }
    }

    /// One name, one item: keys with the delimiter in them are escaped.
    #[test]
    fn targets_are_named_one_to_one() {
        assert_eq!(target_name("A#B", "%"), "A%23B#%25");
        assert_ne!(target_name("A#B", "C"), target_name("A", "B#C"));
    }

    /// Reads `table`, sets shard 3 of the day's order count to `meanwhile` (a stream write after
    /// the read), then corrects the count as read: whether it was written, and (expected, stored).
    async fn correct_day_orders(table: &Table, meanwhile: Option<i64>) -> (bool, (String, String)) {
        let first = pass(table, &Scan::default(), None, &Arc::default())
            .await
            .unwrap();
        let name = format!("day 2026-01-02 {}", model::derived::DailyStats::ORDERS);
        let (_, want, have) = first
            .report()
            .drift
            .into_iter()
            .find(|d| d.0 == name)
            .expect("the day drifted");
        if let Some(orders) = meanwhile {
            put_shard(table, 3, orders).await;
        }
        let drifted = Drifted {
            table,
            name: &name,
            want: &want,
            have: &have,
            held: &first.held[&name],
            orders: &first.orders,
        };
        (correct(&drifted).await.unwrap(), (want, have))
    }

    fn shard(n: u32) -> keys::PrimaryKey {
        let date = keys::Date::parse_iso("2026-01-02").unwrap();
        keys::derived::daily_stats(date, keys::Shard::new(n, 10).unwrap())
    }

    async fn put_shard(table: &Table, n: u32, orders: i64) {
        use model::derived::DailyStats;
        let update = Update::new()
            .set(model::attr::TYPE, text(DailyStats::TYPE))
            .set(DailyStats::DATE, text("2026-01-02"))
            .set(DailyStats::SHARD, num(n))
            .set(DailyStats::ORDERS, num(orders));
        table.update(&shard(n), &update, None).await.unwrap();
    }

    async fn shard_orders(table: &Table, n: u32) -> i64 {
        let item = table
            .get_item(&shard(n), store::Read::Strong, None)
            .await
            .unwrap()
            .unwrap_or_default();
        super::n(&item, model::derived::DailyStats::ORDERS)
    }

    /// One order on a day whose shards count 6 (shard 0: 1, shard 3: 5): the correction takes 5
    /// from the largest shard, never below 0 anywhere; and a write to any shard read (not only
    /// shard 0) between the read and the correction makes it step aside.
    #[tokio::test]
    async fn a_sharded_counter_is_corrected_under_a_condition_on_every_shard() {
        let table = devkit::table().await;
        let order = item(&[
            (keys::attr::PK, text("CUSTOMER#1")),
            (keys::attr::SK, text("#ORDER#01KQ6W4K000000000000000001")),
            ("Type", text("Order")),
            ("CustomerId", text("1")),
            ("OrderId", text("01KQ6W4K000000000000000001")),
            ("Total", num(500)),
            ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
            ("Status", text("OPEN")),
        ]);
        table.put_item(order, None).await.unwrap();
        put_shard(&table, 0, 1).await;
        put_shard(&table, 3, 5).await;

        // A stream write to shard 3 after the read: the correction must not land.
        let (written, drift) = correct_day_orders(&table, Some(6)).await;
        assert_eq!(drift, ("1".into(), "6".into()));
        assert!(!written, "stepped aside");
        assert_eq!(shard_orders(&table, 3).await, 6);

        let (written, drift) = correct_day_orders(&table, None).await;
        assert_eq!(drift, ("1".into(), "7".into()));
        assert!(written);
        assert_eq!(
            (shard_orders(&table, 0).await, shard_orders(&table, 3).await),
            (1, 0)
        );
        let day = run(&table).await.unwrap().drift;
        assert!(!day.iter().any(|d| d.0.ends_with(" Orders")), "{day:?}");
    }

    /// A customer counting 2 orders and holding none: drift, which the stream may write on.
    async fn customer_counting(table: &Table, id: &str) -> PrimaryKey {
        let key = keys::commerce::customer(&keys::Id::parse("c", id).unwrap());
        let customer = item(&[
            (keys::attr::PK, text(key.pk())),
            (keys::attr::SK, text(key.sk())),
            ("Type", text("Customer")),
            ("CustomerId", text(id)),
            ("OrderCount", num(2)),
        ]);
        table.put_item(customer, None).await.unwrap();
        key
    }

    /// A stream record's (sequence number `sequence`) contribution to the customer's order
    /// count, as the consumer applies it.
    fn order_count(
        customer: &PrimaryKey,
        sequence: u64,
        by: i64,
    ) -> store::aggregate::Contribution {
        use model::commerce::Customer;
        let sequence = store::aggregate::Sequence::parse(&sequence.to_string()).unwrap();
        store::aggregate::Contribution::new(
            0,
            sequence,
            customer.clone(),
            Customer::TYPE,
            [(Customer::ORDER_COUNT, by)],
        )
        .to_existing()
    }

    /// The lane the tests' consumer reads.
    fn lane() -> store::aggregate::Lane {
        store::aggregate::Lane::new(
            "commerce-stream",
            devkit::TEST_STREAM_ARN,
            devkit::TEST_SHARD,
        )
    }

    /// A value the stream wrote between the repair's two reads waits, even when the writes
    /// cancel out (an order cancelled and taken back): its drift was measured while a record was
    /// in flight. One that held still is corrected.
    #[tokio::test]
    async fn a_value_the_stream_wrote_during_the_repair_waits() {
        use store::aggregate::apply;
        let table = devkit::table().await;
        let key = customer_counting(&table, "moving").await;
        let still = customer_counting(&table, "still").await;
        let contribution = |sequence: u64, by: i64| order_count(&key, sequence, by);
        let stream = async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let now = crate::reconcile::now_epoch();
            apply(&table, &lane(), None, vec![contribution(1, -1)], now).await;
            apply(&table, &lane(), None, vec![contribution(2, 1)], now).await;
        };
        let scan = Scan::default();
        let watch = lag::Watch::local();
        let (repair, ()) = tokio::join!(
            repair(&table, &scan, &watch, Duration::from_secs(2)),
            stream
        );
        let (report, repaired) = repair.unwrap();
        assert_eq!(report.drift.len(), 2, "{report}");
        assert_eq!(repaired.written, 1, "{repaired}");
        assert_eq!(
            repaired.deferred.len(),
            1,
            "the moving one only: {repaired}"
        );
        assert!(
            repaired.deferred[0].starts_with("customer moving OrderCount: the stream wrote it at "),
            "{repaired}"
        );
        let corrected = table
            .get_item(&still, store::Read::Strong, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            store::aggregate::last_marked(&corrected),
            None,
            "a correction leaves no mark"
        );
    }

    /// A quiet table (issue 36): a consumer's write 30 s before the repair began is no record in
    /// flight, so the drift it left is corrected, not deferred run after run. One stamped as the
    /// repair begins (within the clocks' slack) still waits, and the repair says after what time
    /// a run will not defer it for that write.
    #[tokio::test]
    async fn a_write_before_the_repair_began_does_not_defer_it() {
        let table = devkit::table().await;
        let now = now_epoch();
        for (id, written) in [("quiet", now - 30), ("recent", now)] {
            let key = customer_counting(&table, id).await;
            let order = order_count(&key, 1, 1);
            store::aggregate::apply(&table, &lane(), None, vec![order], written).await;
        }
        let (report, repaired) = repair_now(&table).await;
        assert_eq!(report.drift.len(), 2, "{report}");
        assert_eq!(repaired.written, 1, "the quiet one: {repaired}");
        let [deferred] = repaired.deferred.as_slice() else {
            panic!("the recent one only: {repaired}");
        };
        let stamped = aws_sdk_dynamodb::primitives::DateTime::from_secs(now)
            .fmt(aws_sdk_dynamodb::primitives::DateTimeFormat::DateTime)
            .unwrap();
        assert!(
            deferred.starts_with(&format!(
                "customer recent OrderCount: the stream wrote it at {stamped}"
            )) && deferred.contains("a repair started after "),
            "{deferred}"
        );
        assert_eq!(
            run(&table).await.unwrap().drift.len(),
            1,
            "the quiet one healed"
        );
        // And a repair started after the time it names does not wait for it.
        let after = deferred.rsplit("a repair started after ").next().unwrap();
        let after = after.split(' ').next().unwrap();
        let after = aws_sdk_dynamodb::primitives::DateTime::from_str(
            after,
            aws_sdk_dynamodb::primitives::DateTimeFormat::DateTime,
        )
        .unwrap();
        while local_now() <= after.secs() as f64 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let (_, repaired) = repair_now(&table).await;
        assert_eq!(
            (repaired.written, repaired.deferred.len()),
            (1, 0),
            "{repaired}"
        );
        assert_eq!(run(&table).await.unwrap().drift, [], "healed");
    }

    /// A cancelled or returned order is no sale: the sums it fed expect it gone once its status
    /// says so (as stored: what the stream derives from), and a stored value that still counts it
    /// is drift.
    #[test]
    fn a_cancelled_or_returned_order_is_expected_out_of_the_sums() {
        const O1: &str = "01KQ6W4K000000000000000001";
        const O2: &str = "01KQ6W4K000000000000000002";
        const O3: &str = "01KQ6W4K000000000000000003";
        const O4: &str = "01KQ6W4K000000000000000004";
        let order = |id: &str, total: i64, status: &str| {
            item(&[
                ("Type", text("Order")),
                ("CustomerId", text("1")),
                ("OrderId", text(id)),
                ("Total", num(total)),
                ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
                ("Status", text(status)),
                ("AccountRepId", text("E1")),
            ])
        };
        let event = |order: &str, id: &str, status: &str| {
            item(&[
                ("Type", text("TrackingEvent")),
                ("OrderId", text(order)),
                ("EventId", text(id)),
                ("Status", text(status)),
            ])
        };
        let line = |order: &str, quantity: i64, price: i64| {
            item(&[
                ("Type", text("OrderItem")),
                ("OrderId", text(order)),
                ("Sku", num(7)),
                ("Quantity", num(quantity)),
                ("UnitPrice", num(price)),
            ])
        };
        let items = vec![
            item(&[
                ("Type", text("Customer")),
                ("CustomerId", text("1")),
                // Still counting the cancelled O2.
                ("OrderCount", num(3)),
                ("LifetimeValue", num(1000)),
            ]),
            order(O1, 500, "SHIPPED"),
            event(O1, "E1", "SHIPPED"),
            order(O2, 200, "CANCELLED"),
            event(O2, "E1", "PROCESSING"),
            event(O2, "E2", "CANCELLED"),
            order(O3, 900, "RETURNED"),
            event(O3, "E1", "RETURNED"),
            // Cancelled, its status not projected yet: still counted, until the projection's
            // write reaches the stream.
            order(O4, 300, "OPEN"),
            event(O4, "E1", "CANCELLED"),
            // O1's line and the cancelled O2's, both of SKU 7: its sales still count O2's.
            line(O1, 1, 500),
            line(O2, 2, 100),
            item(&[
                ("Type", text("ProductSales")),
                ("Sku", num(7)),
                ("UnitsSold", num(3)),
                ("Revenue", num(700)),
            ]),
            item(&[
                ("Type", text("DailyStats")),
                ("Date", text("2026-01-02")),
                ("Orders", num(2)),
                ("Revenue", num(800)),
            ]),
            item(&[
                ("Type", text("RepSales")),
                ("Period", text("2026-Q1")),
                ("RepId", text("E1")),
                ("Total", num(800)),
                ("OrderCount", num(2)),
                ("GSI1SK", text("0000000000000000800#E1")),
            ]),
        ];
        let (expected, stored) = recompute(&items);
        let report = compare(&expected, &stored);
        let sums: Vec<_> = report
            .drift
            .iter()
            .filter(|d| !d.0.starts_with("order "))
            .map(|d| (d.0.as_str(), d.1.as_str(), d.2.as_str()))
            .collect();
        assert_eq!(
            sums,
            [
                ("customer 1 LifetimeValue", "800", "1000"),
                ("customer 1 OrderCount", "2", "3"),
                ("product 7 Revenue", "500", "700"),
                ("product 7 UnitsSold", "1", "3"),
            ],
            "{report}"
        );
        let status = format!("order {O4} summary Status");
        assert!(
            report
                .drift
                .iter()
                .any(|d| (d.0.as_str(), d.1.as_str(), d.2.as_str())
                    == (&status, "CANCELLED", "OPEN")),
            "{report}"
        );
    }

    #[test]
    fn finds_drift_and_only_drift() {
        const O1: &str = "01KQ6W4K000000000000000001";
        let shipped = format!("SHIPPED#{O1}");
        let items = vec![
            item(&[
                ("Type", text("Customer")),
                ("CustomerId", text("1")),
                ("OrderCount", num(1)),
                ("LifetimeValue", num(500)),
            ]),
            item(&[
                ("Type", text("Order")),
                ("CustomerId", text("1")),
                ("OrderId", text(O1)),
                ("Total", num(500)),
                ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
                ("Status", text("SHIPPED")),
                ("AccountRepId", text("E1")),
                // The status projection missed the rep's key.
                ("GSI1PK", text("REP#E1")),
                ("GSI1SK", text(format!("OPEN#{O1}"))),
            ]),
            item(&[
                ("Type", text("OrderHeader")),
                ("CustomerId", text("1")),
                ("OrderId", text(O1)),
                ("Total", num(500)),
                ("ItemCount", num(1)),
                ("CreatedAt", text("2026-01-02T00:00:00.000Z")),
                ("Status", text("OPEN")),
                ("EventCount", num(1)),
                // Half out of GSI1: its sort key without its partition.
                ("GSI1SK", text(&shipped)),
                // Moved off the shard it records.
                ("StatusShard", num(3)),
                ("GSI2PK", text("ORDERS#07")),
                ("GSI2SK", text(&shipped)),
            ]),
            item(&[
                ("Type", text("TrackingEvent")),
                ("OrderId", text(O1)),
                ("EventId", text("E1")),
                ("Status", text("SHIPPED")),
            ]),
            item(&[
                ("Type", text("DailyStats")),
                ("Date", text("2026-01-02")),
                ("Orders", num(1)),
                ("Revenue", num(400)),
            ]),
            item(&[
                ("Type", text("RepSales")),
                ("Period", text("2026-Q1")),
                ("RepId", text("E1")),
                ("Total", num(500)),
                ("OrderCount", num(1)),
                // Written for an older total.
                ("GSI1SK", text("0000000000000000400#E1")),
            ]),
            item(&[
                ("Type", text("Product")),
                ("Sku", num(7)),
                ("TotalInventory", num(5)),
            ]),
            item(&[
                ("Type", text("Inventory")),
                ("Sku", num(7)),
                ("WarehouseId", text("W1")),
                ("Quantity", num(3)),
            ]),
            item(&[
                ("Type", text("Inventory")),
                ("Sku", num(7)),
                ("WarehouseId", text("W2")),
                ("Quantity", num(2)),
            ]),
        ];
        let (expected, stored) = recompute(&items);
        let report = compare(&expected, &stored);
        let names: Vec<_> = report.drift.iter().map(|d| d.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "day 2026-01-02 Revenue",
                "order 01KQ6W4K000000000000000001 header GSI1PK",
                "order 01KQ6W4K000000000000000001 header GSI2PK",
                "order 01KQ6W4K000000000000000001 header Status",
                "order 01KQ6W4K000000000000000001 summary GSI1SK",
                "rep 2026-Q1/E1 GSI1SK",
            ],
            "{report}"
        );
        let rank = report
            .drift
            .iter()
            .find(|d| d.0 == "rep 2026-Q1/E1 GSI1SK")
            .unwrap();
        assert_eq!(rank.1, "0000000000000000500#E1");
        let shard = report
            .drift
            .iter()
            .find(|d| d.0.ends_with("header GSI2PK"))
            .unwrap();
        assert_eq!(
            (shard.1.as_str(), shard.2.as_str()),
            ("ORDERS#03", "ORDERS#07")
        );
    }

    /// A repair of `table` now, with no settle time.
    async fn repair_now(table: &Table) -> (Report, Repaired) {
        repair(
            table,
            &Scan::default(),
            &lag::Watch::local(),
            Duration::ZERO,
        )
        .await
        .unwrap()
    }

    /// `commerce-stream` as Lambda runs it on the table's real stream: each shard's records from
    /// where it left off, handled, and its position recorded after each batch (as `serve` does).
    struct Behind {
        deps: store::Deps,
        stream: String,
        client: aws_sdk_dynamodbstreams::Client,
        readers: BTreeMap<String, local_stack::streams::shard::ShardReader>,
        filters: local_stack::streams::filter::Filters,
    }

    impl Behind {
        async fn on(table: &Table) -> Behind {
            let client = local_stack::streams::streams_client(&devkit::endpoint());
            let stream = local_stack::streams::latest_stream_arn(&devkit::endpoint(), table.name())
                .await
                .unwrap();
            let deps = devkit::deps(table.clone(), ::commerce::commerce_stream::CONSUMER.needs);
            let template = sam_template::Template::workspace().unwrap();
            let mapping = &template.function("commerce-stream").unwrap().streams[0];
            let filters =
                local_stack::streams::filter::Filters::parse(&mapping.filter_patterns).unwrap();
            Behind {
                filters,
                deps,
                stream,
                client,
                readers: BTreeMap::new(),
            }
        }

        /// Handles every record in the stream so far.
        async fn catch_up(&mut self) {
            use local_stack::streams::{
                Clock,
                event::Record,
                shard::{ShardReader, Start, list_shards},
            };
            let name = ::commerce::commerce_stream::CONSUMER.name;
            for shard in list_shards(&self.client, &self.stream).await.unwrap() {
                let reader = self.readers.entry(shard.id.clone()).or_insert_with(|| {
                    ShardReader::new(
                        self.client.clone(),
                        &self.stream,
                        &shard.id,
                        Start::TrimHorizon,
                    )
                });
                loop {
                    let page = reader.read().await.unwrap();
                    if page.is_empty() {
                        break;
                    }
                    // What the mapping hands over: its own writes are filtered out.
                    let records: Vec<serde_json::Value> = page
                        .iter()
                        .map(|r| {
                            Record::from_stream(r, &self.stream, &Clock::default())
                                .unwrap()
                                .json
                        })
                        .filter(|r| self.filters.matches(r))
                        .collect();
                    if records.is_empty() {
                        continue;
                    }
                    let event: stream_handler::Event = serde_json::from_value(serde_json::json!({
                        "Records": records,
                        "shardId": shard.id,
                        "eventSourceARN": self.stream,
                    }))
                    .unwrap();
                    let response =
                        ::commerce::commerce_stream::handle(&self.deps, event.clone()).await;
                    assert!(response.batch_item_failures.is_empty(), "{response:?}");
                    stream_handler::position::after_batch(
                        &self.deps.table,
                        name,
                        &event,
                        &response,
                    )
                    .await;
                }
            }
        }
    }

    /// A consumer behind by more than any settle time (its records in the stream, not applied):
    /// the repair sees them in flight from its position and the stream, and every sum waits,
    /// nothing written; once the consumer catches up, the next run corrects what did drift (a
    /// count edited by hand) and nothing else. A repair that trusted its settle time corrected
    /// the order not yet counted, which the consumer then counted again.
    #[tokio::test]
    async fn a_consumer_behind_defers_every_sum_and_a_run_after_it_caught_up_repairs() {
        let table = devkit::table().await;
        for customer in ["ann", "bob"] {
            ::commerce::fixtures::customer(&table, customer).await;
        }
        let day = 1_796_600_000_000;
        ::commerce::fixtures::order(&table, "ann", day, &[(1, 1, 500)]).await;
        ::commerce::fixtures::order(&table, "bob", day + 1, &[(2, 1, 700)]).await;
        let mut consumer = Behind::on(&table).await;
        consumer.catch_up().await;
        let bob = keys::commerce::customer(&keys::Id::parse("c", "bob").unwrap());
        let hand_edit = Update::new().set(model::commerce::Customer::ORDER_COUNT, model::n(7));
        table.update(&bob, &hand_edit, None).await.unwrap();
        // The consumer then stops (behind by more than any settle time): its last write is
        // older than the clocks' slack when the repair begins, so nothing but its lag can hold
        // the repair back. Ann's second order: in the stream, not applied.
        tokio::time::sleep(Duration::from_secs(6)).await;
        ::commerce::fixtures::order(&table, "ann", day + 2, &[(1, 2, 500)]).await;
        let watch = lag::Watch::local();
        let wait = Duration::from_secs(2);
        let (report, repaired) = repair(&table, &Scan::default(), &watch, wait)
            .await
            .unwrap();
        let drifted = |name: &str| report.drift.iter().any(|(n, _, _)| n == name);
        assert!(
            drifted("customer ann OrderCount") && drifted("customer bob OrderCount"),
            "{report}"
        );
        assert_eq!(repaired.written, 0, "{repaired}");
        let waits = |name: &str| {
            repaired.deferred.iter().any(|d| {
                d.starts_with(&format!("{name}: "))
                    && d.contains("still not applied by commerce-stream")
            })
        };
        assert!(
            waits("customer ann OrderCount") && waits("customer bob OrderCount"),
            "{repaired}"
        );
        consumer.catch_up().await;
        // A run begun more than the clocks' slack after the consumer's last write to bob
        // (`Window::why`): one sooner waits for that write, as it should.
        tokio::time::sleep(Duration::from_secs(6)).await;
        let (report, repaired) = repair(&table, &Scan::default(), &watch, wait)
            .await
            .unwrap();
        assert_eq!(
            report
                .drift
                .iter()
                .map(|d| d.0.as_str())
                .collect::<Vec<_>>(),
            ["customer bob OrderCount"],
            "{report}"
        );
        assert_eq!(
            (repaired.written, repaired.deferred.len()),
            (1, 0),
            "{repaired}"
        );
        assert!(
            repaired
                .consumers
                .as_deref()
                .is_some_and(|c| c.starts_with("the consumers had applied")),
            "{repaired}"
        );
        let after = scan_report(&table, &Scan::default()).await.unwrap();
        assert!(after.drift.is_empty(), "{after}");
    }
}
