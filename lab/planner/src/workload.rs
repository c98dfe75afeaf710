//! A workload file (YAML): how many of each entity, how popular each is, requests per second per
//! access pattern over a day, and the key design's parameters. A mistake is reported with its
//! line and the path of the field (`line 12, field patterns[2].id: ...`).

use std::{collections::BTreeMap, path::Path};

use serde::{Deserialize, Deserializer, de::Error as _};

/// One workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// How traffic moves over a UTC day (every pattern's, unless it has its own).
    #[serde(default)]
    pub daily: Daily,
    pub entities: Entities,
    /// The key design's parameters; the template's defaults where absent.
    #[serde(default)]
    pub design: Design,
    /// Average item sizes in bytes that the workload states instead of measuring the model's
    /// items (seed 003 states 250 bytes for an order entity), by entity name.
    #[serde(default)]
    pub item_bytes: BTreeMap<ItemKind, u64>,
    #[serde(default)]
    pub stream: Stream,
    /// Plan for the populations this many months from now, each grown by its
    /// `growth_per_month` (0: as they are today).
    #[serde(default)]
    pub horizon_months: u32,
    pub patterns: Vec<PatternLoad>,
}

/// The populations the patterns draw from.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entities {
    pub customers: Option<Population>,
    pub products: Option<Population>,
    pub orders: Option<Population>,
    pub reps: Option<Population>,
    pub books: Option<Population>,
    pub users: Option<Population>,
    pub students: Option<Population>,
    pub courses: Option<Population>,
}

/// Which population a draw comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entity {
    Customers,
    Products,
    Orders,
    Reps,
    Books,
    Users,
    Students,
    Courses,
}

impl Entity {
    pub fn name(self) -> &'static str {
        match self {
            Entity::Customers => "customers",
            Entity::Products => "products",
            Entity::Orders => "orders",
            Entity::Reps => "reps",
            Entity::Books => "books",
            Entity::Users => "users",
            Entity::Students => "students",
            Entity::Courses => "courses",
        }
    }
}

impl Entities {
    pub fn get(&self, e: Entity) -> Option<&Population> {
        match e {
            Entity::Customers => self.customers.as_ref(),
            Entity::Products => self.products.as_ref(),
            Entity::Orders => self.orders.as_ref(),
            Entity::Reps => self.reps.as_ref(),
            Entity::Books => self.books.as_ref(),
            Entity::Users => self.users.as_ref(),
            Entity::Students => self.students.as_ref(),
            Entity::Courses => self.courses.as_ref(),
        }
    }
}

/// How many there are, how they grow, and how popular each is.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Population {
    #[serde(deserialize_with = "positive_count")]
    pub count: u64,
    /// Growth per month as a fraction (0.02: 2% a month); the plan is for the count today.
    #[serde(default)]
    pub growth_per_month: f64,
    #[serde(default)]
    pub popularity: Popularity,
    /// Orders: the fraction in the OPEN state at any time (seed 003: 20%).
    #[serde(default)]
    pub open_fraction: Option<f64>,
}

/// Which of a population a request touches: uniform, or Zipf's law with exponent `zipf` (the
/// rank-k one with probability k^-s / H(N, s)); `viral` puts that share of every request on the
/// first one first (a viral product or book), the rest by the law.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Popularity {
    #[serde(default, deserialize_with = "exponent")]
    pub zipf: Option<f64>,
    #[serde(default, deserialize_with = "share")]
    pub viral: Option<f64>,
}

/// How rates move over a UTC day: `hours`, 24 multipliers (UTC hours 0 to 23), or `peak`, a
/// smooth day; flat (1 all day) without either.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Daily {
    #[serde(default, deserialize_with = "hours")]
    pub hours: Option<Vec<f64>>,
    #[serde(default)]
    pub peak: Option<Peak>,
}

/// A day peaking at `hour` with `peak` times the base rate, and `trough` times it twelve hours
/// later.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Peak {
    #[serde(deserialize_with = "hour")]
    pub hour: u32,
    pub peak: f64,
    pub trough: f64,
}

impl Daily {
    /// The multiplier of each UTC hour.
    pub fn curve(&self) -> [f64; 24] {
        match (&self.hours, &self.peak) {
            (Some(h), _) => std::array::from_fn(|i| h[i]),
            (None, Some(Peak { hour, peak, trough })) => std::array::from_fn(|i| {
                let from_peak = (i as f64 - f64::from(*hour)) * std::f64::consts::TAU / 24.0;
                trough + (peak - trough) * (1.0 + from_peak.cos()) / 2.0
            }),
            (None, None) => [1.0; 24],
        }
    }
}

/// Parameters of the key design that the workload may change (a plan for another design).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Design {
    /// GSI2 `ORDERS#<shard>` partitions (template `OrderStatusShards`).
    #[serde(default, deserialize_with = "shards")]
    pub order_status_shards: Option<u32>,
    /// Shards of units sold and daily stats (template `AggregateShards`).
    #[serde(default, deserialize_with = "shards")]
    pub aggregate_shards: Option<u32>,
}

/// The stream and its consumers.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stream {
    /// Stream shards (DynamoDB keeps about one per table partition).
    #[serde(default = "Stream::default_shards")]
    pub shards: u32,
    /// Records per batch (the mappings' `BatchSize`).
    #[serde(default = "Stream::default_batch")]
    pub batch_size: u32,
}

impl Stream {
    fn default_shards() -> u32 {
        4
    }
    fn default_batch() -> u32 {
        100
    }
}

impl Default for Stream {
    fn default() -> Self {
        Stream {
            shards: Self::default_shards(),
            batch_size: Self::default_batch(),
        }
    }
}

/// Item kinds whose size a workload may state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Customer,
    Order,
    OrderLine,
    Product,
    Review,
    Book,
    User,
    Certificate,
}

/// One access pattern's traffic.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternLoad {
    /// The catalogue's ID (`C3`, `O5`, `L11`) or, for a pattern it does not number, the function's
    /// name (`issue-certificate`).
    #[serde(deserialize_with = "pattern_id")]
    pub id: String,
    /// Requests per second at a multiplier of 1.
    pub rps: f64,
    /// Its own day, if it differs from the workload's.
    #[serde(default)]
    pub daily: Option<Daily>,
    /// Reads: items one call reads (O5 reading every OPEN order: the seed's MaxRequiredIO).
    #[serde(default)]
    pub items: Option<u64>,
    /// C3: lines per order.
    #[serde(default)]
    pub lines: Option<u32>,
    /// C3: the share of orders placed under an account rep.
    #[serde(default)]
    pub rep_share: Option<f64>,
    /// The popularity of what this pattern touches, when it differs from its population's.
    #[serde(default)]
    pub popularity: BTreeMap<String, Popularity>,
}

#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("{file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
}

impl Workload {
    pub fn load(path: &Path) -> Result<Workload, WorkloadError> {
        let text = std::fs::read_to_string(path).map_err(|source| WorkloadError::Io {
            file: path.display().to_string(),
            source,
        })?;
        Workload::parse(&text).map_err(|message| WorkloadError::Invalid {
            file: path.display().to_string(),
            message,
        })
    }

    /// Parses a workload; the error names the line and the field.
    pub fn parse(text: &str) -> Result<Workload, String> {
        let de = serde_yaml::Deserializer::from_str(text);
        let w: Workload = serde_path_to_error::deserialize(de).map_err(|e| {
            let field = e.path().to_string();
            let inner = e.inner();
            let line = inner
                .location()
                .map_or(String::new(), |l| format!("line {}, ", l.line()));
            // serde_yaml writes the path and its own position too; both are already in front.
            let message = inner.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            // serde_yaml names the path down to the enclosing value: `patterns[1]: ...`.
            let message = match message.split_once(": ") {
                Some((path, rest)) if !path.contains(' ') && field.starts_with(path) => rest,
                _ => message,
            }
            .to_owned();
            format!("{line}field {field}: {message}")
        })?;
        w.check()?;
        Ok(w.grown())
    }

    /// The populations at the horizon: each count times (1 + growth)^months.
    fn grown(mut self) -> Workload {
        let months = i32::try_from(self.horizon_months).unwrap_or(i32::MAX);
        let e = &mut self.entities;
        for p in [
            &mut e.customers,
            &mut e.products,
            &mut e.orders,
            &mut e.reps,
            &mut e.books,
            &mut e.users,
            &mut e.students,
            &mut e.courses,
        ]
        .into_iter()
        .flatten()
        {
            p.count = (p.count as f64 * (1.0 + p.growth_per_month).powi(months)).round() as u64;
        }
        self
    }

    /// What the types cannot say: every population a pattern draws from is declared.
    fn check(&self) -> Result<(), String> {
        let days = std::iter::once(("daily".to_owned(), &self.daily)).chain(
            self.patterns.iter().enumerate().filter_map(|(i, p)| {
                p.daily
                    .as_ref()
                    .map(|d| (format!("patterns[{i}].daily"), d))
            }),
        );
        for (field, d) in days {
            if d.hours.is_some() && d.peak.is_some() {
                return Err(format!("field {field}: hours or peak, not both"));
            }
        }
        for (i, p) in self.patterns.iter().enumerate() {
            for e in draws_from(&p.id) {
                if self.entities.get(*e).is_none() {
                    return Err(format!(
                        "field patterns[{i}].id: {} draws from {}, which entities does not declare",
                        p.id,
                        e.name()
                    ));
                }
            }
            for name in p.popularity.keys() {
                if !draws_from(&p.id).iter().any(|e| e.name() == name) {
                    return Err(format!(
                        "field patterns[{i}].popularity.{name}: {} draws from no {name}",
                        p.id
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn population(&self, e: Entity) -> &Population {
        self.entities
            .get(e)
            .expect("checked when the workload was read")
    }

    /// The popularity of `e` as pattern `p` sees it.
    pub fn popularity(&self, p: &PatternLoad, e: Entity) -> Popularity {
        p.popularity
            .get(e.name())
            .copied()
            .unwrap_or(self.population(e).popularity)
    }

    pub fn curve(&self, p: &PatternLoad) -> [f64; 24] {
        p.daily.as_ref().unwrap_or(&self.daily).curve()
    }
}

fn positive_count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let n = u64::deserialize(d)?;
    if n == 0 {
        return Err(D::Error::custom("a population of at least 1"));
    }
    Ok(n)
}

fn exponent<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let s = f64::deserialize(d)?;
    if !(0.0..=5.0).contains(&s) {
        return Err(D::Error::custom(format!(
            "a Zipf exponent from 0 to 5, found {s}"
        )));
    }
    Ok(Some(s))
}

fn share<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let s = f64::deserialize(d)?;
    if !(0.0..=1.0).contains(&s) {
        return Err(D::Error::custom(format!("a share from 0 to 1, found {s}")));
    }
    Ok(Some(s))
}

fn hours<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<f64>>, D::Error> {
    let h = Vec::<f64>::deserialize(d)?;
    if h.len() != 24 || h.iter().any(|m| *m < 0.0) {
        return Err(D::Error::custom(format!(
            "24 multipliers, one per UTC hour, none negative; found {}",
            h.len()
        )));
    }
    Ok(Some(h))
}

fn hour<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let h = u32::deserialize(d)?;
    if h > 23 {
        return Err(D::Error::custom(format!("a UTC hour, 0 to 23, found {h}")));
    }
    Ok(h)
}

fn shards<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let n = u32::deserialize(d)?;
    if n == 0 || n > keys::Shard::MAX_COUNT {
        return Err(D::Error::custom(format!(
            "a shard count from 1 to {}, found {n}",
            keys::Shard::MAX_COUNT
        )));
    }
    Ok(Some(n))
}

/// The patterns the planner models, by catalogue ID or function name.
pub const MODELLED: &[&str] = &[
    "C1",
    "C3",
    "C5",
    "C6",
    "O5",
    "O8",
    "O13",
    "O14",
    "get-product-sales",
    "get-daily-stats",
    "R1",
    "R2",
    "R3",
    "L11",
    "issue-certificate",
];

pub fn modelled(id: &str) -> bool {
    MODELLED.contains(&id)
}

/// The populations a pattern draws what it touches from.
pub fn draws_from(id: &str) -> &'static [Entity] {
    match id {
        "C1" => &[Entity::Customers],
        "C3" => &[Entity::Customers, Entity::Products],
        "C5" | "C6" => &[Entity::Orders],
        "O5" => &[Entity::Orders],
        "O8" | "O13" | "get-product-sales" => &[Entity::Products],
        "O14" => &[Entity::Reps],
        "R1" => &[Entity::Books],
        "R2" => &[Entity::Users],
        "R3" => &[Entity::Books, Entity::Users],
        "issue-certificate" => &[Entity::Students, Entity::Courses],
        _ => &[],
    }
}

/// A pattern the catalogue declares and the planner models; any other is named in the error.
fn pattern_id<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let id = String::deserialize(d)?;
    if modelled(&id) {
        return Ok(id);
    }
    let known = catalogue::PATTERNS
        .iter()
        .any(|p| p.id == id || p.function == id);
    Err(D::Error::custom(if known {
        format!(
            "{id} is in the catalogue but the planner does not model it yet (it models {})",
            MODELLED.join(", ")
        )
    } else {
        format!(
            "no access pattern {id} in the catalogue (docs/access-patterns.md); the planner models {}",
            MODELLED.join(", ")
        )
    }))
}
