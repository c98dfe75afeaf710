//! A deployment of `template.yaml` in process, as the cost comparisons measure one: its tables
//! in DynamoDB Local, each recording what every request touched; each API function's handler
//! called with the dependencies its environment resolves to (its table, its peers' tables, its
//! settings from the deployment's parameters); each change handed to the stream consumers whose
//! mappings pass it, until they write nothing more. Every request is billed by the one meter
//! (`devkit::bill`, on the indexes of the table it went to), DynamoDB Local's report beside it.
//!
//! The consumers take each request's changes as one batch, as soon as it is answered: on AWS a
//! batch may gather several requests' changes, which only a consumer that coalesces them
//! (the sharded counters) bills differently.

use std::{collections::BTreeMap, path::Path};

use local_stack::{lambda::environment, streams::filter::Filters};
use sam_template::Template;
use serde_json::Value;
use store::{Deps, Needs, Table};

/// What a function's invocations sent and cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub invocations: f64,
    pub requests: f64,
    /// Read and write units by the one meter (`devkit::bill`).
    pub read: f64,
    pub write: f64,
    /// Read and write units as DynamoDB Local reported them.
    pub local_read: f64,
    pub local_write: f64,
}

/// A deployment's tables and what each function spent on them so far.
pub struct Deployment {
    pub template: Template,
    parameters: BTreeMap<String, Option<String>>,
    /// The local name of the table the template calls `Table`; the others derive from it.
    base: String,
    /// Each table by its logical id.
    pub tables: BTreeMap<String, Table>,
    /// Per function (API and stream consumers), what it spent.
    pub spent: BTreeMap<String, Spent>,
}

/// Most rounds of stream consumers writing what other stream records then carry.
const FANOUT_ROUNDS: usize = 4;

impl Deployment {
    /// `template.yaml` deployed with `parameters` (the others at their defaults): its tables,
    /// fresh and empty.
    pub async fn new(parameters: &[(&str, &str)]) -> Deployment {
        let template = Template::workspace_with(parameters).unwrap();
        let mut given: BTreeMap<String, String> = parameters
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        // The one parameter without a default: the tests' key signs the cursors.
        given
            .entry("CursorSigningKey".into())
            .or_insert_with(|| devkit::TEST_CURSOR_KEY.into());
        let parameters = environment::parameter_values(&template, &given).unwrap();
        let client = devkit::client();
        let unique = ulid::Ulid::new().to_string().to_lowercase();
        let base = devkit::test_table_name("test", &unique);
        let mut tables = BTreeMap::new();
        for declared in &template.tables {
            let name = sam_template::local_table_name(&base, &declared.logical_id);
            devkit::create_table(&client, &name, declared)
                .await
                .unwrap();
            let table = Table::new(client.clone(), name).recording_touched();
            tables.insert(declared.logical_id.clone(), table);
        }
        Deployment {
            template,
            parameters,
            base,
            tables,
            spent: BTreeMap::new(),
        }
    }

    /// The dependencies `function` (the template's) gets from its environment, for `needs`.
    fn deps(&self, function: &sam_template::Function, needs: Needs) -> Deps {
        let failures = Path::new("target/replay-failures");
        let env: BTreeMap<String, String> = environment::resolve(
            function,
            &self.template,
            &self.base,
            &self.parameters,
            failures,
        )
        .unwrap()
        .into_iter()
        .collect();
        let table = |variable: &str| {
            let name = &env[variable];
            self.tables
                .values()
                .find(|t| t.name() == name)
                .cloned()
                .unwrap_or_else(|| panic!("{}: {variable} = {name}, no table", function.name()))
        };
        let shards = env
            .get("AGGREGATE_SHARDS")
            .map_or(devkit::TEST_SHARDS, |s| s.parse().unwrap());
        let mut deps =
            Deps::new(table("TABLE_NAME"), needs, devkit::TEST_CURSOR_KEY, shards).unwrap();
        for setting in needs.settings {
            deps = deps.with_setting(setting, &env[setting.variable]).unwrap();
        }
        for peer in needs.peers {
            deps = deps.with_peer(peer, table(peer.variable));
        }
        deps
    }

    /// `method target` (a path and its query, percent-encoded as a client sends them) with
    /// `body`, sent by `sub` in `groups`, through the handler of the function whose route it
    /// fits: its status and answer. What it and the consumers it set off spent is added to
    /// [`Deployment::spent`].
    pub async fn send(
        &mut self,
        method: &str,
        target: &str,
        body: Option<&str>,
        (sub, groups): (&str, &[&str]),
    ) -> (u16, Value) {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let query: Vec<(String, String)> = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (testkit::percent_decode(k), testkit::percent_decode(v))
            })
            .collect();
        let query: Vec<(&str, &str)> = query
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let (function, route) = route_for(method, path);
        let declared = self
            .template
            .function(function.name)
            .unwrap_or_else(|| panic!("{} is not in the template", function.name));
        let event = testkit::event(&route, path, &query, body);
        let event = testkit::signed_in_as(event, sub, groups);
        let deps = self.deps(declared, function.needs);
        self.take();
        let response = catalogue::handle(function.name, &deps, testkit::request(&event))
            .await
            .unwrap_or_else(|| panic!("no handler for {}", function.name));
        let answer = testkit::response_json(&response);
        let sent = self.take();
        self.bill(function.name, &sent);
        self.fan_out(sent).await;
        answer
    }

    /// The requests each table recorded since the last call, by its logical id; the meters
    /// emptied.
    fn take(&self) -> Vec<(String, Vec<store::Request>)> {
        self.tables
            .iter()
            .map(|(id, table)| {
                let requests = table.meter().requests();
                table.meter().reset();
                (id.clone(), requests)
            })
            .filter(|(_, requests)| !requests.is_empty())
            .collect()
    }

    /// Adds one invocation of `function` that sent `sent` to what it spent.
    fn bill(&mut self, function: &str, sent: &[(String, Vec<store::Request>)]) {
        let spent = self.spent.entry(function.to_owned()).or_default();
        spent.invocations += 1.0;
        for (table, requests) in sent {
            let declared = self.template.tables.iter().find(|t| t.logical_id == *table);
            let indexes = &declared.expect("a table of the template").global_indexes;
            for r in requests {
                let billed = devkit::bill::billed(r, indexes);
                spent.requests += 1.0;
                spent.read += billed.read;
                spent.write += billed.write;
                spent.local_read += r.read_units + r.index_read_units;
                spent.local_write += r.write_units;
            }
        }
    }

    /// Hands the changes of `sent` to each consumer whose mapping reads their table's stream and
    /// whose filters pass them, in batches of its `BatchSize`, and the changes its own writes make
    /// round again, until there are none.
    async fn fan_out(&mut self, mut sent: Vec<(String, Vec<store::Request>)>) {
        for _ in 0..FANOUT_ROUNDS {
            let mut records: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for (table, requests) in &sent {
                records
                    .entry(table.clone())
                    .or_default()
                    .extend(stream_records(requests));
            }
            records.retain(|_, r| !r.is_empty());
            if records.is_empty() {
                return;
            }
            let mut next = Vec::new();
            let consumers: Vec<sam_template::Function> = self
                .template
                .functions
                .iter()
                .filter(|f| !f.streams.is_empty())
                .cloned()
                .collect();
            for f in &consumers {
                let consumer = catalogue::consumer(f.name())
                    .unwrap_or_else(|| panic!("no stream handler {}", f.name()));
                for mapping in &f.streams {
                    let Some(records) = records.get(&mapping.table) else {
                        continue;
                    };
                    for batch in batches(mapping, records) {
                        let deps = self.deps(f, consumer.needs);
                        let event = testkit::stream_event(batch);
                        let response = catalogue::handle_batch(f.name(), &deps, event)
                            .await
                            .expect("a consumer's handler");
                        assert!(
                            response.batch_item_failures.is_empty(),
                            "{}: {response:?}",
                            f.name()
                        );
                        let spent = self.take();
                        self.bill(f.name(), &spent);
                        next.extend(spent);
                    }
                }
            }
            sent = next;
        }
        panic!("the stream consumers still write records after {FANOUT_ROUNDS} rounds: a loop?");
    }
}

/// The batches `mapping` hands its function of `records`: those its filters pass, at most its
/// `BatchSize` each.
pub fn batches(mapping: &sam_template::StreamMapping, records: &[Value]) -> Vec<Vec<Value>> {
    let filters = Filters::parse(&mapping.filter_patterns).unwrap();
    let passed: Vec<Value> = records
        .iter()
        .filter(|r| filters.matches(r))
        .cloned()
        .collect();
    passed
        .chunks(mapping.batch_size as usize)
        .map(<[Value]>::to_vec)
        .collect()
}

/// The API function and route key (`GET /users/{username}`) `method path` fits
/// ([`testkit::route_fit`]), as API Gateway matches routes.
pub fn route_for(method: &str, path: &str) -> (&'static api::Function, String) {
    catalogue::FUNCTIONS
        .iter()
        .flat_map(|f| f.routes.iter().map(move |r| (*f, r)))
        .filter(|(_, r)| r.method.as_str() == method)
        .filter_map(|(f, r)| {
            let route = format!("{} {}", r.method.as_str(), r.path);
            testkit::route_fit(r.path, path).map(|literal| (literal, f, route))
        })
        .max_by_key(|(literal, _, _)| *literal)
        .map(|(_, f, route)| (f, route))
        .unwrap_or_else(|| panic!("no route for {method} {path}"))
}

/// The records DynamoDB Streams carries for `requests`' writes (`NEW_AND_OLD_IMAGES`): one for
/// each item a write changed; none for a ConditionCheck or a write that left its item as it
/// was, as DynamoDB writes none.
pub fn stream_records(requests: &[store::Request]) -> Vec<Value> {
    let mut records = Vec::new();
    for t in requests.iter().flat_map(|r| &r.touched) {
        if t.checked || t.before == t.after {
            continue;
        }
        let change = match (&t.before, &t.after) {
            (None, Some(new)) => testkit::Change::Insert(new),
            (Some(old), Some(new)) => testkit::Change::Modify(old, new),
            (Some(old), None) => testkit::Change::Remove(old),
            (None, None) => continue,
        };
        records.push(testkit::stream_record(
            &keys::SortableId::new().to_string(),
            devkit::next_sequence(),
            change,
        ));
    }
    records
}
