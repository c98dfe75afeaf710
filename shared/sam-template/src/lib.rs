//! `template.yaml` is the single source of truth for the table, the functions, their HTTP routes
//! and their stream mappings. The local stack, the tests and the table-creation code all read it
//! through this crate, so none of them repeats what the template says.

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
#[derive(Debug, Clone, PartialEq, Eq)]
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    pub name: String,
    pub key: KeySchema,
    pub projection: String,
}

/// The `AWS::DynamoDB::Table` resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub logical_id: String,
    /// Attribute name to type (`S`, `N`, `B`).
    pub attributes: BTreeMap<String, String>,
    pub key: KeySchema,
    pub global_indexes: Vec<Index>,
    pub local_indexes: Vec<Index>,
    pub stream_view_type: Option<String>,
    pub ttl_attribute: Option<String>,
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
    /// The logical id of the on-failure destination, when it is a `!GetAtt X.Arn`.
    pub on_failure_destination: Option<String>,
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
    /// `!GetAtt Table.Arn`: the table itself.
    Table,
    /// `!Sub "${Table.Arn}/index/<name>"`: one index of the table.
    Index(String),
    /// Anything else, as YAML text.
    Other(String),
}

impl Function {
    /// Whether the policy allows `action` on the table (`index: None`) or on one index.
    pub fn allows(&self, action: &str, index: Option<&str>) -> bool {
        let wanted = match index {
            None => Resource::Table,
            Some(i) => Resource::Index(i.to_owned()),
        };
        self.policy
            .iter()
            .any(|s| s.actions.iter().any(|a| a == action) && s.resources.contains(&wanted))
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

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub parameters: Vec<Parameter>,
    pub table: Table,
    pub functions: Vec<Function>,
    /// Logical ids of every resource, with their type.
    pub resources: BTreeMap<String, String>,
    /// The HTTP API's default authorizer, if it has one.
    pub api_auth: Option<ApiAuth>,
}

impl Template {
    pub fn load(path: impl AsRef<Path>) -> Result<Template, TemplateError> {
        Template::parse(&std::fs::read_to_string(path)?)
    }

    /// The template of this repository (`template.yaml` at the workspace root).
    pub fn workspace() -> Result<Template, TemplateError> {
        Template::load(workspace_root().join("template.yaml"))
    }

    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let doc: Value = serde_yaml::from_str(text)?;
        let resources = doc
            .get("Resources")
            .and_then(Value::as_mapping)
            .ok_or_else(|| shape("no Resources"))?;
        let globals = doc
            .get("Globals")
            .and_then(|g| g.get("Function"))
            .cloned()
            .unwrap_or(Value::Null);

        let mut table = None;
        let mut functions = Vec::new();
        let mut api = None;
        let mut types = BTreeMap::new();
        for (id, resource) in resources {
            let id = id.as_str().ok_or_else(|| shape("resource id"))?.to_owned();
            let kind = str_at(resource, &["Type"]).unwrap_or_default();
            types.insert(id.clone(), kind.clone());
            let props = resource.get("Properties").cloned().unwrap_or(Value::Null);
            match kind.as_str() {
                "AWS::DynamoDB::Table" => {
                    if table.is_some() {
                        return Err(shape("more than one table"));
                    }
                    table = Some(parse_table(&id, &props)?);
                }
                "AWS::Serverless::Function" => {
                    functions.push(parse_function(&id, &props, &globals, resources)?)
                }
                "AWS::Serverless::HttpApi" => api = Some(props.clone()),
                _ => {}
            }
        }
        let parameters: Vec<Parameter> = doc
            .get("Parameters")
            .and_then(Value::as_mapping)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| Parameter {
                        name: k.as_str().unwrap_or_default().to_owned(),
                        default: v.get("Default").and_then(scalar),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let api_auth = api.as_ref().and_then(|p| parse_api_auth(p, &parameters));
        Ok(Template {
            api_auth,
            parameters,
            table: table.ok_or_else(|| shape("no AWS::DynamoDB::Table"))?,
            functions,
            resources: types,
        })
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

fn parse_table(id: &str, props: &Value) -> Result<Table, TemplateError> {
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

/// The logical id behind `!GetAtt X.Arn` (or `Fn::GetAtt: [X, Arn]`).
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
        on_failure_destination: at(props, &["DestinationConfig", "OnFailure", "Destination"])
            .and_then(get_att_target),
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

fn resource(v: &Value) -> Resource {
    match v {
        Value::Tagged(t)
            if t.tag == "!GetAtt" && scalar(&t.value).as_deref() == Some("Table.Arn") =>
        {
            Resource::Table
        }
        Value::Tagged(t) if t.tag == "!Sub" => {
            let text = scalar(&t.value).unwrap_or_default();
            match text.strip_prefix("${Table.Arn}/index/") {
                Some(index) if !index.is_empty() && !index.contains(['*', '/', '$']) => {
                    Resource::Index(index.to_owned())
                }
                _ => Resource::Other(text),
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
        assert_eq!(
            names,
            [
                "GSI1",
                "GSI2",
                "OccurrencesByDate",
                "CustomerOrdersByStatus",
                "RepOrdersByStatus"
            ]
        );
        let occurrences = &t.table.global_indexes[2].key;
        assert_eq!(occurrences.partition, ["CourseKey"]);
        assert_eq!(occurrences.sort, ["Year", "Month", "Day", "LocationKey"]);
        assert_eq!(
            t.table.global_indexes[3].key.partition,
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
