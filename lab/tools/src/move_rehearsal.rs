//! The online move ([`crate::move_index`]) rehearsed on a local table with traffic running through
//! the store during all of it: what `make move-index REHEARSE=1` measures on the large seed and
//! `lab/tools/tests/move_index.rs` asserts on a small one.
//!
//! - The deployment goes through the move's steps as a stack's `OrderStatusKeys` does
//!   ([`StatusKeys`]): `moving-1` when the first index is declared, `moving-2` when the second
//!   is, `multi-attribute` once both are `ACTIVE`; every reader and writer reads the step at each
//!   request, as functions deployed with it would.
//! - **Readers** walk C4 by status and O10 (one status, and every status merged) page by page,
//!   over customers and reps no writer touches, so each walk has one right answer, known before
//!   the move (from the order headers themselves, scanned). They read GSI1, then (`moving-2`)
//!   each index once they have seen it `ACTIVE`, even in the middle of a walk. A request that
//!   fails, or a walk whose orders differ from the right answer in any way (one missing, one too
//!   many, another order), is counted.
//! - **Writers** place orders and change their statuses (the status projection's store
//!   function), for customers of their own, throughout: the backfill and the cleanup run under
//!   writes, and from `multi-attribute` on they write no GSI1 keys.
//! - The phases, timed: declare and backfill each index, switch, clean up.

use std::{
    collections::BTreeSet,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed},
    },
    time::{Duration, Instant},
};

use commerce::data::{ByStatus, Design, NewOrder, PlaceOutcome, RepOrders, StatusKeys, StatusRead};
use keys::{Date, Id, SortableId, commerce::OrderStatus};
use model::{Item, commerce::Order};
use store::{StoreError, Table};

use crate::move_index::{self, Cleanup, Declared};

/// What the traffic saw.
#[derive(Debug, Default)]
pub struct Traffic {
    /// Pages read, by the design that served them ([`Design::ALL`]'s order).
    pub pages: [AtomicU64; 2],
    /// Walks read to their end.
    pub walks: AtomicU64,
    /// Requests that failed (readers and writers).
    pub failed: AtomicU64,
    /// Walks whose orders were not the right answer.
    pub partial: AtomicU64,
    /// Orders placed and status changes applied by the writers.
    pub writes: AtomicU64,
}

/// The move as rehearsed.
#[derive(Debug)]
pub struct Rehearsal {
    pub declared: Vec<Declared>,
    pub cleanup: Cleanup,
    pub switch: Duration,
    pub cleanup_time: Duration,
    pub total: Duration,
    pub traffic: Arc<Traffic>,
}

/// Every order of a walk of `read`, in order; its pages counted by the design that served them.
async fn walk(
    read: &StatusRead,
    table: &Table,
    keys: impl Fn() -> StatusKeys,
    limit: u32,
    traffic: &Traffic,
) -> Result<Vec<String>, StoreError> {
    let mut ids = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = read.page(table, keys(), limit, start.as_ref()).await?;
        let i = Design::ALL.iter().position(|k| *k == page.served_by);
        traffic.pages[i.expect("a design")].fetch_add(1, Relaxed);
        ids.extend(
            page.items
                .iter()
                .filter_map(|i| i.get(Order::ORDER_ID)?.as_s().ok().cloned()),
        );
        match page.last_key {
            Some(k) => start = Some(k),
            None => return Ok(ids),
        }
    }
}

/// The reads of the rehearsal, each with its answer: the `customers` customers with the most
/// orders (not the writers'), each in its most common status, over all dates; every rep with
/// orders, OPEN and every status merged. The answers come from the order headers as the table
/// holds them (one scan), not from an index: the rehearsal checks both designs against the
/// orders themselves, and can run again on a table it cleaned.
async fn reads(
    table: &Table,
    customers: usize,
) -> Result<Vec<(StatusRead, Vec<String>)>, StoreError> {
    let (from, to) = (
        Date::from_ymd(2000, 1, 1).expect("a date"),
        Date::from_ymd(2099, 12, 31).expect("a date"),
    );
    let writers: Vec<Id> = (0..WRITER_CUSTOMERS).map(writer_customer).collect();
    let mut headers = scan_headers(table).await?;
    headers.retain(|o| !writers.contains(&o.customer_id));
    // Newest first: the order of every read.
    headers.sort_by_key(|h| std::cmp::Reverse(h.order_id));
    let answer = |keep: &dyn Fn(&Order) -> bool| -> Vec<String> {
        headers
            .iter()
            .filter(|o| keep(o))
            .map(|o| o.order_id.to_string())
            .collect()
    };
    let mut by_customer = std::collections::BTreeMap::<&Id, Vec<OrderStatus>>::new();
    let mut reps = BTreeSet::new();
    for o in &headers {
        by_customer
            .entry(&o.customer_id)
            .or_default()
            .push(o.status);
        reps.extend(o.account_rep_id.as_ref());
    }
    let mut busiest: Vec<_> = by_customer.into_iter().collect();
    busiest.sort_by_key(|(_, s)| std::cmp::Reverse(s.len()));
    let corrupt = |e: keys::KeyError| StoreError::Corrupt(e.to_string());
    let mut reads = Vec::new();
    for (customer, statuses) in busiest.into_iter().take(customers) {
        let count = |s: &&OrderStatus| statuses.iter().filter(|t| t == s).count();
        let status = *OrderStatus::ALL.iter().max_by_key(count).expect("a status");
        let read = ByStatus::customer(customer, status, from, to).map_err(corrupt)?;
        let want = answer(&|o| o.customer_id == *customer && o.status == status);
        reads.push((StatusRead::One(read), want));
    }
    for rep in reps {
        let of_rep = |o: &Order| o.account_rep_id.as_ref() == Some(rep);
        let open = ByStatus::rep(rep, OrderStatus::Open, from, to).map_err(corrupt)?;
        let want = answer(&|o| of_rep(o) && o.status == OrderStatus::Open);
        reads.push((StatusRead::One(open), want));
        let every = RepOrders::new(rep, from, to).map_err(corrupt)?;
        reads.push((StatusRead::Every(every), answer(&of_rep)));
    }
    Ok(reads)
}

/// Every order header of the table (one scan, filtered).
async fn scan_headers(table: &Table) -> Result<Vec<Order>, StoreError> {
    let mut orders = Vec::new();
    let mut start = None;
    loop {
        let page = table
            .client()
            .scan()
            .table_name(table.name())
            .filter_expression("#t = :t")
            .expression_attribute_names("#t", model::attr::TYPE)
            .expression_attribute_values(":t", model::s(keys::commerce::types::ORDER_HEADER))
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| StoreError::Dynamo(e.to_string()))?;
        for item in page.items.unwrap_or_default() {
            orders.push(model::from_item::<model::commerce::OrderHeader>(item)?.0);
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok(orders);
        }
    }
}

/// Customers of the writers' own (no rep: no reader's list changes).
const WRITER_CUSTOMERS: usize = 4;

fn writer_customer(n: usize) -> Id {
    Id::parse("customer", &format!("move-writer-{n}")).expect("an id")
}

/// The deployment's step of the move: an index into [`StatusKeys::ALL`], read at each request.
type Step = Arc<AtomicUsize>;

fn step_of(step: &Step) -> StatusKeys {
    StatusKeys::ALL[step.load(Relaxed)]
}

fn set_step(step: &Step, keys: StatusKeys) {
    let i = StatusKeys::ALL.iter().position(|k| *k == keys);
    step.store(i.expect("a step"), Relaxed);
}

/// One writer: places an order for its customer, then moves it on by a status change, each as
/// the deployment's step writes them, until `stop`.
async fn write(
    table: Table,
    n: usize,
    stop: Arc<AtomicBool>,
    deployed: Step,
    traffic: Arc<Traffic>,
) {
    let customer = writer_customer(n);
    let mut step = 0u64;
    while !stop.load(Relaxed) {
        let keys = step_of(&deployed);
        let order = SortableId::new();
        let new = NewOrder {
            customer: customer.clone(),
            order_id: order,
            created_at: keys::Timestamp::from_ms(keys::now_ms()).expect("now"),
            lines: vec![(keys::commerce::Sku::new(1).expect("a sku"), 1, 100)],
            design: ::commerce::data::OrderDesign {
                status_keys: keys,
                ..Default::default()
            },
        };
        let placed = commerce::fixtures::place_order(&table, &new, None).await;
        let moved = match placed {
            Ok(PlaceOutcome::Placed) => {
                step += 1;
                let status = OrderStatus::ALL[(step % 8) as usize];
                let event = SortableId::new();
                commerce::data::apply_order_status(&table, keys, order, event, status)
                    .await
                    .map(|_| ())
            }
            Ok(other) => Err(StoreError::Corrupt(format!("{other:?}"))),
            Err(e) => Err(e),
        };
        match moved {
            Ok(()) => traffic.writes.fetch_add(2, Relaxed),
            Err(_) => traffic.failed.fetch_add(1, Relaxed),
        };
    }
}

/// One reader: walks its reads round and round, each page as the deployment's step reads it,
/// until `stop`.
async fn read(
    table: Table,
    reads: Arc<Vec<(StatusRead, Vec<String>)>>,
    first: usize,
    deployed: Step,
    stop: Arc<AtomicBool>,
    traffic: Arc<Traffic>,
) {
    let mut n = first;
    while !stop.load(Relaxed) {
        let (read, want) = &reads[n % reads.len()];
        n += 1;
        // Small pages: many positions to carry across the switch.
        match walk(read, &table, || step_of(&deployed), 7, &traffic).await {
            Ok(got) if got == *want => {}
            Ok(_) => {
                traffic.partial.fetch_add(1, Relaxed);
            }
            Err(_) => {
                traffic.failed.fetch_add(1, Relaxed);
            }
        }
        traffic.walks.fetch_add(1, Relaxed);
    }
}

/// How the traffic runs: `readers` readers over the `customers` busiest customers and every
/// rep, `writers` writers; with `early`, the deployment is at `moving-2` from the start (readers
/// probing for indexes that do not exist yet: they must read GSI1 until each can be read), else
/// it follows the indexes as a stack's updates do.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub readers: usize,
    pub writers: usize,
    pub customers: usize,
    pub early: bool,
    /// Writers run while the indexes are declared too. DynamoDB Local 3.3.0 races writes
    /// against an UpdateTable that adds an index (a write fails with a 500; once, an index
    /// stayed CREATING), so `make test` starts its writers once both indexes are declared.
    pub write_while_declaring: bool,
}

/// Rehearses the move on `table` (DynamoDB Local, without the two orders indexes, or with them:
/// then only the switch and the cleanup run) under `load`, the indexes declared as `template`
/// (the template deployed with `OrderStatusKeys=multi-attribute`) declares them. `progress`
/// hears each index state.
pub async fn rehearse(
    table: &Table,
    template: &sam_template::Table,
    load: Load,
    mut progress: impl FnMut(&move_index::IndexState),
) -> Result<Rehearsal, StoreError> {
    let Load {
        readers,
        writers,
        customers,
        early,
        ..
    } = load;
    for n in 0..writers.min(WRITER_CUSTOMERS) {
        commerce::data::put_customer(
            table,
            table,
            &writer_customer(n),
            "Writer",
            "writer@example.com",
            commerce::data::RepChange::Keep,
            keys::Timestamp::from_ms(keys::now_ms()).expect("now"),
        )
        .await?;
    }
    let reads = Arc::new(reads(table, customers).await?);
    let traffic = Arc::new(Traffic::default());
    let (stop, deployed) = (Arc::new(AtomicBool::new(false)), Step::default());
    if early {
        set_step(&deployed, StatusKeys::Moving2);
    }
    let mut tasks = Vec::new();
    for n in 0..readers {
        let args = (
            reads.clone(),
            deployed.clone(),
            stop.clone(),
            traffic.clone(),
        );
        tasks.push(tokio::spawn(read(
            table.clone(),
            args.0,
            n,
            args.1,
            args.2,
            args.3,
        )));
    }
    let spawn_writers = || {
        (0..writers.min(WRITER_CUSTOMERS))
            .map(|n| {
                let (stop, deployed) = (stop.clone(), deployed.clone());
                tokio::spawn(write(table.clone(), n, stop, deployed, traffic.clone()))
            })
            .collect::<Vec<_>>()
    };
    if load.write_while_declaring {
        tasks.extend(spawn_writers());
    }
    let started = Instant::now();
    let client = table.client();
    let moved = async {
        // Steps 1 and 2, as two stack updates: each declares one index (CloudFormation creates
        // one per update, and deploys the functions after the table), then waits for it.
        let steps = [StatusKeys::Moving1, StatusKeys::Moving2];
        let deploy = |i: usize| {
            if !early {
                set_step(&deployed, steps[i]);
            }
        };
        let declared =
            move_index::declare_all(client, table.name(), template, deploy, &mut progress).await?;
        if !load.write_while_declaring {
            tasks.extend(spawn_writers());
        }
        // Step 3: multi-attribute: the writers stop writing GSI1 keys, the readers (each on its
        // index since it saw it ACTIVE) read the indexes without asking.
        let switching = Instant::now();
        set_step(&deployed, StatusKeys::MultiAttribute);
        let switch = switching.elapsed();
        let cleaning = Instant::now();
        let cleanup = move_index::cleanup(client, table.name(), false, |_| {}).await?;
        Ok::<_, StoreError>((declared, switch, cleanup, cleaning.elapsed()))
    }
    .await;
    let total = started.elapsed();
    stop.store(true, Relaxed);
    for task in tasks {
        task.await
            .map_err(|e| StoreError::Corrupt(format!("a traffic task: {e}")))?;
    }
    let (declared, switch, cleanup, cleanup_time) = moved?;
    // Every read once more, after the cleanup, from the multi-attribute indexes alone.
    for (read, want) in reads.iter() {
        let got = walk(read, table, || StatusKeys::MultiAttribute, 7, &traffic).await?;
        if got != *want {
            traffic.partial.fetch_add(1, Relaxed);
        }
        traffic.walks.fetch_add(1, Relaxed);
    }
    Ok(Rehearsal {
        declared,
        cleanup,
        switch,
        cleanup_time,
        total,
        traffic,
    })
}

/// The rehearsal as a Markdown table (what docs/key-designs.md quotes).
pub fn report(r: &Rehearsal, load: Load) -> String {
    let Load {
        readers, writers, ..
    } = load;
    let t = &r.traffic;
    let secs = |d: Duration| format!("{:.2} s", d.as_secs_f64());
    let mut out = String::from("| phase | time | what it did |\n|---|---|---|\n");
    for d in &r.declared {
        out += &format!(
            "| declare and backfill {} | {} | {}, {} items |\n",
            d.name,
            secs(d.backfill),
            if d.created {
                "UpdateTable"
            } else {
                "already there"
            },
            d.item_count.map_or("?".into(), |n| n.to_string())
        );
    }
    out += &format!(
        "| switch to multi-attribute | {} | the writers stop writing GSI1 keys; every reader reads the indexes |\n",
        secs(r.switch)
    );
    let c = &r.cleanup;
    out += &format!(
        "| clean up | {} | GSI1 keys removed from {} headers and {} summaries ({} skipped); {:.1} write units on the table, {}; {:.1} read units for the index scan |\n",
        secs(r.cleanup_time),
        c.headers,
        c.summaries,
        c.skipped,
        c.table_write_units,
        crate::move_index::units(&c.index_write_units),
        c.read_units
    );
    out += &format!("| **total** | {} | |\n\n", secs(r.total));
    out += &format!(
        "Traffic during the move ({readers} readers, {writers} writers): {} walks, {} pages from GSI1 and {} from the multi-attribute indexes, {} writes; **{} requests failed, {} walks answered a partial or wrong list**.\n",
        t.walks.load(Relaxed),
        t.pages[0].load(Relaxed),
        t.pages[1].load(Relaxed),
        t.writes.load(Relaxed),
        t.failed.load(Relaxed),
        t.partial.load(Relaxed)
    );
    out
}
