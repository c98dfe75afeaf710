//! The table a maintenance command works on, and whether it may write there.
//!
//! - **DynamoDB Local** when an endpoint is given (`--endpoint URL`, or `AWS_ENDPOINT_URL_DYNAMODB`
//!   as `make` sets it): fixed credentials, the table `--table` (default `local-table`), writes
//!   without asking.
//! - **AWS** otherwise: the SDK's default credential chain and region (environment, profile, SSO,
//!   role), the table named by `--table NAME` or by `--stack NAME` (the table CloudFormation
//!   tagged as that stack's `Table`). Before anything else the command asks STS who it runs as and
//!   prints the account, the caller, the region and the table; it writes only with
//!   `--confirm <account>`, the account STS reported, so a shell pointed at the wrong account
//!   refuses instead of changing it.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::Client;
use store::{StoreError, Table};

use crate::flags::{Command, Given, Help, Stop};
pub use crate::flags::{FLAGS, Refused};

/// The options every command shares, and its own flags.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `--endpoint URL`, else `AWS_ENDPOINT_URL_DYNAMODB`: DynamoDB Local there.
    pub endpoint: Option<String>,
    pub table: Option<String>,
    pub stack: Option<String>,
    /// `--confirm ACCOUNT`: writes to that AWS account are intended.
    pub confirm: Option<String>,
    /// Every flag given, the command's own among them.
    given: Given,
}

impl Options {
    /// Reads `args` (without the program name) against `command`'s flags; `local_env` is
    /// `AWS_ENDPOINT_URL_DYNAMODB`.
    pub fn parse(
        command: &Command,
        args: &[String],
        local_env: Option<String>,
    ) -> Result<Options, Stop> {
        let given = command.parse(args)?;
        let value = |name: &str| given.value(name).map(str::to_owned);
        // Set but empty is neither DynamoDB Local nor AWS: the SDK would read it as an endpoint
        // and stop (a panic, exit 101), or a command would go to AWS when a local table was
        // meant. Refused, naming the variable.
        let flagged = value("--endpoint");
        if flagged.is_none() && local_env.as_deref().is_some_and(str::is_empty)
            || flagged.as_deref().is_some_and(str::is_empty)
        {
            return Err(Stop::Refused(Refused(format!(
                "{}: the endpoint is empty (AWS_ENDPOINT_URL_DYNAMODB= or --endpoint \"\"): give DynamoDB Local's URL, or unset the variable to work on AWS\n{}",
                command.name,
                command.usage()
            ))));
        }
        let options = Options {
            endpoint: flagged.or(local_env),
            table: value("--table"),
            stack: value("--stack"),
            confirm: value("--confirm"),
            given: given.clone(),
        };
        let refused = |why: String| Err(Stop::Refused(Refused(why)));
        match (&options.table, &options.stack, &options.endpoint) {
            (Some(_), Some(_), _) => {
                refused("name the table (--table) or the stack (--stack), not both".into())
            }
            (_, Some(_), Some(endpoint)) => refused(format!(
                "--stack names a deployed stack; {endpoint} is DynamoDB Local: use --table"
            )),
            (None, None, None) => refused(
                "on AWS, name the table (--table NAME) or the stack (--stack NAME) to work on; \
                 for DynamoDB Local, give --endpoint URL or AWS_ENDPOINT_URL_DYNAMODB"
                    .into(),
            ),
            _ => Ok(options),
        }
    }

    /// Whether a switch of the command's own is given.
    pub fn flag(&self, name: &str) -> bool {
        self.given.flag(name)
    }

    /// `--layout`, for a command that takes it.
    pub fn layout(&self) -> Option<&str> {
        self.given
            .command_takes("--layout")
            .then(|| self.given.value("--layout"))
            .flatten()
    }

    /// The value of a flag of the command's own.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.given.value(name)
    }

    /// The value of a flag of the command's own as a number, `default` when not given.
    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, Refused> {
        self.given.number(name, default)
    }
}

/// Who a command runs as on AWS.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub account: String,
    pub arn: String,
    pub region: String,
}

/// The table to work on, and where it is.
#[derive(Debug, Clone)]
pub struct Target {
    pub table: Table,
    /// Its stream, through DynamoDB Streams (what a repair reads the consumers' lag from).
    pub streams: aws_sdk_dynamodbstreams::Client,
    /// `None`: DynamoDB Local at `endpoint`.
    pub caller: Option<Caller>,
    pub endpoint: Option<String>,
    /// Each context's table: `table` four times in the one-table layout; with a table per
    /// context, `table` is commerce's and the others are theirs (`--layout` names the local
    /// stack's; a stack's are found by their tags).
    pub contexts: crate::layout::Tables,
}

impl Target {
    /// The tables the target spans, each once, commerce's (`table`) first.
    pub fn tables(&self) -> Vec<&Table> {
        let c = &self.contexts;
        let mut tables: Vec<&Table> = Vec::new();
        for table in [&c.commerce, &c.reviews, &c.learning, &c.hr] {
            if !tables.iter().any(|t| t.name() == table.name()) {
                tables.push(table);
            }
        }
        tables
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.caller, &self.endpoint) {
            (Some(c), _) => write!(
                f,
                "table {} in AWS account {} ({}), region {}, as {}",
                self.table.name(),
                c.account,
                self.arn().unwrap_or_default(),
                c.region,
                c.arn
            ),
            (None, endpoint) => write!(
                f,
                "table {} in DynamoDB Local at {}",
                self.table.name(),
                endpoint.as_deref().unwrap_or("?")
            ),
        }
    }
}

impl Target {
    /// The table's ARN on AWS.
    pub fn arn(&self) -> Option<String> {
        self.caller
            .as_ref()
            .map(|c| table_arn(c, self.table.name()))
    }
}

fn table_arn(caller: &Caller, table: &str) -> String {
    format!(
        "arn:aws:dynamodb:{}:{}:table/{table}",
        caller.region, caller.account
    )
}

fn sdk_error(e: impl std::error::Error) -> StoreError {
    StoreError::Dynamo(aws_sdk_dynamodb::error::DisplayErrorContext(e).to_string())
}

/// What the shell lacks to reach AWS, in one line, when the first request failed for it: no
/// credentials (the SDK's chain found none: its report of each provider is a kilobyte), no
/// region, or credentials it could not load (an SSO session not logged in, a broken profile).
fn unset(error: &(dyn std::error::Error + 'static), region: bool) -> Option<Refused> {
    use aws_credential_types::provider::error::CredentialsError;
    let credentials = std::iter::successors(Some(error), |e| e.source())
        .find_map(|e| e.downcast_ref::<CredentialsError>());
    let profile = std::env::var("AWS_PROFILE").unwrap_or_else(|_| "<profile>".into());
    let found = match credentials {
        None if region => return None,
        None => true,
        Some(CredentialsError::CredentialsNotLoaded(_)) => false,
        Some(other) => {
            // The innermost reason says what the provider found; the SDK's own text repeats
            // each level and its debug form.
            let innermost =
                std::iter::successors(Some(other as &dyn std::error::Error), |e| e.source())
                    .last()
                    .map(|e| {
                        e.to_string()
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
            return Some(Refused(format!(
                "the AWS credentials could not be loaded ({innermost}): for an SSO profile, run \
                 `aws sso login --profile {profile}` first"
            )));
        }
    };
    let mut missing = Vec::new();
    let mut how = Vec::new();
    if !found {
        missing.push("no AWS credentials");
        how.push(
            "set a profile with AWS_PROFILE (run `aws sso login` first for an SSO one), or \
             AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
        );
    }
    if !region {
        missing.push("no region");
        how.push("set AWS_REGION (or the profile's region)");
    }
    Some(Refused(format!(
        "{} found: {}; for DynamoDB Local, give --endpoint URL instead",
        missing.join(" and "),
        how.join("; ")
    )))
}

/// The DynamoDB Local a local-only command (`seed`, `compare`) works on: `flagged` (its
/// `--endpoint`), else `AWS_ENDPOINT_URL_DYNAMODB`; never a default port, so that a second
/// stack's command does not land in the first's. Refused, saying `how` to name one, when neither
/// does.
pub fn local_endpoint(
    flagged: Option<&str>,
    command: &Command,
    how: &str,
) -> Result<String, Refused> {
    flagged
        .map(str::to_owned)
        .or_else(|| std::env::var("AWS_ENDPOINT_URL_DYNAMODB").ok())
        .filter(|e| !e.is_empty())
        .ok_or_else(|| Refused(format!("{}: {how}\n{}", command.name, command.usage())))
}

/// Opens the target of `options`, says on stderr what it is, and for a command that `writes`
/// on AWS, refuses unless `--confirm` names the caller's account.
pub async fn open(
    options: &Options,
    command: &str,
    writes: bool,
) -> Result<Target, Box<dyn std::error::Error>> {
    if let Some(endpoint) = &options.endpoint {
        let name = options
            .table
            .clone()
            .unwrap_or_else(|| "local-table".into());
        let table = Table::new(devkit::client_at(endpoint), name);
        let layout = options.layout().unwrap_or(crate::layout::ONE_TABLE);
        let contexts = crate::layout::Tables::of_layout(&table, layout)?;
        let target = Target {
            table,
            streams: local_stack::streams::streams_client(endpoint),
            caller: None,
            endpoint: Some(endpoint.clone()),
            contexts,
        };
        eprintln!("{command}: {target}");
        return Ok(target);
    }
    let config = store::sdk::config().await?;
    let identity = aws_sdk_sts::Client::new(&config)
        .get_caller_identity()
        .send()
        .await
        .map_err(|e| match unset(&e, config.region().is_some()) {
            Some(refused) => Box::new(refused) as Box<dyn std::error::Error>,
            None => Box::new(sdk_error(e)),
        })?;
    let caller = Caller {
        account: identity.account.unwrap_or_default(),
        arn: identity.arn.unwrap_or_default(),
        region: config.region().map(|r| r.to_string()).unwrap_or_default(),
    };
    let client = store::sdk::dynamodb_client(&config, options.table.as_deref().unwrap_or(""));
    let (name, others) = match (&options.table, &options.stack) {
        (Some(table), _) => (table.clone(), BTreeMap::new()),
        (None, Some(stack)) => stack_table(&client, &caller, stack).await?,
        (None, None) => return Err(Box::new(Refused("no table named".into()))),
    };
    if writes && options.confirm.as_deref() != Some(caller.account.as_str()) {
        let given = options
            .confirm
            .as_ref()
            .map(|c| format!(" (--confirm {c} names another account)"))
            .unwrap_or_default();
        return Err(Box::new(Refused(format!(
            "{command} would write to table {name} in AWS account {} ({}), region {}, as \
             {}{given}. Run it again with --confirm {} if that is the one.",
            caller.account,
            table_arn(&caller, &name),
            caller.region,
            caller.arn,
            caller.account
        ))));
    }
    let table = Table::new(client, name);
    let contexts = if others.is_empty() {
        // A table named by --table is one table; another layout is a stack's, found by tags.
        match options.layout().unwrap_or(crate::layout::ONE_TABLE) {
            crate::layout::ONE_TABLE => crate::layout::Tables::one(&table),
            other => {
                return Err(Box::new(Refused(format!(
                    "--layout {other} on AWS: name the stack (--stack), whose tables are found by their tags"
                ))));
            }
        }
    } else {
        let of = |context: &str| {
            others
                .get(&sam_template::context_table(context))
                .map(|name| table.named(name.clone()))
                .ok_or_else(|| Refused(format!("no {context} table of the stack found")))
        };
        crate::layout::Tables {
            commerce: table.clone(),
            reviews: of("reviews")?,
            learning: of("learning")?,
            hr: of("hr")?,
        }
    };
    let target = Target {
        table,
        streams: aws_sdk_dynamodbstreams::Client::new(&config),
        caller: Some(caller),
        endpoint: None,
        contexts,
    };
    eprintln!("{command}: {target}");
    Ok(target)
}

/// The logical id of the table in `template.yaml`.
const TABLE_LOGICAL_ID: &str = "Table";

/// Whether a table's tags say it is `stack`'s `Table` (CloudFormation tags what it creates
/// with its stack's name and the resource's logical id).
pub fn is_stack_table<'a>(tags: impl IntoIterator<Item = (&'a str, &'a str)>, stack: &str) -> bool {
    let (mut named, mut logical) = (false, false);
    for (key, value) in tags {
        named |= key == "aws:cloudformation:stack-name" && value == stack;
        logical |= key == "aws:cloudformation:logical-id" && value == TABLE_LOGICAL_ID;
    }
    named && logical
}

/// Whether a table's tags say it is one of `stack`'s other contexts' tables: the stack has a
/// table per context (`TableLayout`).
pub fn is_context_table<'a>(
    tags: impl IntoIterator<Item = (&'a str, &'a str)>,
    stack: &str,
) -> bool {
    let (mut named, mut logical) = (false, false);
    for (key, value) in tags {
        named |= key == "aws:cloudformation:stack-name" && value == stack;
        logical |= key == "aws:cloudformation:logical-id"
            && value != TABLE_LOGICAL_ID
            && sam_template::layout::CONTEXTS
                .iter()
                .any(|c| value == sam_template::context_table(c));
    }
    named && logical
}

/// The table of `stack`, found among the region's tables by its tags.
async fn stack_table(
    client: &Client,
    caller: &Caller,
    stack: &str,
) -> Result<(String, BTreeMap<String, String>), Box<dyn std::error::Error>> {
    let mut start = None;
    let mut found = Vec::new();
    let mut per_context = BTreeMap::new();
    loop {
        let page = client
            .list_tables()
            .set_exclusive_start_table_name(start)
            .send()
            .await
            .map_err(sdk_error)?;
        for name in page.table_names.unwrap_or_default() {
            let tags = client
                .list_tags_of_resource()
                .resource_arn(table_arn(caller, &name))
                .send()
                .await
                .map_err(sdk_error)?
                .tags
                .unwrap_or_default();
            let tags = || tags.iter().map(|t| (t.key(), t.value()));
            if is_stack_table(tags(), stack) {
                found.push(name);
            } else if is_context_table(tags(), stack) {
                let logical = tags()
                    .find(|(k, _)| *k == "aws:cloudformation:logical-id")
                    .map(|(_, v)| v.to_owned())
                    .unwrap_or_default();
                per_context.insert(logical, name);
            }
        }
        start = page.last_evaluated_table_name;
        if start.is_none() {
            break;
        }
    }
    match found.as_slice() {
        [one] => Ok((one.clone(), per_context)),
        [] => Err(Box::new(Refused(format!(
            "no table of stack {stack} in account {}, region {}: name it with --table (the \
             stack's TableName output)",
            caller.account, caller.region
        )))),
        many => Err(Box::new(Refused(format!(
            "several tables carry stack {stack}'s tags ({}): name one with --table",
            many.join(", ")
        )))),
    }
}

/// Runs a command's body; a refusal or a usage error exits 2 with its reason, any other error 1;
/// `--help` prints the usage on stdout.
pub fn exit_on_error(result: Result<(), Box<dyn std::error::Error>>) {
    if let Err(e) = result {
        if let Some(help) = e.downcast_ref::<Help>() {
            println!("{help}");
            std::process::exit(0);
        }
        eprintln!("{e}");
        let code = if e.downcast_ref::<Refused>().is_some() {
            2
        } else {
            1
        };
        std::process::exit(code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &str) -> Vec<String> {
        words.split_whitespace().map(str::to_owned).collect()
    }

    fn parse(words: &str, local_env: Option<String>) -> Result<Options, Stop> {
        Options::parse(&crate::flags::RECONCILE, &args(words), local_env)
    }

    #[test]
    fn an_endpoint_by_flag_or_environment_means_dynamodb_local() {
        let by_env = parse("--repair", Some("http://127.0.0.1:8013".into()));
        let by_env = by_env.unwrap();
        assert_eq!(by_env.endpoint.as_deref(), Some("http://127.0.0.1:8013"));
        assert!(by_env.flag("--repair"));
        let by_flag = parse("--endpoint http://h:1 --table t --settle 5", None).unwrap();
        assert_eq!(
            (by_flag.endpoint.as_deref(), by_flag.table.as_deref()),
            (Some("http://h:1"), Some("t"))
        );
        assert_eq!(by_flag.value("--settle"), Some("5"));
        // An empty variable is refused, with a table named too: not read as AWS.
        assert!(parse("", Some(String::new())).is_err());
        let empty = parse("--table t", Some(String::new())).unwrap_err();
        assert!(matches!(&empty, Stop::Refused(r) if r.0.contains("the endpoint is empty")));
    }

    #[test]
    fn aws_needs_a_table_or_a_stack_and_not_both() {
        let aws = parse("--stack shop --confirm 1", None).unwrap();
        assert_eq!(
            (aws.endpoint, aws.stack.as_deref(), aws.confirm.as_deref()),
            (None, Some("shop"), Some("1"))
        );
        for wrong in [
            "",
            "--repair",
            "--table a --stack b",
            "--table",
            "--table --repair",
        ] {
            assert!(parse(wrong, None).is_err(), "{wrong:?}");
        }
        let local_stack = parse("--stack shop", Some("http://h:1".into()));
        assert!(local_stack.is_err(), "a stack is never local");
    }

    #[test]
    fn a_stack_table_carries_both_tags() {
        let tags = [
            ("aws:cloudformation:stack-name", "shop"),
            ("aws:cloudformation:logical-id", "Table"),
        ];
        assert!(is_stack_table(tags, "shop"));
        assert!(!is_stack_table(tags, "shop-2"));
        assert!(!is_stack_table([tags[0]], "shop"));
        let queue = [
            tags[0],
            ("aws:cloudformation:logical-id", "StreamFailureQueue"),
        ];
        assert!(!is_stack_table(queue, "shop"));
    }

    /// A stack deployed with a table per context is told apart by its other tables' tags.
    #[test]
    fn a_context_table_of_the_stack_is_recognised() {
        let tagged = |logical| {
            [
                ("aws:cloudformation:stack-name", "shop"),
                ("aws:cloudformation:logical-id", logical),
            ]
        };
        assert!(is_context_table(tagged("ReviewsTable"), "shop"));
        assert!(is_context_table(tagged("HrTable"), "shop"));
        assert!(!is_context_table(tagged("Table"), "shop"));
        assert!(!is_context_table(tagged("ReviewsTable"), "other"));
        assert!(!is_context_table(tagged("StreamFailureQueue"), "shop"));
    }
}
