//! Every sample request, and every write route's worst case, through its handler within its
//! policy, then its changes through the stream handlers: what each costs ([`crate::cost`]).

use keys::indexes::IndexDesign;
use sam_template::{Function, Template};
use serde_json::Value;
use store::INDEX_DESIGN;

use crate::cost::{Cost, Row};

/// Every request a function sent is allowed by its policy: each IAM action it needed (a
/// transaction's are its parts'), on the resource it touched (the table, or the index a Query
/// read: a policy on the table does not cover its indexes, nor one index another).
fn assert_within_policy(f: &Function, requests: &[store::Request]) {
    assert!(!requests.is_empty(), "{} sent nothing", f.name());
    for r in requests {
        for action in r.iam_actions() {
            assert!(
                f.allows(&action, r.index),
                "{} performs {} on {} but its policy does not allow {action} there",
                f.name(),
                r.operation,
                r.index
                    .map_or("the table".to_owned(), |i| format!("index {i}")),
            );
        }
    }
}

/// A fresh table with the seeds loaded, recording each write's items from now on
/// (`Table::recording_touched`): a sample's requests are all its meter holds. The table of the
/// template's default deployment (its indexes are what a write is billed for: `cost::indexes`).
async fn seeded_table() -> store::Table {
    seeded_table_in(default_design()).await
}

/// The template's `IndexDesign` default: the design of its default deployment.
fn default_design() -> IndexDesign {
    let t = Template::workspace().unwrap();
    let declared = t
        .parameters
        .iter()
        .find(|p| p.name == IndexDesign::PARAMETER)
        .and_then(|p| p.default.as_deref())
        .expect("template.yaml declares IndexDesign's default");
    IndexDesign::parse(declared).unwrap()
}

/// [`seeded_table`] of the template deployed with `IndexDesign` = `design`: its table (the
/// design's indexes), the seeds written as that design's writers write them.
///
/// The seeds go through their write paths once per design and test process; every seeded table
/// after that is given the same items in batch writes (a table's state is its items), a tenth
/// of the requests of about sixty loads.
async fn seeded_table_in(design: IndexDesign) -> store::Table {
    static SEEDS: [tokio::sync::OnceCell<Vec<model::Item>>; IndexDesign::ALL.len()] =
        [const { tokio::sync::OnceCell::const_new() }; IndexDesign::ALL.len()];
    let at = IndexDesign::ALL
        .iter()
        .position(|d| *d == design)
        .expect("a design");
    let items = SEEDS[at]
        .get_or_init(|| async {
            let table = empty_table_in(design).await;
            tools::seed::load_into_as(&tools::layout::Tables::one(&table), design)
                .await
                .unwrap();
            testkit::all_items(&table).await
        })
        .await;
    let table = empty_table_in(design).await;
    for chunk in items.chunks(25) {
        table.batch_put(chunk.to_vec()).await.unwrap();
    }
    table.recording_touched()
}

/// The template deployed with `IndexDesign` = `design` (its other parameters at their defaults).
fn template_in(design: IndexDesign) -> Template {
    Template::workspace_with(&[(IndexDesign::PARAMETER, design.as_str())]).unwrap()
}

async fn empty_table_in(design: IndexDesign) -> store::Table {
    let client = devkit::client();
    let name = devkit::test_table_name("test", &ulid::Ulid::new().to_string().to_lowercase());
    devkit::create_table(&client, &name, &template_in(design).table)
        .await
        .unwrap();
    store::Table::new(client, name).recording()
}

/// Most rounds of stream handlers writing what other stream records then carry.
const FANOUT_ROUNDS: usize = 4;

/// What the stream handlers do with the changes of `requests`: each consumer of the template
/// gets the records its `FilterCriteria` pass, in batches of its `BatchSize`, and the records
/// their own writes make go round again until there are none. The requests they sent.
async fn fan_out(
    t: &Template,
    table: &store::Table,
    requests: &[store::Request],
) -> Vec<store::Request> {
    let mut records = crate::replay::stream_records(requests);
    let mut sent = Vec::new();
    for _ in 0..FANOUT_ROUNDS {
        if records.is_empty() {
            return sent;
        }
        table.meter().reset();
        for f in t.functions.iter().filter(|f| !f.streams.is_empty()) {
            for mapping in &f.streams {
                for batch in crate::replay::batches(mapping, &records) {
                    handle_batch(f, table, &testkit::stream_event(batch)).await;
                    assert_within_policy_if_any(f, &table.meter().requests());
                }
            }
        }
        let round = table.meter().requests();
        records = crate::replay::stream_records(&round);
        sent.extend(round);
    }
    panic!("the stream handlers still write records after {FANOUT_ROUNDS} rounds: a loop?");
}

/// Stream handler `f`'s answer to `event` on `table`, which must fail no record.
async fn handle_batch(f: &Function, table: &store::Table, event: &stream_handler::Event) {
    let response = crate::dispatch::handle_stream(f.name(), table, event)
        .await
        .unwrap_or_else(|| panic!("no stream handler for {}", f.name()));
    assert!(
        response.batch_item_failures.is_empty(),
        "{}: {response:?}",
        f.name()
    );
}

/// [`assert_within_policy`], for a batch that may have sent nothing.
fn assert_within_policy_if_any(f: &Function, requests: &[store::Request]) {
    if !requests.is_empty() {
        assert_within_policy(f, requests);
    }
}

/// `example`, a request to `route` of API function `f`, through its handler on `table`: its
/// answer, and its cost then its stream fan-out's.
async fn send(
    t: &Template,
    table: &store::Table,
    f: &api::Function,
    route: &api::Route,
    example: &api::function::Example,
) -> (u16, Value, Cost, Cost) {
    let (status, body, cost, fanout, _) =
        send_in(t, table, f, route, example, default_design()).await;
    (status, body, cost, fanout)
}

/// [`send`], with `design` as the function's setting where it takes one, billed on `design`'s
/// indexes: also its profile (of no pattern yet).
async fn send_in(
    t: &Template,
    table: &store::Table,
    f: &api::Function,
    route: &api::Route,
    example: &api::function::Example,
    design: IndexDesign,
) -> (u16, Value, Cost, Cost, devkit::profile::Profile) {
    table.meter().reset();
    let event = crate::sample_events::example_event(route, example);
    let deps = testkit::deps(table.clone(), f.needs)
        .with_setting(&INDEX_DESIGN, design.as_str())
        .unwrap();
    let response = catalogue::handle(f.name, &deps, testkit::request(&event))
        .await
        .unwrap_or_else(|| panic!("no handler for {}", f.name));
    let (status, body) = testkit::response_json(&response);
    let requests = table.meter().requests();
    if let Some(declared) = t.function(f.name) {
        assert_within_policy_if_any(declared, &requests);
    }
    let fanout = fan_out(t, table, &requests).await;
    crate::cost::assert_reads_agree(&requests);
    crate::cost::assert_reads_agree(&fanout);
    let indexes = devkit::size::deployed_indexes_in(design);
    let profile = devkit::profile::Profile {
        function: f.name.to_owned(),
        pattern: String::new(),
        route: format!("{} {}", route.method.as_str(), route.path),
        request: format!("{} {}", route.method.as_str(), example.target),
        sample: false,
        shape: None,
        design: None,
        requests: sent(&requests, indexes),
        round_trips: devkit::profile::round_trips(&requests),
        fanout: sent(&fanout, indexes),
    };
    (
        status,
        body,
        Cost::of(&requests),
        Cost::of(&fanout),
        profile,
    )
}

/// Every API sample through its handler, each on a freshly seeded table: the cost of each. The
/// functions whose requests depend on the template's `IndexDesign` (they declare its setting,
/// `INDEX_DESIGN`) are profiled in each other design too, for the capacity planner.
async fn api_samples(t: &Template) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut profiles = Vec::new();
    for f in t.functions.iter().filter(|f| !f.routes.is_empty()) {
        let (row, profile) = api_sample(t, f, default_design()).await;
        rows.push(row);
        profiles.push(profile);
    }
    for design in IndexDesign::ALL
        .into_iter()
        .filter(|d| *d != default_design())
    {
        let t = template_in(design);
        for f in t
            .functions
            .iter()
            .filter(|f| !f.routes.is_empty() && depends_on_index_design(f.name()))
        {
            let (_, mut profile) = api_sample(&t, f, design).await;
            profile.design = Some(design.as_str().to_owned());
            profiles.push(profile);
        }
    }
    // Every other pattern's example, so the planner plans each route from its own request
    // (`GET /warehouses/{warehouseId}` from a warehouse's, not the function's sample of a job).
    let sampled: Vec<(String, String)> = profiles
        .iter()
        .map(|p| (p.route.clone(), p.pattern.clone()))
        .collect();
    for design in IndexDesign::ALL {
        let t = template_in(design);
        for &(f, route) in catalogue::ROUTES.iter() {
            if design != default_design() && !depends_on_index_design(f.name) {
                continue;
            }
            for pattern in route.patterns {
                let label = if pattern.id.is_empty() {
                    "—"
                } else {
                    pattern.id
                };
                let key = format!("{} {}", route.method.as_str(), route.path);
                if sampled.contains(&(key, label.to_owned())) {
                    continue;
                }
                let table = seeded_table_in(design).await;
                let (status, body, _, _, mut profile) =
                    send_in(&t, &table, f, route, &pattern.example, design).await;
                assert!(
                    (200..300).contains(&status),
                    "{} {}'s example: {status} {body}",
                    f.name,
                    label
                );
                profile.pattern = label.to_owned();
                if design != default_design() {
                    profile.design = Some(design.as_str().to_owned());
                }
                profiles.push(profile);
            }
        }
    }
    check_profiles(&profiles, "lab/planner/profiles.json");
    rows
}

/// Whether API function `name` reads the index design from its environment: its requests
/// depend on it.
fn depends_on_index_design(name: &str) -> bool {
    catalogue::function(name).is_some_and(|f| f.needs.settings.contains(&INDEX_DESIGN))
}

/// API function `f`'s sample through its handler, on a freshly seeded table of `t` (the template
/// deployed with `IndexDesign` = `design`), with `design` as its setting where it takes one: its
/// cost, and its profile.
async fn api_sample(
    t: &Template,
    f: &Function,
    design: IndexDesign,
) -> (Row, devkit::profile::Profile) {
    let table = seeded_table_in(design).await;
    let sample = testkit::sample_event(&format!("{}.json", f.name()));
    let declared =
        catalogue::function(f.name()).unwrap_or_else(|| panic!("no handler for {}", f.name()));
    let deps = testkit::deps(table.clone(), declared.needs)
        .with_setting(&INDEX_DESIGN, design.as_str())
        .unwrap();
    let response = catalogue::handle(f.name(), &deps, testkit::request(&sample))
        .await
        .unwrap_or_else(|| panic!("no handler for {}", f.name()));
    let (status, body) = testkit::response_json(&response);
    crate::openapi::assert_event_answer(&sample, status, &body);
    assert!(
        (200..300).contains(&status),
        "{} ({}): {status} {body}",
        f.name(),
        design.as_str()
    );
    let requests = table.meter().requests();
    assert_within_policy(f, &requests);
    let fanout = fan_out(t, &table, &requests).await;
    crate::cost::assert_reads_agree(&requests);
    crate::cost::assert_reads_agree(&fanout);
    let query = sample["rawQueryString"].as_str().unwrap_or_default();
    let target = format!(
        "{}{}{query}",
        sample["rawPath"].as_str().unwrap_or("?"),
        if query.is_empty() { "" } else { "?" },
    );
    let method = sample["requestContext"]["http"]["method"]
        .as_str()
        .unwrap_or("?");
    let request = format!("`{method} {target}`");
    // The pattern the sample exercises: the one whose example it is (checked for every
    // function by `catalogue::every_function_has_a_sample_request_among_its_patterns_examples`).
    let pattern = catalogue::PATTERNS
        .iter()
        .find(|p| p.operation().function == f.name() && p.example.target == target)
        .map_or("?", |p| p.label());
    let indexes = devkit::size::deployed_indexes_in(design);
    let route = sample["routeKey"].as_str().unwrap_or("?");
    let profile = devkit::profile::Profile {
        function: f.name().to_owned(),
        pattern: pattern.to_owned(),
        route: route.to_owned(),
        request: request.trim_matches('`').to_owned(),
        sample: true,
        shape: None,
        design: None,
        requests: sent(&requests, indexes),
        round_trips: devkit::profile::round_trips(&requests),
        fanout: sent(&fanout, indexes),
    };
    let row = Row {
        pattern: pattern.to_owned(),
        function: f.name().to_owned(),
        request,
        cost: Cost::of(&requests),
        fanout: Cost::of(&fanout),
    };
    (row, profile)
}

/// The requests as the capacity planner's profiles hold them, their writes billed on `indexes`
/// (the table's, in the design the requests were sent in).
fn sent(
    requests: &[store::Request],
    indexes: &[sam_template::Index],
) -> Vec<devkit::profile::Sent> {
    devkit::profile::Sent::sorted(
        requests
            .iter()
            .map(|r| devkit::profile::Sent::of(r, indexes))
            .collect(),
    )
}

/// `file` (`lab/planner/profiles.json`, `worst-profiles.json`) must hold what the requests sent
/// (`make cost` writes it): the capacity planner plans a route from its profile, or holds its
/// model to its function's sample.
fn check_profiles(profiles: &[devkit::profile::Profile], file: &str) {
    let path = sam_template::workspace_root().join(file);
    let text = serde_json::to_string_pretty(profiles).unwrap() + "\n";
    if std::env::var_os("UPDATE_COST_TABLE").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let on_file = std::fs::read_to_string(&path).unwrap_or_default();
    let parsed: Vec<devkit::profile::Profile> = serde_json::from_str(&on_file).unwrap_or_default();
    if parsed != profiles {
        let differ: Vec<&str> = profiles
            .iter()
            .filter(|p| !parsed.contains(p))
            .map(|p| p.function.as_str())
            .collect();
        panic!(
            "{file} is not what the samples sent ({}): run `make cost`",
            differ.join(", ")
        );
    }
}

/// Every stream sample batch through its handler, each on a freshly seeded table.
async fn stream_samples(t: &Template) -> Vec<Row> {
    let mut rows = Vec::new();
    for f in t.functions.iter().filter(|f| !f.streams.is_empty()) {
        let table = seeded_table().await;
        let sample: stream_handler::Event =
            serde_json::from_value(testkit::sample_event(&format!("{}.json", f.name())))
                .unwrap_or_else(|e| {
                    panic!(
                        "events/{}.json is not a DynamoDB Streams event: {e}",
                        f.name()
                    )
                });
        handle_batch(f, &table, &sample).await;
        let requests = table.meter().requests();
        assert_within_policy(f, &requests);
        let request = format!("a batch of {} records", sample.records.len());
        let fanout = fan_out(t, &table, &requests).await;
        crate::cost::assert_reads_agree(&requests);
        crate::cost::assert_reads_agree(&fanout);
        crate::cost::assert_reads_agree(&requests);
        crate::cost::assert_reads_agree(&fanout);
        rows.push(Row {
            pattern: "stream".into(),
            function: f.name().to_owned(),
            request,
            cost: Cost::of(&requests),
            fanout: Cost::of(&fanout),
        });
    }
    rows
}

/// API function `name` and its only route.
fn only_route(name: &str) -> (&'static api::Function, &'static api::Route) {
    let f = catalogue::function(name).unwrap_or_else(|| panic!("no function {name}"));
    let [route] = f.routes else {
        panic!("{name} has several routes");
    };
    (f, route)
}

/// API function `name` and its route whose path template `example`'s target fits (the same
/// segments, its literal ones equal).
fn route_for(
    name: &str,
    example: &api::function::Example,
) -> (&'static api::Function, &'static api::Route) {
    let f = catalogue::function(name).unwrap_or_else(|| panic!("no function {name}"));
    let path = example.target.split('?').next().unwrap_or_default();
    let fits = |r: &&api::Route| {
        let (template, target): (Vec<&str>, Vec<&str>) =
            (r.path.split('/').collect(), path.split('/').collect());
        template.len() == target.len()
            && template
                .iter()
                .zip(&target)
                .all(|(t, s)| t.starts_with('{') || t == s)
    };
    let route = f
        .routes
        .iter()
        .find(fits)
        .unwrap_or_else(|| panic!("{name} has no route for {path}"));
    (f, route)
}

/// Sends `worst`'s setup requests on `table`, each of which must succeed.
async fn set_up(t: &Template, table: &store::Table, worst: &api::function::Worst) {
    for (name, example) in &worst.setup {
        let (setup, route) = route_for(name, example);
        let (status, body, _, _) = send(t, table, setup, route, example).await;
        assert!((200..300).contains(&status), "{name}: {status} {body}");
    }
}

/// A route's declared worst case: its setup, then it, on a freshly seeded table.
async fn worst_case(
    t: &Template,
    f: &'static api::Function,
    route: &'static api::Route,
    worst: &api::function::Worst,
) -> (Row, devkit::profile::Profile) {
    let table = seeded_table().await;
    set_up(t, &table, worst).await;
    let (status, body, cost, fanout, mut profile) =
        send_in(t, &table, f, route, &worst.request, default_design()).await;
    match worst.status {
        Some(expected) => assert_eq!(status, expected, "{}'s worst case: {body}", f.name),
        None => assert!(
            (200..300).contains(&status),
            "{}'s worst case: {status} {body}",
            f.name
        ),
    }
    let ids: Vec<&str> = route.patterns.iter().map(|p| p.id).collect();
    let pattern = match ids.as_slice() {
        [] | [""] => "—".to_owned(),
        [id] => (*id).to_owned(),
        [first, .., last] => format!("{first}–{last}"),
    };
    profile.pattern = pattern.clone();
    profile.shape = Some("worst".to_owned());
    let row = Row {
        pattern,
        function: f.name.to_owned(),
        request: format!("`{} {}`: {}", route.method.as_str(), route.path, worst.what),
        cost,
        fanout,
    };
    (row, profile)
}

/// Every write route's and every public read's declared worst case, each route once, in the
/// catalogue's order: anyone can send a public read, so what it can cost is stated too.
async fn worst_cases(
    t: &Template,
) -> Vec<(
    &'static api::Function,
    &'static api::Route,
    Row,
    devkit::profile::Profile,
)> {
    let mut rows = Vec::new();
    let declares = |(f, r): &&(&api::Function, &api::Route)| {
        r.method != api::Method::Get || f.access == api::Access::Public
    };
    for &(f, route) in catalogue::ROUTES.iter().filter(declares) {
        let worst = catalogue::contract(f, route)
            .worst
            .unwrap_or_else(|| {
                panic!(
                    "{} {}: a write route and a public read declare their worst case (`Contract::worst`)",
                    route.method.as_str(),
                    route.path
                )
            })
            .build();
        let (row, profile) = worst_case(t, f, route, &worst).await;
        rows.push((f, route, row, profile));
    }
    rows
}

#[tokio::test]
async fn every_sample_goes_through_its_handler_within_its_policy_at_the_documented_cost() {
    let t = Template::workspace().unwrap();
    let (mut rows, batches) = tokio::join!(api_samples(&t), stream_samples(&t));
    rows.extend(batches);
    crate::cost::check_readme(&rows);
}

#[tokio::test]
async fn every_worst_case_and_the_cost_guard_on_them_are_documented() {
    let t = Template::workspace().unwrap();
    let cases = worst_cases(&t).await;
    // The planner's other shape of a call (`shape: worst` in a workload).
    let profiles: Vec<_> = cases.iter().map(|(_, _, _, p)| p.clone()).collect();
    check_profiles(&profiles, "lab/planner/worst-profiles.json");
    // What anyone can make one call cost is in the contract too.
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(f, route, row, _)| {
            let stated = crate::openapi::worst_case_read_units(route.method.as_str(), route.path);
            let measured = (f.access == api::Access::Public).then_some(row.cost.read_units);
            (stated != measured).then(|| {
                format!(
                    "{} {}: states {stated:?}, measured {measured:?} ({})",
                    route.method.as_str(),
                    route.path,
                    row.request
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "openapi.yaml's x-worst-case-read-units against the measured worst cases:\n{}",
        wrong.join("\n")
    );
    let public = cases
        .iter()
        .filter(|(f, _, _, _)| f.access == api::Access::Public)
        .count();
    assert_eq!(
        crate::openapi::stating_worst_case_read_units(),
        public,
        "openapi.yaml states x-worst-case-read-units on the public operations only"
    );
    let rows: Vec<_> = cases.into_iter().map(|(_, _, row, _)| row).collect();
    crate::cost::check_worst(&rows);
    crate::cost::check_guard(&t, &rows);
}

/// The finding: an order of 48 lines is billed for its lines and their stream
/// fan-out, which DynamoDB Local's report cannot see.
#[tokio::test]
async fn an_order_of_48_lines_is_billed_for_every_line_and_its_fan_out() {
    let t = Template::workspace().unwrap();
    let (f, route) = only_route("place-order");
    let worst = catalogue::contract(f, route)
        .worst
        .expect("place-order's worst case")
        .build();
    let table = seeded_table().await;
    set_up(&t, &table, &worst).await;
    let request: Value = serde_json::from_str(worst.request.body.unwrap()).unwrap();
    let lines = request["items"].as_array().map_or(0, Vec::len);
    assert!(lines > 1, "{request}");
    let (status, body, big, big_fanout) = send(&t, &table, f, route, &worst.request).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["items"].as_array().map(Vec::len), Some(lines));
    // The same order of its first line only.
    let mut one = request.clone();
    one["items"].as_array_mut().unwrap().truncate(1);
    let one = api::function::Example {
        body: Some(one.to_string().leak()),
        ..worst.request
    };
    // On a table of its own, its product only: every other item as the big order found it.
    let table = seeded_table().await;
    let (name, product) = &worst.setup[0];
    let (setup, setup_route) = route_for(name, product);
    send(&t, &table, setup, setup_route, product).await;
    let (status, body, small, small_fanout) = send(&t, &table, f, route, &one).await;
    assert_eq!(status, 201, "{body}");
    // Each line more: its item and its price check in the transaction (2 units each at the
    // least), its line in GSI1 (1 at the least); the fan-out's write of its product's sales
    // shard is not counted, as it coalesces with another line's of the same product.
    let more = (lines - 1) as f64;
    assert!(
        big.write_units >= small.write_units + more * (2.0 + 2.0 + 1.0),
        "{big:?} against {small:?}"
    );
    // And in the fan-out, each line more: its product's sales shard, one UpdateItem (1 unit at
    // the least; each line is another product).
    assert!(
        big_fanout.write_units >= small_fanout.write_units + more * 1.0,
        "{big_fanout:?} against {small_fanout:?}"
    );
    // What DynamoDB Local reports cannot tell them apart; the bill can.
    assert!(big.write_units > big.reported_write_units, "{big:?}");
}

#[test]
fn the_policy_check_sees_resources_and_transaction_parts() {
    // The check itself: a GSI2 query under a policy scoped to GSI1 fails, and so does a
    // transaction whose part the policy lacks.
    let t = Template::workspace().unwrap();
    let get_user = t.function("get-user").unwrap();
    let query = |index| store::Request {
        index,
        read_units: 0.5,
        items: 1,
        ..store::Request::new("Query")
    };
    assert_within_policy(get_user, &[query(Some("GSI1"))]);
    for wrong in [query(Some("GSI2")), query(None)] {
        let caught = std::panic::catch_unwind(|| assert_within_policy(get_user, &[wrong]));
        assert!(caught.is_err());
    }
    let put_review = t.function("put-review").unwrap();
    let tx = |parts| store::Request {
        write_units: 2.0,
        items: 2,
        parts,
        ..store::Request::new("TransactWriteItems")
    };
    assert_within_policy(
        put_review,
        &[tx(vec!["dynamodb:PutItem", "dynamodb:ConditionCheckItem"])],
    );
    let caught = std::panic::catch_unwind(|| {
        assert_within_policy(put_review, &[tx(vec!["dynamodb:UpdateItem"])])
    });
    assert!(caught.is_err());
}

/// A record no handler owns (another source's id format, an item of no entity they derive from)
/// is skipped by both stream handlers, never a failure or poison; an owned record with another
/// source's sequence number is poison, reported alone.
#[tokio::test]
async fn a_record_a_stream_handler_does_not_own_is_never_a_failure() {
    let sample = testkit::sample_event("commerce-stream.json");
    let mut foreign = sample["Records"][0].clone();
    foreign["eventID"] =
        "shardId-000000000000:49590338271490256608559692538361571095921575989136588898".into();
    foreign["dynamodb"]["NewImage"]["Type"] = serde_json::json!({ "S": "SomebodyElses" });
    let mut no_item = foreign.clone();
    no_item["dynamodb"]
        .as_object_mut()
        .unwrap()
        .remove("NewImage");
    for function in ["commerce-stream", "aggregate-reviews"] {
        let table = seeded_table().await;
        let event: stream_handler::Event = serde_json::from_value(serde_json::json!({
            "Records": [foreign.clone(), no_item.clone()],
            "shardId": sample["shardId"],
            "eventSourceARN": sample["eventSourceARN"],
        }))
        .unwrap();
        let r = crate::dispatch::handle_stream(function, &table, &event)
            .await
            .unwrap();
        assert!(r.batch_item_failures.is_empty(), "{function}: {r:?}");
        assert!(r.poison.is_empty(), "{function}: {:?}", r.poison);
        assert!(
            table.meter().requests().is_empty(),
            "{function} wrote nothing"
        );
    }
    // A record commerce-stream owns with another source's sequence number (Kinesis's form): it
    // cannot be ordered against the shard's marks, so it is poison, that record only.
    let mut owned = sample["Records"][0].clone();
    owned["dynamodb"]["SequenceNumber"] = foreign["eventID"].clone();
    let event: stream_handler::Event = serde_json::from_value(serde_json::json!({
        "Records": [owned],
        "shardId": sample["shardId"],
        "eventSourceARN": sample["eventSourceARN"],
    }))
    .unwrap();
    let table = seeded_table().await;
    let r = crate::dispatch::handle_stream("commerce-stream", &table, &event)
        .await
        .unwrap();
    assert!(r.batch_item_failures.is_empty());
    assert_eq!(r.poison.len(), 1, "{:?}", r.poison);
}
