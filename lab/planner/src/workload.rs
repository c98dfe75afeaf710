//! A workload file (YAML): how many of each entity, how popular each is, requests per second per
//! access pattern over a day, and the key design's parameters. A mistake is reported with its
//! line and the path of the field (`line 12, field patterns[2].id: ...`).

use std::{collections::BTreeMap, path::Path};

use serde::{Deserialize, Deserializer, de::Error as _};

pub use crate::entity::Entity;

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
    /// Lambda's figures the workload knows better than the planner.
    #[serde(default)]
    pub lambda: Lambda,
    /// API Gateway's figures the workload knows better than the planner.
    #[serde(default)]
    pub gateway: Gateway,
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
    pub employees: Option<Population>,
    pub warehouses: Option<Population>,
    pub carts: Option<Population>,
    /// HR's reference data: jobs, departments, locations, countries, regions.
    pub references: Option<Population>,
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
            Entity::Employees => self.employees.as_ref(),
            Entity::Warehouses => self.warehouses.as_ref(),
            Entity::Carts => self.carts.as_ref(),
            Entity::References => self.references.as_ref(),
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
    /// One table, or a table per context (template `TableLayout`): with a table per context
    /// the plan also gives each table's peaks against the table limits.
    #[serde(default)]
    pub table_layout: TableLayout,
    /// Which indexes serve R2 and O8 (template `IndexDesign`): GSI1 overloaded, or an index of
    /// their own each.
    #[serde(default, deserialize_with = "index_design")]
    pub index_design: Option<keys::indexes::IndexDesign>,
}

/// The template's `TableLayout`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableLayout {
    #[default]
    OneTable,
    TablePerContext,
}

/// The stream and its consumers.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stream {
    /// Stream shards (DynamoDB keeps about one per table partition).
    #[serde(default = "Stream::default_shards")]
    pub shards: u32,
    /// Records per batch: the mappings' `BatchSize` in `template.yaml` without it (a what-if
    /// with it).
    #[serde(default)]
    pub batch_size: Option<u32>,
    /// Seconds a mapping gathers records before it invokes with less than a full batch: the
    /// mappings' `MaximumBatchingWindowInSeconds` in `template.yaml` without it.
    #[serde(default)]
    pub batching_window_seconds: Option<f64>,
}

impl Stream {
    fn default_shards() -> u32 {
        4
    }
}

impl Default for Stream {
    fn default() -> Self {
        Stream {
            shards: Self::default_shards(),
            batch_size: None,
            batching_window_seconds: None,
        }
    }
}

/// Lambda's figures a workload may give: durations measured on AWS (a function's warm call, a
/// consumer's batch, in ms) and the account's concurrency quota in the region.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lambda {
    #[serde(default)]
    pub durations_ms: BTreeMap<String, f64>,
    #[serde(default)]
    pub concurrency_quota: Option<u32>,
}

/// API Gateway's figures a workload may give: the account's throttle quota in the Region
/// (requests a second across every API of the account; 10,000 by default, raised on request).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gateway {
    #[serde(default)]
    pub account_quota_rps: Option<u32>,
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
    /// C3: the share of orders placed under an account rep; C6: of the orders it adds events to.
    #[serde(default)]
    pub rep_share: Option<f64>,
    /// R3: the share of calls that replace the user's earlier review of the book (deleted in
    /// the same transaction, its removal counted out by the stream handler).
    #[serde(default)]
    pub replace_share: Option<f64>,
    /// The popularity of what this pattern touches, when it differs from its population's.
    #[serde(default)]
    pub popularity: BTreeMap<String, Popularity>,
    /// Which call of its route a profiled pattern is: its example (the default) or the route's
    /// declared worst case (`worst`: a new cart line's transaction, not the example's update).
    #[serde(default)]
    pub shape: Option<crate::profile::Shape>,
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
        use std::io::Read as _;
        let file = path.display().to_string();
        // One byte past the cap at most: `/dev/zero` or a stray log is refused, never read whole.
        let mut bytes = Vec::new();
        if let Err(source) = std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        {
            return Err(WorkloadError::Io { file, source });
        }
        let invalid = |message: String| WorkloadError::Invalid {
            file: file.clone(),
            message,
        };
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(invalid(format!(
                "larger than {} bytes (1 MiB), the most a workload file may be",
                thousands(MAX_FILE_BYTES)
            )));
        }
        let text = String::from_utf8(bytes).map_err(|e| invalid(format!("not UTF-8 text: {e}")))?;
        Workload::parse(&text).map_err(invalid)
    }

    /// Parses a workload; the error names the line and the field.
    pub fn parse(text: &str) -> Result<Workload, String> {
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(format!(
                "the workload is {} bytes; at most {} (1 MiB)",
                thousands(text.len() as u64),
                thousands(MAX_FILE_BYTES)
            ));
        }
        if let Some(line) = too_many_flows(text) {
            return Err(format!(
                "line {line}: more than {} `[` and `{{`; a workload nests a few levels deep",
                thousands(MAX_FLOWS as u64)
            ));
        }
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
        w.check(text)?;
        Ok(w.grown())
    }

    /// The populations at the horizon: each count times (1 + growth)^months.
    fn grown(mut self) -> Workload {
        let months = self.horizon_months;
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
            &mut e.employees,
            &mut e.warehouses,
            &mut e.carts,
            &mut e.references,
        ]
        .into_iter()
        .flatten()
        {
            // `check` has held the result to 1..=MAX_POPULATION.
            p.count = grow(p.count, p.growth_per_month, months).round() as u64;
        }
        self
    }

    /// What the types cannot say: every population a pattern draws from is declared, and every
    /// value is within the bounds the model can plan (`bounds`).
    fn check(&self, text: &str) -> Result<(), String> {
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
        self.bounds()
            .map_err(|(field, message)| located(text, &field, &message))
    }

    /// Every value the model would turn into a panic, an infinity or hours of work, refused with
    /// its bound (docs/capacity.md, "Writing a workload").
    fn bounds(&self) -> Result<(), (Field, String)> {
        let top = Field::default();
        for (key, text, max) in [
            ("name", &self.name, MAX_NAME_CHARS),
            ("description", &self.description, MAX_DESCRIPTION_CHARS),
        ] {
            let n = text.chars().count();
            if n > max {
                return Err((
                    top.key(key),
                    format!(
                        "at most {} characters, found {}",
                        thousands(max as u64),
                        thousands(n as u64)
                    ),
                ));
            }
        }
        if self.horizon_months > MAX_HORIZON_MONTHS {
            return Err((
                top.key("horizon_months"),
                format!(
                    "a horizon of 0 to {MAX_HORIZON_MONTHS} months, found {}",
                    self.horizon_months
                ),
            ));
        }
        for (e, p) in self.populations() {
            let f = top.key("entities").key(e.name());
            let g = p.growth_per_month;
            if !g.is_finite() || g <= -1.0 {
                return Err((
                    f.key("growth_per_month"),
                    format!(
                        "a monthly growth above -1 (-1 empties the population), found {}",
                        num(g)
                    ),
                ));
            }
            let grown = grow(p.count, g, self.horizon_months).round();
            if !(1.0..=MAX_POPULATION as f64).contains(&grown) {
                return Err((
                    f.key("growth_per_month"),
                    format!(
                        "{} a month for {} months makes {} {} into {}; a population is 1 to {}",
                        num(g),
                        self.horizon_months,
                        thousands(p.count),
                        e.name(),
                        num(grown),
                        thousands(MAX_POPULATION)
                    ),
                ));
            }
            if let Some(o) = p.open_fraction {
                fraction(o).map_err(|m| (f.key("open_fraction"), m))?;
            }
        }
        day(&self.daily, &top.key("daily"))?;
        for (kind, bytes) in &self.item_bytes {
            if !(1..=MAX_ITEM_BYTES).contains(bytes) {
                return Err((
                    top.key("item_bytes").key(&snake_case(*kind)),
                    format!(
                        "an item of 1 to {} bytes (DynamoDB's 400 KB), found {}",
                        thousands(MAX_ITEM_BYTES),
                        thousands(*bytes)
                    ),
                ));
            }
        }
        let stream = top.key("stream");
        if self.stream.shards == 0 {
            return Err((
                stream.key("shards"),
                "at least 1 stream shard, found 0".to_owned(),
            ));
        }
        if let Some(b) = self.stream.batch_size
            && !(1..=MAX_BATCH_SIZE).contains(&b)
        {
            return Err((
                stream.key("batch_size"),
                format!(
                    "a batch of 1 to {} records (an event source mapping's range), found {b}",
                    thousands(MAX_BATCH_SIZE.into()),
                ),
            ));
        }
        if let Some(window) = self.stream.batching_window_seconds
            && !(0.0..=300.0).contains(&window)
        {
            return Err((
                stream.key("batching_window_seconds"),
                format!("0 to 300 seconds (an event source mapping's range), found {window}"),
            ));
        }
        for (name, ms) in &self.lambda.durations_ms {
            let field = top.key("lambda").key("durations_ms").key(name);
            let known = catalogue::function(name).is_some()
                || crate::fanout::CONSUMERS.contains(&name.as_str());
            if !known {
                return Err((field, format!("no function {name} in the catalogue")));
            }
            if !(ms.is_finite() && *ms > 0.0 && *ms <= 900_000.0) {
                return Err((
                    field,
                    format!("a duration above 0 and at most Lambda's 900,000 ms, found {ms}"),
                ));
            }
        }
        if self.lambda.concurrency_quota == Some(0) {
            return Err((
                top.key("lambda").key("concurrency_quota"),
                "a quota of at least 1".to_owned(),
            ));
        }
        let (mut seen, mut operations_seen) = (BTreeMap::new(), BTreeMap::new());
        for (i, p) in self.patterns.iter().enumerate() {
            let f = top.key("patterns").index(i);
            // The report keeps one rate per ID: a second entry would hide the first.
            if let Some(first) = seen.insert(p.id.as_str(), i) {
                return Err((
                    f.key("id"),
                    format!(
                        "{} is patterns[{first}] already; give each pattern once",
                        p.id
                    ),
                ));
            }
            // An ID several operations share (or a function of several routes) would mean the
            // first of them, silently; and one operation under two names would be planned twice.
            // (A modelled ID means what its model plans: R3 a review written or deleted.)
            let operations = operations_named(&p.id);
            if operations.len() > 1 && !modelled(&p.id) {
                return Err((
                    f.key("id"),
                    format!(
                        "{} names {} operations ({}); give the one you mean by its route",
                        p.id,
                        operations.len(),
                        operations.join(", ")
                    ),
                ));
            }
            for operation in operations {
                if let Some(first) = operations_seen.insert(operation.clone(), i) {
                    return Err((
                        f.key("id"),
                        format!(
                            "{} is {operation}, which patterns[{first}] plans already; give each operation once",
                            p.id
                        ),
                    ));
                }
            }
            if !(0.0..=MAX_RPS).contains(&p.rps) {
                return Err((
                    f.key("rps"),
                    format!(
                        "requests a second from 0 to {} a pattern, found {}",
                        thousands(MAX_RPS as u64),
                        num(p.rps)
                    ),
                ));
            }
            if let Some(d) = &p.daily {
                day(d, &f.key("daily"))?;
            }
            let peak = p.rps * self.curve(p).into_iter().fold(0.0, f64::max);
            if peak > MAX_RPS {
                return Err((
                    f.key("rps"),
                    format!(
                        "{} requests a second at the day's highest multiplier; at most {} a pattern",
                        num(peak),
                        thousands(MAX_RPS as u64)
                    ),
                ));
            }
            if !modelled(&p.id) {
                let given = [
                    ("items", p.items.is_some()),
                    ("lines", p.lines.is_some()),
                    ("rep_share", p.rep_share.is_some()),
                    ("replace_share", p.replace_share.is_some()),
                ];
                if p.shape == Some(crate::profile::Shape::Worst) {
                    let design = self
                        .design
                        .index_design
                        .unwrap_or_else(crate::inputs::index_design_default);
                    if crate::generic::resolve_shaped(&p.id, design, crate::profile::Shape::Worst)
                        .is_none()
                    {
                        let route = crate::generic::resolve(&p.id)
                            .map_or(String::new(), |r| format!("`{} {}`", r.method, r.path));
                        return Err((
                            f.key("shape"),
                            format!(
                                "{route} declares no worst case (a write route or a public read does): \
                                 plan its example, without `shape`"
                            ),
                        ));
                    }
                }
                if let Some((field, _)) = given.iter().find(|(_, set)| *set) {
                    let sample = crate::generic::resolve(&p.id)
                        .map_or(String::new(), |r| r.profile.request.clone());
                    return Err((
                        f.key(field),
                        format!(
                            "{} is planned as its function's sample request sends it (`{sample}`): \
                             only the modelled patterns ({}) take `{field}`",
                            p.id,
                            MODELLED.join(", ")
                        ),
                    ));
                }
            }
            if modelled(&p.id) && p.shape.is_some() {
                return Err((
                    f.key("shape"),
                    format!(
                        "{} has a model of its own, whose knobs say what a call is: `shape` is for the patterns planned from a profile",
                        p.id
                    ),
                ));
            }
            if p.items == Some(0) {
                return Err((f.key("items"), "at least 1 item a call, found 0".to_owned()));
            }
            if let Some(n) = p.lines.filter(|n| !(1..=MAX_LINES).contains(n)) {
                return Err((
                    f.key("lines"),
                    format!("1 to {MAX_LINES} lines an order (place-order's most), found {n}"),
                ));
            }
            if let Some(r) = p.replace_share {
                fraction(r).map_err(|m| (f.key("replace_share"), m))?;
            }
            if let Some(r) = p.rep_share {
                fraction(r).map_err(|m| (f.key("rep_share"), m))?;
                if r > 0.0 && self.entities.reps.is_none() {
                    return Err((
                        f.key("rep_share"),
                        format!("{r} of orders under a rep, but entities declares no reps"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The declared populations, by entity.
    fn populations(&self) -> impl Iterator<Item = (Entity, &Population)> {
        Entity::ALL
            .into_iter()
            .filter_map(|e| self.entities.get(e).map(|p| (e, p)))
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
    if n == 0 || n > MAX_POPULATION {
        return Err(D::Error::custom(format!(
            "a population of 1 to {}, found {n}",
            thousands(MAX_POPULATION)
        )));
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
    if h.len() != 24 {
        return Err(D::Error::custom(format!(
            "24 multipliers, one per UTC hour; found {}",
            h.len()
        )));
    }
    for (hour, m) in h.iter().enumerate() {
        multiplier(*m).map_err(|e| {
            D::Error::custom(format!(
                "24 multipliers, one per UTC hour; hour {hour}: {e}"
            ))
        })?;
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

/// One of `IndexDesign`'s values, as the template spells them.
fn index_design<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<keys::indexes::IndexDesign>, D::Error> {
    use keys::indexes::IndexDesign;
    let s = String::deserialize(d)?;
    IndexDesign::parse(&s).map(Some).map_err(|_| {
        let all: Vec<_> = IndexDesign::ALL.iter().map(|d| d.as_str()).collect();
        D::Error::custom(format!(
            "the template's {} is one of {}, not {s:?}",
            IndexDesign::PARAMETER,
            all.join(", ")
        ))
    })
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

/// The populations a pattern draws what it touches from: a modelled pattern's, or the
/// subject of the route a profiled one is planned by ([`crate::generic`]).
pub fn draws_from(id: &str) -> &'static [Entity] {
    if !modelled(id) {
        return crate::generic::resolve(id).map_or(&[], |r| r.subjects());
    }
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
    if modelled(&id) || crate::generic::resolve(&id).is_some() {
        return Ok(id);
    }
    let known = catalogue::PATTERNS
        .iter()
        .any(|p| p.id == id || p.function == id);
    Err(D::Error::custom(if known {
        format!(
            "{id} is in the catalogue but its function has no profile (lab/planner/profiles.json: \
             `make cost` writes it)"
        )
    } else {
        format!(
            "no access pattern {id} in the catalogue (docs/access-patterns.md): give a catalogue \
             ID (C1), a function's name (get-customer) or a route (`GET /customers/{{customerId}}`)"
        )
    }))
}

/// A workload file's largest size: the shipped ones are under 2 KB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// A name and a description, as long as a report should copy.
pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
/// Requests a second of one pattern, at any hour: far past a table's default quota (40,000
/// units), short of what turns the sums infinite.
pub const MAX_RPS: f64 = 10_000_000.0;
/// An hour's multiplier: as large as a rate, so that a day may be given in requests a second on
/// `rps: 1`.
pub const MAX_MULTIPLIER: f64 = MAX_RPS;
/// DynamoDB's item size limit, 400 KB.
pub const MAX_ITEM_BYTES: u64 = 409_600;
/// place-order's `MAX_LINES` (tests/input.rs holds the two equal).
pub const MAX_LINES: u32 = 48;
/// An event source mapping's `BatchSize` for a DynamoDB stream: 1 to 10,000.
pub const MAX_BATCH_SIZE: u32 = 10_000;
/// Ten years: growth compounded further is a guess, and overflows soon after.
pub const MAX_HORIZON_MONTHS: u32 = 120;
/// The model keys every one of a population by its rank, and a SKU has at most 12 digits.
pub const MAX_POPULATION: u64 = keys::commerce::Sku::MAX;

/// `[` and `{` in a workload: the shipped ones have 1 to 3.
pub const MAX_FLOWS: usize = 1_000;

/// The line of the `[` or `{` past `MAX_FLOWS`, if any. libyaml scans in time quadratic in how
/// deep they nest (100,000 deep: minutes, before serde_yaml's depth limit of 128 is reached); all
/// of them count, quoted or not, so that no quoting can hide one.
fn too_many_flows(text: &str) -> Option<usize> {
    let mut opens = 0;
    let mut line = 1;
    for b in text.bytes() {
        match b {
            b'\n' => line += 1,
            b'[' | b'{' => {
                opens += 1;
                if opens > MAX_FLOWS {
                    return Some(line);
                }
            }
            _ => {}
        }
    }
    None
}

/// A count `months` on at `growth` a month, before rounding.
fn grow(count: u64, growth: f64, months: u32) -> f64 {
    count as f64 * (1.0 + growth).powi(i32::try_from(months).unwrap_or(i32::MAX))
}

fn fraction(x: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&x) {
        Ok(())
    } else {
        Err(format!("a share from 0 to 1, found {}", num(x)))
    }
}

fn multiplier(m: f64) -> Result<(), String> {
    if (0.0..=MAX_MULTIPLIER).contains(&m) {
        Ok(())
    } else {
        Err(format!(
            "a multiplier from 0 to {}, found {}",
            thousands(MAX_MULTIPLIER as u64),
            num(m)
        ))
    }
}

/// A day's `peak` and `trough` (its `hours` are held by `hours` as they are read).
fn day(d: &Daily, f: &Field) -> Result<(), (Field, String)> {
    if let Some(p) = &d.peak {
        for (key, m) in [("peak", p.peak), ("trough", p.trough)] {
            multiplier(m).map_err(|e| (f.key("peak").key(key), e))?;
        }
    }
    Ok(())
}

/// `10000000` as `10,000,000`.
/// `12,000`: a count as the reports and errors write it.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number for an error: `1e308`, not 309 digits.
fn num(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e9 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// An item kind as the workload spells it (`OrderLine`: `order_line`).
fn snake_case(kind: ItemKind) -> String {
    let mut out = String::new();
    for (i, c) in format!("{kind:?}").chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A field's path (`patterns[1].rps`), to name it and to find its line.
#[derive(Debug, Clone, Default)]
struct Field(Vec<Step>);

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

impl Field {
    fn key(&self, k: &str) -> Field {
        let mut f = self.clone();
        f.0.push(Step::Key(k.to_owned()));
        f
    }
    fn index(&self, i: usize) -> Field {
        let mut f = self.clone();
        f.0.push(Step::Index(i));
        f
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (n, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if n == 0 => write!(f, "{k}")?,
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// `line 7, field patterns[1].rps: ...`, as serde's errors read.
fn located(text: &str, field: &Field, message: &str) -> String {
    let line = line_of(text, field).map_or(String::new(), |l| format!("line {l}, "));
    format!("{line}field {field}: {message}")
}

/// The line of a field that passed serde but not `bounds`: the YAML read again down that path
/// only, where the value is refused so that serde_yaml says where it is.
fn line_of(text: &str, field: &Field) -> Option<usize> {
    use serde::de::DeserializeSeed as _;
    let de = serde_yaml::Deserializer::from_str(text);
    Find(&field.0)
        .deserialize(de)
        .err()?
        .location()
        .map(|l| l.line())
}

struct Find<'a>(&'a [Step]);

impl<'de> serde::de::DeserializeSeed<'de> for Find<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// At the end of the path every value is refused (the default `visit_*`), which marks it.
impl<'de> serde::de::Visitor<'de> for Find<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the field")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Step::Key(key), rest)) = self.0.split_first() else {
            return Err(A::Error::custom("the field"));
        };
        while let Some(k) = map.next_key::<serde_yaml::Value>()? {
            if k.as_str() == Some(key) {
                return map.next_value_seed(Find(rest));
            }
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Step::Index(index), rest)) = self.0.split_first() else {
            return Err(A::Error::custom("the field"));
        };
        for _ in 0..*index {
            if seq.next_element::<serde::de::IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Find(rest)).map(|_| ())
    }
}

/// The operations (`` `GET /orders/{orderId}` (get-order) ``) a workload's `id` names: a route,
/// a catalogue ID, or a function's name; more than one when an ID or a function is shared by
/// several routes.
fn operations_named(id: &str) -> Vec<String> {
    let shown =
        |method: &str, path: &str, function: &str| format!("`{method} {path}` ({function})");
    if let Some((method, path)) = id.split_once(' ') {
        return catalogue::OPERATIONS
            .iter()
            .filter(|o| o.method.as_str() == method && o.path == path)
            .map(|o| shown(method, path, o.function))
            .collect();
    }
    catalogue::PATTERNS
        .iter()
        .filter(|p| (!p.id.is_empty() && p.id == id) || p.function == id)
        .map(|p| shown(p.method.as_str(), p.path, p.function))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}
