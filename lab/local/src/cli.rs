//! The `local-stack` command: arguments, start-up, and shutdown on Ctrl-C / SIGTERM.

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
};

use sam_template::Template;
use tokio::net::TcpListener;

use crate::{
    account,
    apigw::{
        Gateway, RouteAuth,
        jwt::{self, Authorizer, Issuer},
        routes::Router,
    },
    explorer::{Explorer, recorder},
    lambda::{Stack, StackConfig},
    streams::{self, StreamsConfig, StreamsHandle},
};

pub const USAGE: &str = "\
usage: local-stack [--template template.yaml] [--port 3000] [--table NAME] [--bin-dir target/debug]
                   [--param Name=Value ...] [--max-instances 8] [--no-streams]
                   [--issuer-dir .local/issuer] [--log-dir DIR] [--failures-dir .local/failures]
                   [--port-file PATH]

Runs template.yaml's functions locally behind an API Gateway HTTP API emulation, against
DynamoDB Local (AWS_ENDPOINT_URL_DYNAMODB, default http://127.0.0.1:8000; start it with
`scripts/dynamodb-local.sh start 8000`). Build the functions first: `cargo build --bins`.

  --template PATH       the SAM template (default template.yaml)
  --port PORT           the HTTP port on 127.0.0.1 (default 3000; 0: one the system picks)
  --port-file PATH      once it serves (its tables made), write its port to PATH (with --port 0:
                        the one the system picked)
  --table NAME          the table `!Ref Table` resolves to; created if absent (default local-table);
                        with TableLayout=table-per-context the others are NAME-reviews, ...
  --bin-dir DIR         where the function binaries are (default target/debug)
  --param NAME=VALUE    a template parameter's value (repeatable); else its Default
  --max-instances N     most concurrent processes per function (default 8)
  --issuer-dir DIR      the local token issuer's key (made on first use; default .local/issuer):
                        the API's JWT authorizer accepts its tokens (`make token SUB=<id>`)
  --log-dir DIR         also append each function's output (its logs and metrics documents) to
                        DIR/<function>.log, as its CloudWatch log group would keep it
  --failures-dir DIR    where the stream mappings' on-failure destinations are, a JSON-lines file
                        each (DIR/<Destination>.jsonl; default .local/failures)
  --no-streams          do not feed the table's stream to the functions with stream events
                        (by default each gets an event source mapping; the status is at
                        GET /_local/streams, discarded records in --failures-dir)
";

#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    pub template: PathBuf,
    pub port: u16,
    pub table: String,
    pub bin_dir: PathBuf,
    pub params: BTreeMap<String, String>,
    pub max_instances: usize,
    /// Run the DynamoDB stream event source mappings.
    pub streams: bool,
    /// Where the local issuer keeps its signing key.
    pub issuer_dir: PathBuf,
    /// Where each function's output is also kept (`<function>.log`).
    pub log_dir: Option<PathBuf>,
    /// Where the stream mappings' on-failure destinations are (`<Destination>.jsonl`).
    pub failures_dir: PathBuf,
    /// Where the port it listens on is written once it listens.
    pub port_file: Option<PathBuf>,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            template: "template.yaml".into(),
            port: 3000,
            table: "local-table".into(),
            bin_dir: "target/debug".into(),
            params: BTreeMap::new(),
            max_instances: 8,
            streams: true,
            issuer_dir: ".local/issuer".into(),
            log_dir: None,
            failures_dir: account::FAILURES_DIR.into(),
            port_file: None,
        }
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Command {
    Run(Args),
    Help,
}

/// Parses the arguments (without the program name). Accepts `--flag value` and `--flag=value`.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut out = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(Command::Help);
        }
        if arg == "--no-streams" {
            out.streams = false;
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--template" => out.template = value()?.into(),
            "--port" => out.port = number(&flag, &value()?)?,
            "--table" => out.table = value()?,
            "--bin-dir" => out.bin_dir = value()?.into(),
            "--issuer-dir" => out.issuer_dir = value()?.into(),
            "--log-dir" => out.log_dir = Some(value()?.into()),
            "--failures-dir" => out.failures_dir = value()?.into(),
            "--port-file" => out.port_file = Some(value()?.into()),
            "--max-instances" => {
                out.max_instances = number(&flag, &value()?)?;
                if out.max_instances == 0 {
                    return Err("--max-instances must be at least 1".into());
                }
            }
            "--param" => {
                let v = value()?;
                let (name, param) = v
                    .split_once('=')
                    .filter(|(n, _)| !n.is_empty())
                    .ok_or_else(|| format!("--param {v}: expected Name=Value"))?;
                out.params.insert(name.to_owned(), param.to_owned());
            }
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(Command::Run(out))
}

/// Warns when the table there already has other global indexes than the template, with these
/// parameters, declares (a table made for another `OrderStatusKeys`): the functions then read
/// or write for indexes the table does not have.
async fn warn_other_indexes(name: &str, declared: &sam_template::Table) {
    let Ok(described) = devkit::client()
        .describe_table()
        .table_name(name)
        .send()
        .await
    else {
        return;
    };
    let mut has: Vec<String> = described
        .table
        .iter()
        .flat_map(|t| t.global_secondary_indexes())
        .filter_map(|i| i.index_name().map(str::to_owned))
        .collect();
    let mut wants: Vec<String> = declared
        .global_indexes
        .iter()
        .map(|i| i.name.clone())
        .collect();
    has.sort();
    wants.sort();
    if has != wants {
        eprintln!(
            "warning: table {name} has the indexes {has:?}; the template with these parameters \
             declares {wants:?}. Start from a fresh table (make reset), or move it \
             (make move-index: docs/key-designs.md#moving-an-index-online)"
        );
    }
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{flag} {v}: not a valid number"))
}

/// Starts everything, serves until Ctrl-C or SIGTERM, then stops every function process.
pub async fn run(mut args: Args) -> Result<(), String> {
    // The template as deployed with the --param values: its conditions decide the table's
    // indexes (OrderStatusKeys) as CloudFormation's would.
    let template = Template::load_with(&args.template, &args.params)
        .map_err(|e| format!("{}: {e}", args.template.display()))?;
    let config = StackConfig {
        bin_dir: args.bin_dir.clone(),
        table_name: args.table.clone(),
        params: args.params.clone(),
        max_instances: args.max_instances,
        log_dir: args.log_dir.clone(),
        failures_dir: args.failures_dir.clone(),
    };
    // Everything that can be wrong in the arguments fails here, before anything starts.
    let mut specs = Stack::function_specs(&template, &config).map_err(|e| e.to_string())?;
    // The API's JWT authorizer, trusting the local issuer (whose key exists before we listen).
    let (auth, issuer) = match &template.api_auth {
        Some(api) => {
            let issuer = Issuer::open(&args.issuer_dir)
                .map_err(|e| format!("{}: {e}", args.issuer_dir.display()))?;
            let auth = RouteAuth {
                authorizer: Authorizer::new(&issuer.jwks(), jwt::ISSUER, &[jwt::AUDIENCE]),
                scopes: api.scopes.clone(),
            };
            let scope = api.scopes.first().cloned().unwrap_or_default();
            (Some(auth), Some((Arc::new(issuer), scope)))
        }
        None => (None, None),
    };
    // The functions reach DynamoDB Local through the recorder, each under its own key id.
    let (proxy, exchanges) = recorder::start(&devkit::endpoint())
        .await
        .map_err(|e| format!("the DynamoDB recorder: {e}"))?;
    for spec in &mut specs {
        spec.environment.extend([
            ("AWS_ENDPOINT_URL_DYNAMODB".to_owned(), proxy.clone()),
            ("AWS_ACCESS_KEY_ID".to_owned(), recorder::key_id(&spec.name)),
        ]);
        // DynamoDB Local answers one request at a time: a stream consumer's writes side by side
        // (32 on AWS, where DynamoDB answers each within its latency) only queue there, ahead
        // of the API's requests (`store::aggregate::targets_in_flight`).
        if template
            .function(&spec.name)
            .is_some_and(|f| !f.streams.is_empty())
        {
            spec.environment
                .push(("STREAM_WRITES_IN_FLIGHT".to_owned(), "4".to_owned()));
            // Its stream's lineage (`stream_handler::lineage`) from DynamoDB Local too.
            spec.environment.push((
                "AWS_ENDPOINT_URL_DYNAMODB_STREAMS".to_owned(),
                proxy.clone(),
            ));
        }
    }
    let address = SocketAddr::from(([127, 0, 0, 1], args.port));
    let listener = TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    args.port = listener
        .local_addr()
        .map_err(|e| format!("{address}: {e}"))?
        .port();

    // Every table of the layout (TableLayout): --table names `Table`, the others follow it.
    let endpoint = devkit::endpoint();
    let mut tables = Vec::new();
    for table in &template.tables {
        let name = sam_template::local_table_name(&args.table, &table.logical_id);
        let created = devkit::create_table(&devkit::client(), &name, table)
            .await
            .map_err(|e| {
                format!(
                    "cannot create table {name} in DynamoDB Local at {endpoint}: {e}\n\
                     Is it running? scripts/dynamodb-local.sh start 8000"
                )
            })?;
        if !created {
            warn_other_indexes(&name, table).await;
        }
        tables.push((name, created));
    }

    let stack = Arc::new(Stack::start(specs, args.max_instances));
    let streams = if args.streams {
        let config = StreamsConfig {
            failures_dir: args.failures_dir.clone(),
            ..StreamsConfig::new(&args.table)
        };
        match streams::start(&template, stack.clone(), config).await {
            Ok(streams) => Some(streams),
            Err(e) => {
                stack.shutdown().await;
                return Err(format!("cannot start the stream mappings: {e}"));
            }
        }
    } else {
        None
    };
    let explorer = Explorer {
        tables: template
            .tables
            .iter()
            .map(|t| {
                let name = sam_template::local_table_name(&args.table, &t.logical_id);
                (
                    name,
                    t.global_indexes.iter().map(|i| i.name.clone()).collect(),
                )
            })
            .collect(),
        client: devkit::client(),
        recorder: exchanges,
        issuer,
    };
    let gateway = Gateway::with_explorer(
        Router::from_template(&template),
        stack.clone(),
        streams.clone(),
        auth,
        Some(explorer),
    );

    print_banner(&gateway, &args, &endpoint, &tables, streams.as_ref());
    if let Some(path) = &args.port_file {
        // Once its tables exist and it serves; written whole, then renamed: a reader sees no
        // port or the whole port.
        let partial = path.with_extension("partial");
        std::fs::write(&partial, args.port.to_string())
            .and_then(|()| std::fs::rename(&partial, path))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    tokio::select! {
        _ = gateway.serve(listener) => {}
        _ = shutdown_signal() => {}
    }
    eprintln!("local-stack: stopping");
    if let Some(streams) = &streams {
        streams.stop();
    }
    stack.shutdown().await;
    Ok(())
}

fn print_streams(streams: Option<&StreamsHandle>, table: &str, failures_dir: &Path) {
    let Some(streams) = streams else {
        println!("Streams: off (--no-streams)");
        return;
    };
    let mappings = streams.mappings();
    if mappings.is_empty() {
        return;
    }
    println!("Streams (status: GET /_local/streams):");
    for m in mappings {
        let filters = match m.filters {
            0 => String::new(),
            1 => ", 1 filter".to_owned(),
            n => format!(", {n} filters"),
        };
        let destination = m
            .destination
            .map(|d| {
                format!(
                    ", failures to {}",
                    failures_dir.join(format!("{d}.jsonl")).display()
                )
            })
            .unwrap_or_default();
        println!(
            "  {} <- {} of {}, batches of {}{filters}{destination}",
            m.name,
            m.starting_position,
            sam_template::local_table_name(table, &m.table),
            m.batch_size
        );
    }
}

fn print_banner(
    gateway: &Gateway,
    args: &Args,
    endpoint: &str,
    tables: &[(String, bool)],
    streams: Option<&StreamsHandle>,
) {
    let base = format!("http://127.0.0.1:{}", args.port);
    let routes = gateway.router().routes();
    let width = routes
        .iter()
        .map(|r| base.len() + r.path.len())
        .max()
        .unwrap_or(0);
    println!("Routes:");
    for r in routes {
        let url = format!("{base}{}", r.path);
        let public = if r.public { "  (public)" } else { "" };
        println!("  {:<6} {url:<width$}  -> {}{public}", r.method, r.function);
    }
    if gateway.signs_in() {
        println!(
            "Sign-in: JWT, local issuer (key in {}); a token: make token SUB=<id> [GROUPS=staff]",
            args.issuer_dir.display()
        );
    }
    let tables: Vec<String> = tables
        .iter()
        .map(|(name, created)| {
            let state = if *created { "created" } else { "already there" };
            format!("{name} ({state})")
        })
        .collect();
    let noun = if tables.len() == 1 { "table" } else { "tables" };
    println!("DynamoDB Local: {endpoint}, {noun} {}", tables.join(", "));
    print_streams(streams, &args.table, &args.failures_dir);
    println!(
        "Explorer: {base}{} (item collections, access patterns and the DynamoDB requests they send)",
        crate::explorer::PATH
    );
    println!("Stop with Ctrl-C");
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Command, String> {
        parse(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults() {
        assert_eq!(args(&[]), Ok(Command::Run(Args::default())));
    }

    #[test]
    fn every_flag_in_both_forms() {
        let Ok(Command::Run(a)) = args(&[
            "--template",
            "t.yaml",
            "--port=4000",
            "--table",
            "T",
            "--bin-dir=target/release",
            "--param",
            "Key=a=b",
            "--param=Other=",
            "--max-instances",
            "2",
            "--no-streams",
            "--log-dir=logs",
            "--failures-dir",
            "f",
        ]) else {
            panic!()
        };
        assert_eq!(a.template, PathBuf::from("t.yaml"));
        assert_eq!(a.port, 4000);
        assert_eq!(a.table, "T");
        assert_eq!(a.bin_dir, PathBuf::from("target/release"));
        assert_eq!(a.params["Key"], "a=b");
        assert_eq!(a.params["Other"], "");
        assert_eq!(a.max_instances, 2);
        assert!(!a.streams);
        assert_eq!(a.log_dir, Some(PathBuf::from("logs")));
        assert_eq!(a.failures_dir, PathBuf::from("f"));
        assert!(matches!(
            args(&[]),
            Ok(Command::Run(Args { streams: true, .. }))
        ));
    }

    #[test]
    fn errors() {
        assert!(args(&["--port"]).is_err());
        assert!(args(&["--port", "x"]).is_err());
        assert!(args(&["--param", "novalue"]).is_err());
        assert!(args(&["--max-instances", "0"]).is_err());
        assert!(args(&["--what"]).is_err());
        assert_eq!(args(&["--port", "1", "-h"]), Ok(Command::Help));
    }
}
