//! The same data in each deployment of the layout and index questions (docs/one-table-or-many.md):
//! `make compare` loads the seeds and seed 003's org (and with `SIZE=medium` or `large` a
//! generated volume) into fresh tables made from the template for each deployment, with the
//! template's stream handlers running on them (`pipeline`: the counts are derived as on AWS),
//! then reports what DynamoDB Local billed for the load, what each table and index holds, entity
//! by entity, what each stream mapping read, handed over and cost its consumer, and what R2 and O8
//! cost when every user's reviews and every product's order lines are read, page by page, through
//! their handlers.
//!
//! Item and entry bytes are DynamoDB's item-size arithmetic over a scan (`devkit::item_size`, the
//! size the meter bills; `devkit::index_entry_size`: a keys-only index's entry holds the table's
//! keys and the index's), the stream consumers' marks on the targets included.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::Client;
use keys::indexes::IndexDesign;
use sam_template::{Template, layout};
use store::{Deps, INDEX_DESIGN, StoreError, Table};

use crate::{
    layout::Tables,
    pipeline::{Pipeline, Streamed},
    volume::{self, Volume},
};

/// One deployment: a layout and an index design.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deployment {
    pub layout: &'static str,
    pub design: IndexDesign,
}

impl Deployment {
    pub fn name(self) -> String {
        format!("{}, {}", self.layout, self.design.as_str())
    }

    fn parameters(self) -> [(&'static str, &'static str); 2] {
        [
            (layout::PARAMETER, self.layout),
            (IndexDesign::PARAMETER, self.design.as_str()),
        ]
    }
}

/// The deployments compared: the seeds' (one table, GSI1 overloaded), a table per context, and
/// R2 on an index of its own.
pub const DEPLOYMENTS: [Deployment; 3] = [
    Deployment {
        layout: layout::ONE_TABLE,
        design: IndexDesign::Overloaded,
    },
    Deployment {
        layout: layout::TABLE_PER_CONTEXT,
        design: IndexDesign::Overloaded,
    },
    Deployment {
        layout: layout::ONE_TABLE,
        design: IndexDesign::Dedicated,
    },
];

/// What one deployment held and cost.
#[derive(Debug, Clone)]
pub struct Measured {
    pub deployment: Deployment,
    /// Write units DynamoDB Local reported for loading the data (tables and indexes).
    pub load_write_units: f64,
    /// By (table's logical id, `table` or an index's name, entity type): entries and bytes.
    pub held: BTreeMap<(String, String, String), (usize, usize)>,
    /// R2 for every user (pages of 10): requests, read units, reviews shown, pages.
    pub r2: [f64; 4],
    /// O8 for every product (pages of 10): requests, read units, lines and inventories shown,
    /// pages.
    pub o8: [f64; 4],
    /// What the stream handlers were handed and spent deriving the load's counts.
    pub streamed: Streamed,
}

impl Measured {
    /// Entries and bytes of `index` (`table` for the tables' items) in every table, all entities.
    pub fn total(&self, index: &str) -> (usize, usize) {
        self.held
            .iter()
            .filter(|((_, i, _), _)| i == index)
            .fold((0, 0), |(n, b), (_, (en, eb))| (n + en, b + eb))
    }

    /// Entries of `entity` in `index` (every table).
    pub fn entries(&self, index: &str, entity: &str) -> usize {
        self.held
            .iter()
            .filter(|((_, i, e), _)| i == index && e == entity)
            .map(|(_, (n, _))| n)
            .sum()
    }
}

/// Loads the data into fresh tables of `deployment`, named after `base`, measures them and
/// deletes them: the
/// seeds, seed 003's org with `org_orders` orders (`org::ORDERS` in `make compare`), and
/// `volume` if given.
pub async fn measure(
    client: &Client,
    base: &str,
    deployment: Deployment,
    org_orders: u64,
    volume: Option<&Volume>,
) -> Result<Measured, StoreError> {
    let template = Template::workspace_with(&deployment.parameters())
        .map_err(|e| StoreError::Config(e.to_string()))?;
    for declared in &template.tables {
        let name = sam_template::local_table_name(base, &declared.logical_id);
        devkit::create_table(client, &name, declared)
            .await
            .map_err(|e| StoreError::Config(e.to_string()))?;
    }
    // The derived values are the stream handlers', as on AWS: they run while the data loads.
    let pipeline = Pipeline::start(&template, base, &deployment.parameters()).await?;
    let table = Table::new(client.clone(), base).recording();
    let tables = Tables::of_layout(&table, deployment.layout)
        .map_err(|e| StoreError::Config(e.to_string()))?;
    crate::seed::load_into_as(&tables, deployment.design).await?;
    crate::org::load_into_as(&tables, org_orders, deployment.design).await?;
    if let Some(v) = volume {
        volume::load_into_as(&tables, v, deployment.design, |_, _| {}).await?;
    }
    let load_write_units = table.meter().requests().iter().map(|r| r.write_units).sum();
    let loaded = std::time::Instant::now();
    let streamed = pipeline.drain(DRAIN_TIMEOUT).await?;
    eprintln!(
        "{}: the stream handlers caught up {:.1} s after the load",
        deployment.name(),
        loaded.elapsed().as_secs_f64()
    );

    let mut held = BTreeMap::new();
    let (mut users, mut products) = (Vec::new(), Vec::new());
    for declared in &template.tables {
        let name = sam_template::local_table_name(base, &declared.logical_id);
        let items: Vec<_> = devkit::all_items(&Table::new(client.clone(), &name)).await;
        for item in &items {
            let entity = model::type_of(item).unwrap_or("?").to_owned();
            if entity == keys::reviews::types::USER {
                users.push(
                    item["Username"]
                        .as_s()
                        .map_err(|_| corrupt("Username"))?
                        .clone(),
                );
            }
            if entity == keys::commerce::types::PRODUCT {
                let sku = item["Sku"].as_n().map_err(|_| corrupt("Sku"))?;
                products.push(sku.clone());
            }
            let mut add = |index: &str, bytes: usize| {
                let at = (
                    declared.logical_id.clone(),
                    index.to_owned(),
                    entity.clone(),
                );
                let (n, b) = held.entry(at).or_insert((0, 0));
                *n += 1;
                *b += bytes;
            };
            add("table", devkit::item_size(item));
            for index in &declared.global_indexes {
                if !index.key.attributes().all(|a| item.contains_key(a)) {
                    continue;
                }
                add(&index.name, devkit::index_entry_size(item, declared, index));
            }
        }
    }
    let r2 = read_every(
        &tables.reviews,
        deployment.design,
        (
            &::reviews::get_user::FUNCTION,
            ::reviews::get_user::handle,
            &["reviews"],
        ),
        &users,
    )
    .await?;
    let o8 = read_every(
        &tables.commerce,
        deployment.design,
        (
            &::commerce::list_product_order_items::FUNCTION,
            ::commerce::list_product_order_items::handle,
            &["inventories", "orderItems"],
        ),
        &products,
    )
    .await?;
    // DynamoDB Local slows down with every item it holds: a large set left behind slows
    // whatever runs next on the same instance.
    for declared in &template.tables {
        let name = sam_template::local_table_name(base, &declared.logical_id);
        client
            .delete_table()
            .table_name(name)
            .send()
            .await
            .map_err(|e| StoreError::Dynamo(e.to_string()))?;
    }
    Ok(Measured {
        deployment,
        load_write_units,
        held,
        r2,
        o8,
        streamed,
    })
}

/// How long the stream handlers may take to derive a load: the large one takes minutes.
const DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3600);

fn corrupt(attribute: &str) -> StoreError {
    StoreError::Corrupt(format!("an item without its {attribute}"))
}

/// `function`'s read (`handle`) for each of `subjects` (its path's one parameter), every page of
/// 10, in `design`: requests, read units (table and indexes, billed by `devkit::bill`), entries
/// shown in the answers'
/// `lists`, pages.
async fn read_every<F, Fut>(
    table: &Table,
    design: IndexDesign,
    (function, handle, lists): (&'static api::Function, F, &[&str]),
    subjects: &[String],
) -> Result<[f64; 4], StoreError>
where
    F: Fn(&'static Deps, api::declare::Request) -> Fut + Copy + 'static,
    Fut: Future<Output = Result<api::declare::Response<api::declare::Body>, api::ApiError>>
        + 'static,
{
    let table = table.named(table.name()).recording();
    let deps = Deps::new(table.clone(), function.needs, testkit::TEST_CURSOR_KEY, 1)?
        .with_setting(&INDEX_DESIGN, design.as_str())?;
    let h = testkit::Harness::with_deps(function, handle, deps);
    let (mut shown, mut pages) = (0usize, 0usize);
    for subject in subjects {
        let walked = testkit::walk_pages("10", async |q| {
            let (status, body) = h.as_staff().get(&h.path(&[subject]), q).await;
            assert_eq!(status, 200, "{} of {subject}: {body}", function.name);
            body
        })
        .await;
        pages += walked.len();
        shown += walked
            .iter()
            .flat_map(|p| lists.iter().map(move |l| &p[*l]))
            .map(|l| l.as_array().map_or(0, Vec::len))
            .sum::<usize>();
    }
    let requests = table.meter().requests();
    // As DynamoDB bills them (`devkit::bill`), not as DynamoDB Local reports them.
    let units = requests.iter().map(devkit::request_read_units).sum();
    Ok([requests.len() as f64, units, shown as f64, pages as f64])
}

/// The report, in Markdown: the load, what each index holds per entity, and R2.
pub fn report(measured: &[Measured]) -> String {
    let shown: Vec<&str> = std::iter::once("GSI1")
        .chain(IndexDesign::Dedicated.indexes().iter().copied())
        .collect();
    let mut out = String::from("| deployment | write units to load | items | item bytes |");
    for index in &shown {
        out.push_str(&format!(" {index}: entries, bytes |"));
    }
    out.push_str(" every index's bytes |\n|---|---|---|---|");
    out.push_str(&"---|".repeat(shown.len() + 1));
    out.push('\n');
    for m in measured {
        let (items, bytes) = m.total("table");
        out.push_str(&format!(
            "| {} | {} | {items} | {bytes} |",
            m.deployment.name(),
            m.load_write_units,
        ));
        for index in &shown {
            let (n, b) = m.total(index);
            out.push_str(&format!(" {n}, {b} |"));
        }
        let indexes: usize = m
            .held
            .iter()
            .filter(|((_, i, _), _)| i != "table")
            .map(|(_, (_, b))| b)
            .sum();
        out.push_str(&format!(" {indexes} |\n"));
    }
    out.push_str(
        "\n| deployment | table | index | entity | entries | bytes |\n|---|---|---|---|---|---|\n",
    );
    for m in measured {
        for ((table, index, entity), (n, b)) in &m.held {
            out.push_str(&format!(
                "| {} | `{table}` | {index} | {entity} | {n} | {b} |\n",
                m.deployment.name()
            ));
        }
    }
    for (pattern, subjects, per, of) in [
        ("R2", "users' pages", "reviews shown", "100 reviews"),
        (
            "O8",
            "products' pages",
            "lines and inventories shown",
            "100 shown",
        ),
    ] {
        out.push_str(&format!(
            "\n| deployment | {pattern}: {subjects} | requests | read units | {per} | read units per {of} |\n|---|---|---|---|---|---|\n"
        ));
        for m in measured {
            let [requests, units, shown, pages] = if pattern == "R2" { m.r2 } else { m.o8 };
            out.push_str(&format!(
                "| {} | {pages} | {requests} | {units} | {shown} | {:.1} |\n",
                m.deployment.name(),
                units * 100.0 / shown.max(1.0)
            ));
        }
    }
    out.push_str(
        "\n| deployment | mapping | table | records read | handed over | filtered out | invocations | records per invocation (batch size) | consumer's requests | read units | write units |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for m in measured {
        for (name, s) in &m.streamed.mappings {
            let spent = m
                .streamed
                .spent
                .get(&s.function)
                .copied()
                .unwrap_or_default();
            out.push_str(&format!(
                "| {} | {name} | `{}` | {} | {} | {} | {} | {:.1} ({}) | {} | {} | {} |\n",
                m.deployment.name(),
                s.table,
                s.delivered + s.filtered_out,
                s.delivered,
                s.filtered_out,
                s.invocations,
                s.delivered / s.invocations.max(1.0),
                s.batch_size,
                spent.requests,
                spent.read_units,
                spent.write_units,
            ));
        }
    }
    out
}
