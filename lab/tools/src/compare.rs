//! The same data in each deployment of the layout and index questions (docs/one-table-or-many.md):
//! `make compare` loads the seeds and seed 003's org (and with `SIZE=large` the generated volume)
//! into fresh tables made from the template for each deployment, then reports what DynamoDB
//! Local billed for the load, what each table and index holds, entity by entity, and what R2
//! costs when every user's reviews are read, page by page, through get-user's handler.
//!
//! Item and entry bytes are DynamoDB's item-size arithmetic over a scan (`devkit::item_size`, the
//! size the meter bills; `devkit::index_entry_size`: a keys-only index's entry holds the table's
//! keys and the index's).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::Client;
use keys::indexes::IndexDesign;
use sam_template::{Template, layout};
use store::{Deps, INDEX_DESIGN, StoreError, Table};

use crate::{
    layout::Tables,
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
    let table = Table::new(client.clone(), base).recording();
    let tables = Tables::of_layout(&table, deployment.layout)
        .map_err(|e| StoreError::Config(e.to_string()))?;
    crate::seed::load_into_as(&tables, deployment.design).await?;
    crate::org::load_into_as(&tables, org_orders, deployment.design).await?;
    if let Some(v) = volume {
        volume::load_into_as(&tables, v, deployment.design, |_, _| {}).await?;
    }
    let load_write_units = table.meter().requests().iter().map(|r| r.write_units).sum();

    let mut held = BTreeMap::new();
    let mut users = Vec::new();
    for declared in &template.tables {
        let name = sam_template::local_table_name(base, &declared.logical_id);
        let items = devkit::all_items(&Table::new(client.clone(), &name)).await;
        for item in &items {
            let entity = model::type_of(item).unwrap_or("?").to_owned();
            if entity == keys::reviews::types::USER {
                users.push(item["Username"].as_s().map_err(|_| corrupt())?.clone());
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
    let r2 = read_every_user(&tables.reviews, deployment.design, &users).await?;
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
    })
}

fn corrupt() -> StoreError {
    StoreError::Corrupt("a user without a Username".into())
}

/// R2 for each of `users`, every page of 10, through get-user's handler in `design`: requests,
/// read units (table and indexes), reviews shown, pages.
async fn read_every_user(
    reviews: &Table,
    design: IndexDesign,
    users: &[String],
) -> Result<[f64; 4], StoreError> {
    use ::reviews::get_user;
    let table = reviews.named(reviews.name()).recording();
    let deps = Deps::new(
        table.clone(),
        get_user::FUNCTION.needs,
        testkit::TEST_CURSOR_KEY,
        1,
    )?
    .with_setting(&INDEX_DESIGN, design.as_str())?;
    let h = testkit::Harness::with_deps(&get_user::FUNCTION, get_user::handle, deps);
    let (mut shown, mut pages) = (0usize, 0usize);
    for user in users {
        let walked = testkit::walk_pages("10", async |q| {
            let (status, body) = h.as_staff().get(&h.path(&[user]), q).await;
            assert_eq!(status, 200, "R2 of {user}: {body}");
            body
        })
        .await;
        pages += walked.len();
        shown += walked
            .iter()
            .map(|p| p["reviews"].as_array().map_or(0, Vec::len))
            .sum::<usize>();
    }
    let requests = table.meter().requests();
    let units = requests
        .iter()
        .map(|r| r.read_units + r.index_read_units)
        .sum();
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
    out.push_str("\n| deployment | R2: users' pages | requests | read units | reviews shown | read units per 100 reviews |\n|---|---|---|---|---|---|\n");
    for m in measured {
        let [requests, units, shown, pages] = m.r2;
        out.push_str(&format!(
            "| {} | {pages} | {requests} | {units} | {shown} | {:.1} |\n",
            m.deployment.name(),
            units * 100.0 / shown.max(1.0)
        ));
    }
    out
}
