//! `template.yaml` is the single source of truth for the table, the functions, their HTTP routes
//! and their stream mappings. The local stack, the tests and the table-creation code all read it
//! through this crate, so none of them repeats what the template says.
//!
//! A template is read as one deployment of it: each parameter's value (given, else its
//! `Default`), its `Conditions` evaluated from them, and every `Fn::If` (`!If`) resolved to the
//! branch its condition picks, an `AWS::NoValue` branch leaving its list entry or key out, as
//! CloudFormation does ([`Template::parse_with`]). The table also keeps every index and attribute
//! definition it declares under any condition ([`Table::with_every_index`]).

use std::{collections::BTreeMap, path::Path};

use serde_yaml::Value;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum TemplateError {
    #[error("cannot read the template: {0}")]
    Io(#[from] std::io::Error),
    #[error("template is not valid YAML: {0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("template: {0}")]
    Shape(String),
}

fn shape(msg: impl Into<String>) -> TemplateError {
    TemplateError::Shape(msg.into())
}

/// The key of the table or of an index: its `HASH` and `RANGE` attributes in declared order. A
/// GSI may have up to four of each (multi-attribute keys); the table and LSIs one `HASH` and at
/// most one `RANGE`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeySchema {
    /// The first `HASH` attribute: the whole partition key of the table and of a single-attribute
    /// index.
    pub hash: String,
    /// The first `RANGE` attribute.
    pub range: Option<String>,
    /// Every `HASH` attribute, in order.
    pub partition: Vec<String>,
    /// Every `RANGE` attribute, in order.
    pub sort: Vec<String>,
}

impl KeySchema {
    /// Every key attribute, partition first.
    pub fn attributes(&self) -> impl Iterator<Item = &str> {
        self.partition.iter().chain(&self.sort).map(String::as_str)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    pub name: String,
    pub key: KeySchema,
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection: String,
    /// Its `WarmThroughput` (reads, writes a second), if the template gives it one.
    pub warm: Option<(Setting, Setting)>,
    /// With `INCLUDE`, the attributes it copies beside the keys (`NonKeyAttributes`).
    pub non_key_attributes: Vec<String>,
}

/// The `AWS::DynamoDB::Table` resource.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub logical_id: String,
    /// Attribute name to type (`S`, `N`, `B`).
    pub attributes: BTreeMap<String, String>,
    pub key: KeySchema,
    /// The global indexes this deployment creates (those whose condition holds).
    pub global_indexes: Vec<Index>,
    pub local_indexes: Vec<Index>,
    pub stream_view_type: Option<String>,
    pub ttl_attribute: Option<String>,
    /// Every global index the template declares, whatever its condition, and the attribute
    /// definitions their keys need.
    pub declared_indexes: Vec<Index>,
    pub declared_attributes: BTreeMap<String, String>,
}

impl Table {
    /// The table with every global index the template declares under any condition: what the
    /// tests that compare the deployments' designs on one table create.
    pub fn with_every_index(&self) -> Table {
        Table {
            global_indexes: self.declared_indexes.clone(),
            attributes: self.declared_attributes.clone(),
            ..self.clone()
        }
    }
}

/// An HTTP API route of a function (an `HttpApi` event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub method: String,
    /// With `{name}` placeholders, as API Gateway writes it.
    pub path: String,
    /// `Auth: { Authorizer: NONE }`: the route is public; otherwise the API's default JWT
    /// authorizer guards it.
    pub public: bool,
}

/// The HTTP API's default JWT authorizer (`Auth.DefaultAuthorizer` of the `HttpApi`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApiAuth {
    /// Its `IdentitySource` (`$request.header.Authorization`).
    pub identity_source: String,
    /// Its `AuthorizationScopes`, `!Ref`s to parameters resolved to their defaults: a token
    /// must carry one of them.
    pub scopes: Vec<String>,
}

/// A number the template sets, and the parameter it is taken from when it is a `!Ref` (so a
/// plan can name what to set).
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub value: f64,
    pub parameter: Option<String>,
}

/// A stage's throttle of a route (`ThrottlingRateLimit`, `ThrottlingBurstLimit` of a
/// `RouteSettings` entry or of `DefaultRouteSettings`): `None` where the template leaves it
/// out, which API Gateway reads as 0 (every request a 429) once the settings are given.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Throttle {
    pub rate: Option<Setting>,
    pub burst: Option<Setting>,
}

/// The HTTP API stage's throttles: `DefaultRouteSettings` (every route without its own) and
/// `RouteSettings` by route key. Both `None`/empty: only the account's limits apply.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ApiThrottle {
    pub default: Option<Throttle>,
    pub routes: BTreeMap<String, Throttle>,
}

impl ApiThrottle {
    /// The throttle `route_key` runs under, and whether it is the route's own.
    pub fn of(&self, route_key: &str) -> Option<(&Throttle, bool)> {
        self.routes
            .get(route_key)
            .map(|t| (t, true))
            .or_else(|| self.default.as_ref().map(|t| (t, false)))
    }
}

impl Route {
    /// API Gateway's `routeKey`: `GET /customers/{customerId}`.
    pub fn route_key(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// A DynamoDB stream event source mapping of a function.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamMapping {
    pub event_name: String,
    pub batch_size: u32,
    pub maximum_batching_window_seconds: u32,
    pub starting_position: String,
    pub maximum_retry_attempts: Option<i64>,
    pub maximum_record_age_seconds: Option<i64>,
    pub bisect_batch_on_function_error: bool,
    pub report_batch_item_failures: bool,
    /// The `Pattern` strings of `FilterCriteria.Filters`, as JSON text.
    pub filter_patterns: Vec<String>,
    /// `TumblingWindowInSeconds`: with a window, each event names its shard and stream, and
    /// the function must answer a `state`.
    pub tumbling_window_seconds: Option<u32>,
    /// `ParallelizationFactor`: batches of one shard in flight at once (1 when absent).
    pub parallelization_factor: u32,
    /// The logical id of the on-failure destination, when it is a `!GetAtt X.Arn`.
    pub on_failure_destination: Option<String>,
    /// The logical id of the table whose stream it reads (`!GetAtt X.StreamArn`).
    pub table: String,
}

/// An intrinsic value the template uses in a function's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvValue {
    Literal(String),
    /// `!Ref X`: a parameter or a resource.
    Ref(String),
    /// Anything else (`!Sub`, `!GetAtt`...), kept as YAML text.
    Other(String),
}

/// An `AWS::Serverless::Function` resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub logical_id: String,
    /// Its binary's name, read from its logical id (see [`function_name`]).
    pub name: String,
    pub environment: BTreeMap<String, EnvValue>,
    pub routes: Vec<Route>,
    pub streams: Vec<StreamMapping>,
    pub timeout_seconds: u64,
    /// `MemorySize` in MB, the function's own over `Globals` (Lambda's default, 128, without
    /// either): its CPU share and its price per millisecond.
    pub memory_mb: u32,
    /// `LoggingConfig`'s `LogFormat` (`JSON` or `Text`) and `ApplicationLogLevel`, the function's
    /// own over `Globals`: Lambda passes them as `AWS_LAMBDA_LOG_FORMAT` and `AWS_LAMBDA_LOG_LEVEL`.
    pub log_format: Option<String>,
    pub log_level: Option<String>,
    /// `Action`s of the function's inline policy statements (least privilege, checked by tests).
    pub policy_actions: Vec<String>,
    /// The inline policy's statements, with their resources.
    pub policy: Vec<Statement>,
    /// Whether it names its own role (`Role`) instead of the one SAM makes: SAM attaches managed
    /// policies to the roles it makes (`AWSLambdaDynamoDBExecutionRole`: stream actions on `*`).
    pub role: bool,
}

/// An `Allow` statement of a function's inline policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub actions: Vec<String>,
    pub resources: Vec<Resource>,
}

/// What a statement's `Resource` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    /// `!GetAtt X.Arn` of a table `X` (its logical id): the table itself.
    Table(String),
    /// `!Sub "${X.Arn}/index/<name>"`: one index of table `X` (its logical id, the index's name).
    Index(String, String),
    /// Anything else, as YAML text.
    Other(String),
}

impl Function {
    /// Whether the policy allows `action` on the function's own table ([`Function::table`];
    /// `index: None`) or on one of its indexes.
    pub fn allows(&self, action: &str, index: Option<&str>) -> bool {
        self.table()
            .is_some_and(|table| self.allows_on(table, action, index))
    }

    /// Whether the policy allows `action` on table `table` (a logical id; `index: None`) or on
    /// one of its indexes.
    pub fn allows_on(&self, table: &str, action: &str, index: Option<&str>) -> bool {
        let wanted = match index {
            None => Resource::Table(table.to_owned()),
            Some(i) => Resource::Index(table.to_owned(), i.to_owned()),
        };
        self.policy
            .iter()
            .any(|s| s.actions.iter().any(|a| a == action) && s.resources.contains(&wanted))
    }

    /// The logical id of the table its `TABLE_NAME` names (`!Ref X`): its context's.
    pub fn table(&self) -> Option<&str> {
        match self.environment.get("TABLE_NAME") {
            Some(EnvValue::Ref(table)) => Some(table),
            _ => None,
        }
    }
}

impl Function {
    /// The binary's name (`get-customer`), which is also the function's name in the code's
    /// declarations and its sample event's (`events/get-customer.json`).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A function's binary name from its logical id: the id without its `Function` suffix, in
/// kebab case (`GetCustomerFunction` -> `get-customer`). The template names a function once, by
/// its logical id; `make sam-build` reads the binary name from it the same way.
pub fn function_name(logical_id: &str) -> String {
    let id = logical_id.strip_suffix("Function").unwrap_or(logical_id);
    let mut name = String::with_capacity(id.len() + 4);
    let mut previous: Option<char> = None;
    for c in id.chars() {
        if c.is_ascii_uppercase()
            && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            name.push('-');
        }
        name.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    name
}

/// The template's `TableLayout` parameter and its values.
pub mod layout {
    pub const PARAMETER: &str = "TableLayout";
    /// Every context's items in `Table` (the default).
    pub const ONE_TABLE: &str = "one-table";
    /// Each context's items in a table of its own ([`super::context_table`]).
    pub const TABLE_PER_CONTEXT: &str = "table-per-context";
    pub const ALL: [&str; 2] = [ONE_TABLE, TABLE_PER_CONTEXT];
    /// The contexts that get a table each (`keys`' names), commerce's (`Table`) first.
    pub const CONTEXTS: [&str; 4] = ["commerce", "reviews", "learning", "hr"];
}

/// The logical id of a context's table with `TableLayout` table-per-context: `Table` for
/// commerce (and the site-wide counts), `<Context>Table` for the others (`hr`: `HrTable`).
pub fn context_table(context: &str) -> String {
    match context {
        "commerce" | "derived" => "Table".to_owned(),
        other => {
            let mut chars = other.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            format!(
                "{}{}Table",
                first.into_iter().collect::<String>(),
                chars.as_str()
            )
        }
    }
}

/// The name a table of the template gets where the stack is given one name (the local stack,
/// the tests, the tools): `Table` is `base` itself, `<Context>Table` is `<base>-<context>`
/// (`ReviewsTable`: `local-table-reviews`).
pub fn local_table_name(base: &str, logical_id: &str) -> String {
    match logical_id.strip_suffix("Table") {
        Some("") | None => base.to_owned(),
        Some(context) => format!("{base}-{}", context.to_lowercase()),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub default: Option<String>,
    /// `AllowedValues`, if the parameter lists them.
    pub allowed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub parameters: Vec<Parameter>,
    /// The table whose logical id is `Table`: every context's items with `TableLayout`
    /// one-table, commerce's (and the site-wide daily counts') with table-per-context.
    pub table: Table,
    /// Every table this deployment creates, `Table` first.
    pub tables: Vec<Table>,
    pub functions: Vec<Function>,
    /// Logical ids of every resource, with their type.
    pub resources: BTreeMap<String, String>,
    /// The HTTP API's default authorizer, if it has one.
    pub api_auth: Option<ApiAuth>,
    /// The HTTP API stage's throttles.
    pub api_throttle: ApiThrottle,
    /// Every condition of `Conditions`, as this deployment's parameter values decide it.
    pub conditions: BTreeMap<String, bool>,
}

impl Template {
    pub fn load(path: impl AsRef<Path>) -> Result<Template, TemplateError> {
        Template::parse(&std::fs::read_to_string(path)?)
    }

    /// [`Template::load`] deployed with `parameters` ([`Template::parse_with`]).
    pub fn load_with(
        path: impl AsRef<Path>,
        parameters: &BTreeMap<String, String>,
    ) -> Result<Template, TemplateError> {
        Template::parse_with(&std::fs::read_to_string(path)?, parameters)
    }

    /// The template of this repository (`template.yaml` at the workspace root), deployed with
    /// its parameters' defaults.
    pub fn workspace() -> Result<Template, TemplateError> {
        Template::load(workspace_root().join("template.yaml"))
    }

    /// The template of this repository deployed with `parameters` (by name; the others take
    /// their defaults).
    pub fn workspace_with(parameters: &[(&str, &str)]) -> Result<Template, TemplateError> {
        let given = parameters
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Template::load_with(workspace_root().join("template.yaml"), &given)
    }

    /// The template deployed with its parameters' defaults.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        Template::parse_with(text, &BTreeMap::new())
    }

    /// The template deployed with `given` parameter values over the defaults: its conditions
    /// evaluated and every `Fn::If` resolved. A value given for a parameter the template does
    /// not declare, or outside its `AllowedValues`, is refused as CloudFormation refuses it.
    pub fn parse_with(
        text: &str,
        given: &BTreeMap<String, String>,
    ) -> Result<Template, TemplateError> {
        let declared: Value = serde_yaml::from_str(text)?;
        let parameters = parameters(&declared, given)?;
        let conditions = conditions(&declared, &parameters)?;
        let doc = resolve(&declared, &Branch::Deployed(&conditions)).unwrap_or(Value::Null);
        let widest = resolve(&declared, &Branch::Widest).unwrap_or(Value::Null);
        let resources = doc
            .get("Resources")
            .and_then(Value::as_mapping)
            .ok_or_else(|| shape("no Resources"))?;
        let globals = doc
            .get("Globals")
            .and_then(|g| g.get("Function"))
            .cloned()
            .unwrap_or(Value::Null);

        let mut tables: Vec<Table> = Vec::new();
        let mut functions = Vec::new();
        let mut api = None;
        let mut types = BTreeMap::new();
        for (id, resource) in resources {
            let id = id.as_str().ok_or_else(|| shape("resource id"))?.to_owned();
            // A resource whose `Condition` is false is not in this deployment.
            if let Some(condition) = str_at(resource, &["Condition"]) {
                match conditions.get(&condition) {
                    Some(true) => {}
                    Some(false) => continue,
                    None => return Err(shape(format!("{id}: no condition {condition}"))),
                }
            }
            let kind = str_at(resource, &["Type"]).unwrap_or_default();
            types.insert(id.clone(), kind.clone());
            let props = resource.get("Properties").cloned().unwrap_or(Value::Null);
            match kind.as_str() {
                "AWS::DynamoDB::Table" => {
                    let mut deployed = parse_table(&id, &props, &parameters)?;
                    let every = parse_table(
                        &id,
                        at(&widest, &["Resources", id.as_str(), "Properties"])
                            .unwrap_or(&Value::Null),
                        &parameters,
                    )?;
                    deployed.declared_indexes = every.global_indexes;
                    deployed.declared_attributes = every.attributes;
                    tables.push(deployed);
                }
                "AWS::Serverless::Function" => {
                    functions.push(parse_function(&id, &props, &globals, resources)?)
                }
                "AWS::Serverless::HttpApi" => api = Some(props.clone()),
                _ => {}
            }
        }
        let api_auth = api.as_ref().and_then(|p| parse_api_auth(p, &parameters));
        let api_throttle = api
            .as_ref()
            .map(|p| parse_api_throttle(p, &parameters))
            .unwrap_or_default();
        // `Table` first: the one every layout has.
        tables.sort_by_key(|t| t.logical_id != "Table");
        let table = tables
            .first()
            .filter(|t| t.logical_id == "Table")
            .cloned()
            .ok_or_else(|| shape("no AWS::DynamoDB::Table named Table"))?;
        Ok(Template {
            api_auth,
            api_throttle,
            parameters,
            table,
            tables,
            functions,
            resources: types,
            conditions,
        })
    }

    /// A parameter's value in this deployment: the one given, else its `Default`.
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.default.as_deref())
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name() == name)
    }
}

/// The workspace root: the nearest ancestor of this crate holding `template.yaml`.
pub fn workspace_root() -> std::path::PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|p| p.join("template.yaml").is_file())
        .unwrap_or(here)
        .to_path_buf()
}

/// The template's parameters, each with its value in this deployment as its `default`: the one
/// `given`, else the template's `Default`. A value for an undeclared parameter, or outside a
/// parameter's `AllowedValues`, is an error.
fn parameters(
    doc: &Value,
    given: &BTreeMap<String, String>,
) -> Result<Vec<Parameter>, TemplateError> {
    let declared = doc.get("Parameters").and_then(Value::as_mapping);
    let parameters: Vec<Parameter> = declared
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let name = k.as_str().unwrap_or_default().to_owned();
            Parameter {
                default: given
                    .get(&name)
                    .cloned()
                    .or_else(|| v.get("Default").and_then(scalar)),
                allowed: v
                    .get("AllowedValues")
                    .and_then(Value::as_sequence)
                    .map(|l| l.iter().filter_map(scalar).collect())
                    .unwrap_or_default(),
                name,
            }
        })
        .collect();
    if let Some(unknown) = given
        .keys()
        .find(|k| !parameters.iter().any(|p| &p.name == *k))
    {
        return Err(shape(format!("no parameter {unknown}")));
    }
    for p in &parameters {
        if let Some(v) = &p.default
            && !p.allowed.is_empty()
            && !p.allowed.contains(v)
        {
            return Err(shape(format!(
                "parameter {} is {v:?}; it must be one of {}",
                p.name,
                p.allowed.join(", ")
            )));
        }
    }
    Ok(parameters)
}

/// Every condition of the template's `Conditions`, evaluated from the parameters' values.
fn conditions(
    doc: &Value,
    parameters: &[Parameter],
) -> Result<BTreeMap<String, bool>, TemplateError> {
    let declared = doc.get("Conditions").and_then(Value::as_mapping);
    let mut done = BTreeMap::new();
    for (name, _) in declared.into_iter().flatten() {
        let name = name.as_str().ok_or_else(|| shape("a condition's name"))?;
        condition(name, declared, parameters, &mut done, 0)?;
    }
    Ok(done)
}

fn condition(
    name: &str,
    declared: Option<&serde_yaml::Mapping>,
    parameters: &[Parameter],
    done: &mut BTreeMap<String, bool>,
    depth: usize,
) -> Result<bool, TemplateError> {
    if let Some(v) = done.get(name) {
        return Ok(*v);
    }
    if depth > 32 {
        return Err(shape(format!("condition {name} refers to itself")));
    }
    let body = declared
        .and_then(|m| m.get(name))
        .ok_or_else(|| shape(format!("no condition {name}")))?;
    let value = evaluate(body, declared, parameters, done, depth + 1)?;
    done.insert(name.to_owned(), value);
    Ok(value)
}

/// An intrinsic function as (name without `Fn::` or `!`, argument): `!Equals [a, b]` and
/// `{"Fn::Equals": [a, b]}` alike.
fn intrinsic(v: &Value) -> Option<(&str, &Value)> {
    match v {
        Value::Tagged(t) => Some((intern(t.tag.to_string().trim_start_matches('!')), &t.value)),
        Value::Mapping(m) if m.len() == 1 => {
            let (k, value) = m.iter().next()?;
            let k = k.as_str()?;
            let name = k
                .strip_prefix("Fn::")
                .or((k == "Ref" || k == "Condition").then_some(k))?;
            Some((name, value))
        }
        _ => None,
    }
}

/// The intrinsic names this crate evaluates, as `'static` strings.
fn intern(name: &str) -> &'static str {
    match name {
        "Equals" => "Equals",
        "Not" => "Not",
        "And" => "And",
        "Or" => "Or",
        "Condition" => "Condition",
        "If" => "If",
        "Ref" => "Ref",
        _ => "",
    }
}

fn evaluate(
    v: &Value,
    declared: Option<&serde_yaml::Mapping>,
    parameters: &[Parameter],
    done: &mut BTreeMap<String, bool>,
    depth: usize,
) -> Result<bool, TemplateError> {
    let args = |v: &Value| v.as_sequence().cloned().unwrap_or_default();
    match intrinsic(v) {
        Some(("Equals", a)) => match args(a).as_slice() {
            [x, y] => Ok(operand(x, parameters)? == operand(y, parameters)?),
            _ => Err(shape("Fn::Equals takes two values")),
        },
        Some(("Not", a)) => match args(a).as_slice() {
            [c] => Ok(!evaluate(c, declared, parameters, done, depth)?),
            _ => Err(shape("Fn::Not takes one condition")),
        },
        Some((op @ ("And" | "Or"), a)) => {
            let mut values = Vec::new();
            for c in args(a) {
                values.push(evaluate(&c, declared, parameters, done, depth)?);
            }
            Ok(if op == "And" {
                values.iter().all(|v| *v)
            } else {
                values.iter().any(|v| *v)
            })
        }
        Some(("Condition", name)) => {
            let name = scalar(name).ok_or_else(|| shape("Condition names a condition"))?;
            condition(&name, declared, parameters, done, depth)
        }
        _ => Err(shape(format!(
            "a condition this reader cannot evaluate: {}",
            serde_yaml::to_string(v).unwrap_or_default().trim()
        ))),
    }
}

/// A value compared by `Fn::Equals`: a literal, or a parameter's value (`!Ref`).
fn operand(v: &Value, parameters: &[Parameter]) -> Result<String, TemplateError> {
    match intrinsic(v) {
        Some(("Ref", name)) => {
            let name = scalar(name).unwrap_or_default();
            parameters
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.default.clone())
                .ok_or_else(|| {
                    shape(format!(
                        "a condition needs parameter {name}, which has no value"
                    ))
                })
        }
        _ => scalar(v).ok_or_else(|| shape("Fn::Equals compares a value or a !Ref")),
    }
}

/// Which branch of each `Fn::If` a reading takes.
enum Branch<'a> {
    /// The one its condition picks in this deployment.
    Deployed(&'a BTreeMap<String, bool>),
    /// The one that declares something (not `AWS::NoValue`): every index of any deployment.
    Widest,
}

fn is_no_value(v: &Value) -> bool {
    matches!(intrinsic(v), Some(("Ref", name)) if name.as_str() == Some("AWS::NoValue"))
}

/// `v` with every `Fn::If` replaced by its branch (resolved in turn); `None` where the branch is
/// `AWS::NoValue`, which leaves a list entry or a key out. An unknown condition keeps the
/// `Fn::If` as it is.
fn resolve(v: &Value, branch: &Branch) -> Option<Value> {
    if is_no_value(v) {
        return None;
    }
    if let Some(("If", args)) = intrinsic(v)
        && let Some([c, yes, no]) = args.as_sequence().map(Vec::as_slice)
    {
        let pick = match branch {
            Branch::Deployed(conditions) => match scalar(c).and_then(|c| conditions.get(&c)) {
                Some(true) => yes,
                Some(false) => no,
                None => return Some(v.clone()),
            },
            Branch::Widest if is_no_value(yes) => no,
            Branch::Widest => yes,
        };
        return resolve(pick, branch);
    }
    match v {
        Value::Sequence(l) => Some(Value::Sequence(
            l.iter().filter_map(|e| resolve(e, branch)).collect(),
        )),
        Value::Mapping(m) => Some(Value::Mapping(
            m.iter()
                .filter_map(|(k, e)| Some((k.clone(), resolve(e, branch)?)))
                .collect(),
        )),
        Value::Tagged(t) => Some(Value::Tagged(Box::new(serde_yaml::value::TaggedValue {
            tag: t.tag.clone(),
            value: resolve(&t.value, branch).unwrap_or(Value::Null),
        }))),
        other => Some(other.clone()),
    }
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

fn str_at(v: &Value, path: &[&str]) -> Option<String> {
    at(v, path).and_then(scalar)
}

fn key_schema(v: Option<&Value>) -> Result<KeySchema, TemplateError> {
    let list = v
        .and_then(Value::as_sequence)
        .ok_or_else(|| shape("KeySchema"))?;
    let all = |kind: &str| -> Vec<String> {
        list.iter()
            .filter(|k| str_at(k, &["KeyType"]).as_deref() == Some(kind))
            .filter_map(|k| str_at(k, &["AttributeName"]))
            .collect()
    };
    let (partition, sort) = (all("HASH"), all("RANGE"));
    Ok(KeySchema {
        hash: partition
            .first()
            .cloned()
            .ok_or_else(|| shape("KeySchema without HASH"))?,
        range: sort.first().cloned(),
        partition,
        sort,
    })
}

fn parse_table(id: &str, props: &Value, parameters: &[Parameter]) -> Result<Table, TemplateError> {
    let attributes = props
        .get("AttributeDefinitions")
        .and_then(Value::as_sequence)
        .ok_or_else(|| shape("AttributeDefinitions"))?
        .iter()
        .map(|a| {
            Ok((
                str_at(a, &["AttributeName"]).ok_or_else(|| shape("AttributeName"))?,
                str_at(a, &["AttributeType"]).ok_or_else(|| shape("AttributeType"))?,
            ))
        })
        .collect::<Result<_, TemplateError>>()?;
    let indexes = |kind: &str| {
        props
            .get(kind)
            .and_then(Value::as_sequence)
            .map(|l| {
                l.iter()
                    .map(|i| {
                        Ok(Index {
                            name: str_at(i, &["IndexName"]).ok_or_else(|| shape("IndexName"))?,
                            key: key_schema(i.get("KeySchema"))?,
                            projection: str_at(i, &["Projection", "ProjectionType"])
                                .unwrap_or_else(|| "KEYS_ONLY".into()),
                            warm: i.get("WarmThroughput").and_then(|w| {
                                let unit = |k: &str| w.get(k).and_then(|v| setting(v, parameters));
                                Some((unit("ReadUnitsPerSecond")?, unit("WriteUnitsPerSecond")?))
                            }),
                            non_key_attributes: at(i, &["Projection", "NonKeyAttributes"])
                                .and_then(Value::as_sequence)
                                .into_iter()
                                .flatten()
                                .map(|a| scalar(a).ok_or_else(|| shape("NonKeyAttributes")))
                                .collect::<Result<_, _>>()?,
                        })
                    })
                    .collect::<Result<Vec<_>, TemplateError>>()
            })
            .transpose()
            .map(Option::unwrap_or_default)
    };
    let global_indexes = indexes("GlobalSecondaryIndexes")?;
    let local_indexes = indexes("LocalSecondaryIndexes")?;
    let ttl_enabled = at(props, &["TimeToLiveSpecification", "Enabled"])
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(Table {
        logical_id: id.to_owned(),
        attributes,
        key: key_schema(props.get("KeySchema"))?,
        global_indexes,
        local_indexes,
        stream_view_type: str_at(props, &["StreamSpecification", "StreamViewType"]),
        ttl_attribute: ttl_enabled
            .then(|| str_at(props, &["TimeToLiveSpecification", "AttributeName"]))
            .flatten(),
        declared_indexes: Vec::new(),
        declared_attributes: BTreeMap::new(),
    })
}

fn env_value(v: &Value) -> EnvValue {
    match v {
        Value::Tagged(t) if t.tag == "!Ref" => EnvValue::Ref(scalar(&t.value).unwrap_or_default()),
        Value::Mapping(m) if m.len() == 1 && m.contains_key("Ref") => {
            EnvValue::Ref(m.get("Ref").and_then(scalar).unwrap_or_default())
        }
        other => match scalar(other) {
            Some(s) => EnvValue::Literal(s),
            None => EnvValue::Other(serde_yaml::to_string(other).unwrap_or_default()),
        },
    }
}

fn environment(v: &Value) -> BTreeMap<String, EnvValue> {
    at(v, &["Environment", "Variables"])
        .and_then(Value::as_mapping)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.as_str()?.to_owned(), env_value(v))))
                .collect()
        })
        .unwrap_or_default()
}

/// A number, or a `!Ref` to a parameter resolved to its value in this deployment.
fn setting(v: &Value, parameters: &[Parameter]) -> Option<Setting> {
    match env_value(v) {
        EnvValue::Literal(s) => Some(Setting {
            value: s.parse().ok()?,
            parameter: None,
        }),
        EnvValue::Ref(p) => Some(Setting {
            value: parameters
                .iter()
                .find(|q| q.name == p)?
                .default
                .as_deref()?
                .parse()
                .ok()?,
            parameter: Some(p),
        }),
        EnvValue::Other(_) => None,
    }
}

/// The stage throttles of an `HttpApi`'s properties.
fn parse_api_throttle(props: &Value, parameters: &[Parameter]) -> ApiThrottle {
    let throttle = |v: &Value| Throttle {
        rate: v
            .get("ThrottlingRateLimit")
            .and_then(|r| setting(r, parameters)),
        burst: v
            .get("ThrottlingBurstLimit")
            .and_then(|b| setting(b, parameters)),
    };
    ApiThrottle {
        default: props.get("DefaultRouteSettings").map(throttle),
        routes: props
            .get("RouteSettings")
            .and_then(Value::as_mapping)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.as_str()?.to_owned(), throttle(v))))
            .collect(),
    }
}

/// The default authorizer of an `HttpApi`'s properties.
fn parse_api_auth(props: &Value, parameters: &[Parameter]) -> Option<ApiAuth> {
    let name = str_at(props, &["Auth", "DefaultAuthorizer"])?;
    let authorizer = at(props, &["Auth", "Authorizers", name.as_str()])?;
    let resolve = |v: &Value| match env_value(v) {
        EnvValue::Literal(s) => Some(s),
        EnvValue::Ref(p) => parameters
            .iter()
            .find(|q| q.name == p)
            .and_then(|q| q.default.clone()),
        EnvValue::Other(_) => None,
    };
    Some(ApiAuth {
        identity_source: str_at(authorizer, &["IdentitySource"]).unwrap_or_default(),
        scopes: authorizer
            .get("AuthorizationScopes")
            .and_then(Value::as_sequence)
            .map(|l| l.iter().filter_map(resolve).collect())
            .unwrap_or_default(),
    })
}

/// The logical id behind `!GetAtt X.Arn` (or `Fn::GetAtt: [X, Arn]`).
fn get_att_target(v: &Value) -> Option<String> {
    match v {
        Value::Tagged(t) if t.tag == "!GetAtt" => match &t.value {
            Value::String(s) => s.split('.').next().map(str::to_owned),
            Value::Sequence(s) => s.first().and_then(scalar),
            _ => None,
        },
        Value::Mapping(m) => m
            .get("Fn::GetAtt")
            .and_then(Value::as_sequence)
            .and_then(|s| s.first())
            .and_then(scalar),
        _ => None,
    }
}

fn parse_stream(props: &Value) -> Result<StreamMapping, TemplateError> {
    let filter_patterns = at(props, &["FilterCriteria", "Filters"])
        .and_then(Value::as_sequence)
        .map(|l| l.iter().filter_map(|f| str_at(f, &["Pattern"])).collect())
        .unwrap_or_default();
    let report = props
        .get("FunctionResponseTypes")
        .and_then(Value::as_sequence)
        .is_some_and(|l| {
            l.iter()
                .any(|t| t.as_str() == Some("ReportBatchItemFailures"))
        });
    let int = |k: &str| at(props, &[k]).and_then(Value::as_i64);
    Ok(StreamMapping {
        event_name: String::new(),
        batch_size: int("BatchSize").unwrap_or(100) as u32,
        maximum_batching_window_seconds: int("MaximumBatchingWindowInSeconds").unwrap_or(0) as u32,
        starting_position: str_at(props, &["StartingPosition"])
            .ok_or_else(|| shape("stream event without StartingPosition"))?,
        maximum_retry_attempts: int("MaximumRetryAttempts"),
        maximum_record_age_seconds: int("MaximumRecordAgeInSeconds"),
        bisect_batch_on_function_error: at(props, &["BisectBatchOnFunctionError"])
            .and_then(Value::as_bool)
            .unwrap_or(false),
        report_batch_item_failures: report,
        filter_patterns,
        tumbling_window_seconds: int("TumblingWindowInSeconds")
            .filter(|w| *w > 0)
            .map(|w| w as u32),
        parallelization_factor: int("ParallelizationFactor").unwrap_or(1) as u32,
        on_failure_destination: at(props, &["DestinationConfig", "OnFailure", "Destination"])
            .and_then(get_att_target),
        table: props
            .get("Stream")
            .and_then(get_att_target)
            .ok_or_else(|| shape("stream event without Stream: !GetAtt <table>.StreamArn"))?,
    })
}

/// The policies that apply to a function: its own `Policies`, or, with an explicit
/// `Role: !GetAtt R.Arn`, the `PolicyDocument`s of role `R`'s inline policies (as `Policies`).
fn effective_policies(props: &Value, resources: &serde_yaml::Mapping) -> Value {
    let role = match props.get("Role") {
        Some(Value::Tagged(t)) if t.tag == "!GetAtt" => {
            scalar(&t.value).and_then(|v| v.strip_suffix(".Arn").map(str::to_owned))
        }
        _ => None,
    };
    let Some(role) = role else {
        return props.clone();
    };
    let documents: Vec<Value> = resources
        .get(Value::String(role))
        .and_then(|r| r.get("Properties"))
        .and_then(|p| p.get("Policies"))
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("PolicyDocument").cloned())
        .collect();
    let mut effective = serde_yaml::Mapping::new();
    effective.insert("Policies".into(), Value::Sequence(documents));
    Value::Mapping(effective)
}

fn parse_function(
    id: &str,
    props: &Value,
    globals: &Value,
    resources: &serde_yaml::Mapping,
) -> Result<Function, TemplateError> {
    let mut env = environment(globals);
    env.extend(environment(props));
    let mut routes = Vec::new();
    let mut streams = Vec::new();
    if let Some(events) = props.get("Events").and_then(Value::as_mapping) {
        for (name, event) in events {
            let ep = event.get("Properties").cloned().unwrap_or(Value::Null);
            match str_at(event, &["Type"]).as_deref() {
                Some("HttpApi") => routes.push(Route {
                    method: str_at(&ep, &["Method"])
                        .ok_or_else(|| shape(format!("{id}: HttpApi without Method")))?
                        .to_uppercase(),
                    path: str_at(&ep, &["Path"])
                        .ok_or_else(|| shape(format!("{id}: HttpApi without Path")))?,
                    public: str_at(&ep, &["Auth", "Authorizer"]).as_deref() == Some("NONE"),
                }),
                Some("DynamoDB") => {
                    let mut s = parse_stream(&ep)?;
                    s.event_name = name.as_str().unwrap_or_default().to_owned();
                    streams.push(s)
                }
                _ => {}
            }
        }
    }
    let timeout_seconds = props
        .get("Timeout")
        .or_else(|| globals.get("Timeout"))
        .and_then(Value::as_u64)
        .unwrap_or(3);
    let memory_mb = props
        .get("MemorySize")
        .or_else(|| globals.get("MemorySize"))
        .and_then(Value::as_u64)
        .map_or(Ok(128), u32::try_from)
        .map_err(|_| shape(format!("{id}: MemorySize out of range")))?;
    let logging = |key: &str| {
        str_at(props, &["LoggingConfig", key]).or_else(|| str_at(globals, &["LoggingConfig", key]))
    };
    Ok(Function {
        logical_id: id.to_owned(),
        name: function_name(id),
        environment: env,
        routes,
        streams,
        timeout_seconds,
        memory_mb,
        log_format: logging("LogFormat"),
        log_level: logging("ApplicationLogLevel"),
        policy_actions: policy_actions(&effective_policies(props, resources)),
        policy: policy(&effective_policies(props, resources)),
        role: props.get("Role").is_some(),
    })
}

/// A table's logical id: by this template's naming, `Table` or `<Context>Table`.
fn is_table_id(id: &str) -> bool {
    id.ends_with("Table") && id.chars().all(|c| c.is_ascii_alphanumeric())
}

fn resource(v: &Value) -> Resource {
    match v {
        Value::Tagged(t) if t.tag == "!GetAtt" => {
            let text = scalar(&t.value).unwrap_or_default();
            match text.strip_suffix(".Arn") {
                Some(table) if is_table_id(table) => Resource::Table(table.to_owned()),
                _ => Resource::Other(text),
            }
        }
        Value::Tagged(t) if t.tag == "!Sub" => {
            let text = scalar(&t.value).unwrap_or_default();
            let index = text
                .strip_prefix("${")
                .and_then(|rest| rest.split_once(".Arn}/index/"))
                .filter(|(table, index)| {
                    is_table_id(table) && !index.is_empty() && !index.contains(['*', '/', '$'])
                });
            match index {
                Some((table, index)) => Resource::Index(table.to_owned(), index.to_owned()),
                None => Resource::Other(text),
            }
        }
        other => Resource::Other(serde_yaml::to_string(other).unwrap_or_default()),
    }
}

fn policy(props: &Value) -> Vec<Statement> {
    let list = |v: Option<&Value>| -> Vec<Value> {
        match v {
            Some(Value::Sequence(l)) => l.clone(),
            Some(v) => vec![v.clone()],
            None => Vec::new(),
        }
    };
    let mut out = Vec::new();
    for policy in props
        .get("Policies")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
    {
        for statement in policy
            .get("Statement")
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
        {
            if statement.get("Effect").and_then(scalar).as_deref() != Some("Allow") {
                continue;
            }
            out.push(Statement {
                actions: list(statement.get("Action"))
                    .iter()
                    .filter_map(scalar)
                    .collect(),
                resources: list(statement.get("Resource"))
                    .iter()
                    .map(resource)
                    .collect(),
            });
        }
    }
    out
}

fn policy_actions(props: &Value) -> Vec<String> {
    let mut actions = Vec::new();
    for policy in props
        .get("Policies")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
    {
        for statement in policy
            .get("Statement")
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
        {
            match statement.get("Action") {
                Some(Value::Sequence(l)) => actions.extend(l.iter().filter_map(scalar)),
                Some(v) => actions.extend(scalar(v)),
                None => {}
            }
        }
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_repositorys_template() {
        let t = Template::workspace().unwrap();
        assert_eq!(t.table.key.hash, "PK");
        assert_eq!(t.table.key.range.as_deref(), Some("SK"));
        let names: Vec<_> = t
            .table
            .global_indexes
            .iter()
            .map(|i| i.name.as_str())
            .collect();
        assert_eq!(names, ["GSI1", "GSI2", "OccurrencesByDate"]);
        let occurrences = &t.table.global_indexes[2].key;
        assert_eq!(occurrences.partition, ["CourseKey"]);
        assert_eq!(occurrences.sort, ["Year", "Month", "Day", "LocationKey"]);
        let every = t.table.with_every_index();
        assert_eq!(every.global_indexes.len(), 8);
        let (lines, reviews) = (&every.global_indexes[5], &every.global_indexes[6]);
        assert_eq!(
            (reviews.name.as_str(), reviews.projection.as_str()),
            ("ReviewsByUser", "KEYS_ONLY")
        );
        let whole = &every.global_indexes[7];
        assert_eq!(
            (whole.name.as_str(), whole.projection.as_str(), &whole.key),
            ("ReviewsByUserAll", "ALL", &reviews.key)
        );
        assert_eq!(
            (lines.name.as_str(), lines.projection.as_str()),
            ("OrderLinesByProduct", "INCLUDE")
        );
        assert_eq!(lines.non_key_attributes, ["Type", "Quantity", "UnitPrice"]);
        assert_eq!(
            every.global_indexes[3].key.partition,
            ["CustomerId", "Type"]
        );
        assert_eq!(t.table.attributes["Year"], "N");
        assert_eq!(t.table.key.sort, ["SK"]);
        assert_eq!(
            t.table.stream_view_type.as_deref(),
            Some("NEW_AND_OLD_IMAGES")
        );
        assert_eq!(t.table.ttl_attribute.as_deref(), Some("ExpiresAt"));
        let get = t.function("get-customer").unwrap();
        assert_eq!(get.routes[0].route_key(), "GET /customers/{customerId}");
        assert_eq!(
            get.environment.get("TABLE_NAME"),
            Some(&EnvValue::Ref("Table".into()))
        );
        assert_eq!(get.policy_actions, ["dynamodb:Query"]);
        assert!(get.allows("dynamodb:Query", None));
        assert!(!get.allows("dynamodb:Query", Some("GSI1")));
        let user = t.function("get-user").unwrap();
        assert!(user.allows("dynamodb:Query", Some("GSI1")));
        assert!(!user.allows("dynamodb:Query", None), "only the index");
        assert!(!user.allows("dynamodb:Query", Some("GSI2")));
    }

    const CONDITIONAL: &str = r#"
Parameters:
  Keys: { Type: String, Default: one, AllowedValues: [one, two] }
  Name: { Type: String, Default: "" }
Conditions:
  Two: !Equals [!Ref Keys, two]
  NotTwo: !Not [!Condition Two]
  Named: !And [!Not [!Equals [!Ref Name, ""]], !Or [!Condition Two, !Equals [x, x]]]
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions:
        - { AttributeName: PK, AttributeType: S }
        - !If [Two, { AttributeName: B, AttributeType: N }, !Ref AWS::NoValue]
      KeySchema: [{ AttributeName: PK, KeyType: HASH }]
      GlobalSecondaryIndexes:
        - { IndexName: A, KeySchema: [{ AttributeName: PK, KeyType: HASH }], Projection: { ProjectionType: ALL } }
        - Fn::If:
            - Two
            - { IndexName: B, KeySchema: [{ AttributeName: B, KeyType: HASH }], Projection: { ProjectionType: INCLUDE, NonKeyAttributes: [Total, Status] } }
            - Ref: AWS::NoValue
  GetThingFunction:
    Type: AWS::Serverless::Function
    Properties:
      Policies:
        - Statement:
            - Effect: Allow
              Action: [dynamodb:Query]
              Resource:
                - !If [Two, !Sub "${Table.Arn}/index/B", !Ref AWS::NoValue]
                - !If [NotTwo, !Sub "${Table.Arn}/index/A", !Ref AWS::NoValue]
"#;

    /// A template is read as deployed with its parameters: conditions (`!Equals`, `!Not`,
    /// `!And`, `!Or`, `!Condition`, short and long forms) decide each `Fn::If`, and an
    /// `AWS::NoValue` branch leaves its list entry out, in the table and in a policy alike.
    #[test]
    fn conditions_decide_what_a_deployment_declares() {
        let with = |v: &str| {
            let given = BTreeMap::from([("Keys".to_owned(), v.to_owned())]);
            Template::parse_with(CONDITIONAL, &given).unwrap()
        };
        let names = |t: &Table| {
            t.global_indexes
                .iter()
                .map(|i| i.name.clone())
                .collect::<Vec<_>>()
        };
        let (one, two) = (Template::parse(CONDITIONAL).unwrap(), with("two"));
        assert_eq!(names(&one.table), ["A"]);
        assert_eq!(one.table.attributes.keys().collect::<Vec<_>>(), ["PK"]);
        assert_eq!(names(&two.table), ["A", "B"]);
        assert_eq!(two.table.attributes["B"], "N");
        let (a, b) = (&two.table.global_indexes[0], &two.table.global_indexes[1]);
        assert_eq!(
            (a.projection.as_str(), a.non_key_attributes.len()),
            ("ALL", 0)
        );
        assert_eq!(
            (b.projection.as_str(), &b.non_key_attributes[..]),
            ("INCLUDE", &["Total".to_owned(), "Status".to_owned()][..])
        );
        assert_eq!(names(&one.table.with_every_index()), ["A", "B"]);
        assert_eq!(one.table.with_every_index().attributes.len(), 2);
        let f = |t: &Template| t.function("get-thing").unwrap().clone();
        let allows = |t: &Template, index| f(t).allows_on("Table", "dynamodb:Query", Some(index));
        assert!(allows(&one, "A"));
        assert!(!allows(&one, "B"));
        assert!(allows(&two, "B"));
        assert!(!allows(&two, "A"));
        assert_eq!(
            (
                one.conditions["Two"],
                one.conditions["NotTwo"],
                one.conditions["Named"]
            ),
            (false, true, false)
        );
        assert_eq!(two.parameter("Keys"), Some("two"));
    }

    /// What CloudFormation refuses, refused: a value outside `AllowedValues`, an undeclared
    /// parameter.
    #[test]
    fn a_deployment_takes_only_allowed_values_of_declared_parameters() {
        let given = |k: &str, v: &str| BTreeMap::from([(k.to_owned(), v.to_owned())]);
        let e = Template::parse_with(CONDITIONAL, &given("Keys", "three")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "template: parameter Keys is \"three\"; it must be one of one, two"
        );
        let e = Template::parse_with(CONDITIONAL, &given("Other", "x")).unwrap_err();
        assert!(e.to_string().contains("no parameter Other"), "{e}");
    }

    #[test]
    fn a_function_is_named_by_its_logical_id() {
        assert_eq!(function_name("GetCustomerFunction"), "get-customer");
        assert_eq!(
            function_name("ListWarehouseEmployeesFunction"),
            "list-warehouse-employees"
        );
        assert_eq!(function_name("CommerceStreamFunction"), "commerce-stream");
        assert_eq!(function_name("F"), "f");
    }

    #[test]
    fn a_functions_memory_size_is_its_own_over_the_globals() {
        let text = |own: &str| {
            format!(
                "Globals:\n  Function:\n    MemorySize: 128\nResources:\n  Table:\n    Type: \
                 AWS::DynamoDB::Table\n    Properties:\n      AttributeDefinitions: []\n      \
                 KeySchema: [{{AttributeName: PK, KeyType: HASH}}]\n  GetThingFunction:\n    \
                 Type: AWS::Serverless::Function\n    Properties:\n{own}"
            )
        };
        let t = Template::parse(&text("      MemorySize: 1024\n")).unwrap();
        assert_eq!(t.function("get-thing").unwrap().memory_mb, 1024);
        let t = Template::parse(&text("      Handler: bootstrap\n")).unwrap();
        assert_eq!(t.function("get-thing").unwrap().memory_mb, 128);
    }
}
