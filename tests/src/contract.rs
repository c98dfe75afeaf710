use std::collections::BTreeSet;

use sam_template::{Template, workspace_root};

/// The binaries of the context crates: `functions/<context>/src/bin/<name>.rs` (beside the
/// crates, `functions/build.rs`, their build script).
fn binaries() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for context in std::fs::read_dir(workspace_root().join("functions")).expect("functions/") {
        let context = context.expect("an entry").path();
        if !context.join("Cargo.toml").is_file() {
            continue;
        }
        let bin = context.join("src/bin");
        for file in std::fs::read_dir(&bin).unwrap_or_else(|e| panic!("{}: {e}", bin.display())) {
            let file = file.expect("an entry").path();
            if let Some(name) = file
                .file_name()
                .and_then(|n| n.to_str()?.strip_suffix(".rs"))
            {
                names.insert(name.to_owned());
            }
        }
    }
    names
}

#[test]
fn every_template_function_has_its_binary_and_declaration_and_every_binary_its_template_entry() {
    let t = Template::workspace().unwrap();
    let in_template: BTreeSet<String> = t.functions.iter().map(|f| f.name().to_owned()).collect();
    assert_eq!(
        in_template,
        binaries(),
        "template functions vs functions/*/src/bin/*.rs"
    );
    let declared: BTreeSet<String> = catalogue::FUNCTIONS
        .iter()
        .map(|f| f.name)
        .chain(catalogue::CONSUMERS.iter().map(|c| c.name))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        in_template, declared,
        "template functions vs the contexts' declarations"
    );
    for f in &t.functions {
        assert!(
            !f.routes.is_empty() || !f.streams.is_empty(),
            "{} is invoked by nothing",
            f.name()
        );
        assert!(!f.policy_actions.is_empty(), "{} has no policy", f.name());
        assert!(
            f.policy_actions
                .iter()
                .all(|a| ["dynamodb:", "sqs:", "logs:"]
                    .iter()
                    .any(|p| a.starts_with(p))
                    && !a.contains('*')
                    || ["xray:PutTraceSegments", "xray:PutTelemetryRecords"].contains(&a.as_str())),
            "{}: least privilege means named actions only (and X-Ray's two for tracing): {:?}",
            f.name(),
            f.policy_actions
        );
    }
}

#[test]
fn every_function_has_a_sample_event_for_its_route() {
    let t = Template::workspace().unwrap();
    for f in t.functions.iter().filter(|f| !f.routes.is_empty()) {
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        let route_key = sample["routeKey"].as_str().unwrap_or_default();
        assert!(
            f.routes.iter().any(|r| r.route_key() == route_key),
            "events/{}.json is for {route_key:?}, not a route of {}",
            f.name(),
            f.name()
        );
    }
}

#[test]
fn every_stream_handler_has_a_sample_batch_and_honest_settings() {
    let t = Template::workspace().unwrap();
    for f in t.functions.iter().filter(|f| !f.streams.is_empty()) {
        let sample = testkit::sample_event(&format!("{}.json", f.name()));
        assert!(
            sample["Records"].as_array().is_some_and(|r| !r.is_empty()),
            "events/{}.json has no Records",
            f.name()
        );
        for s in &f.streams {
            assert!(
                s.report_batch_item_failures,
                "{}: ReportBatchItemFailures",
                f.name()
            );
            assert!(
                s.bisect_batch_on_function_error,
                "{}: BisectBatchOnFunctionError",
                f.name()
            );
            // The marks that count each record once (`store::aggregate`) need the shard named
            // in each event (only a tumbling window gives it) and its batches one at a time.
            assert!(
                s.tumbling_window_seconds.is_some_and(|w| w > 0),
                "{}: TumblingWindowInSeconds, or the events name no shard",
                f.name()
            );
            assert_eq!(
                s.parallelization_factor,
                1,
                "{}: ParallelizationFactor 1: two batches of a shard at once share its marks",
                f.name()
            );
            // Retried while a retry can help (the marks make retries harmless), but never
            // until the stream drops the record (24 hours' retention): a record older than the
            // bound goes to the failure destination, with its shard and sequence range, an hour
            // or more before it would vanish with nothing sent anywhere. Records that can never
            // succeed go there from the handler at once.
            let retention = 24 * 3600;
            assert!(
                s.maximum_record_age_seconds
                    .is_some_and(|age| (60..=retention - 3600).contains(&age)),
                "{}: MaximumRecordAgeInSeconds {:?}: bounded, an hour or more within the stream's \
                 retention",
                f.name(),
                s.maximum_record_age_seconds
            );
            assert!(
                s.maximum_retry_attempts.is_some(),
                "{}: MaximumRetryAttempts stated",
                f.name()
            );
            assert!(
                f.environment.contains_key("FAILURE_QUEUE_URL"),
                "{}: where the handler sends records that can never succeed",
                f.name()
            );
            assert_eq!(
                s.on_failure_destination.as_deref(),
                Some("StreamFailureQueue"),
                "{}: the failure queue as its on-failure destination",
                f.name()
            );
            // The records its mapping hands over are the sources it declares: a type added
            // to one and not the other is lost, or read for nothing.
            let consumer = catalogue::consumer(f.name())
                .unwrap_or_else(|| panic!("{}: no such consumer in the catalogue", f.name()));
            assert_eq!(
                s.filter_patterns,
                consumer.filter_patterns(),
                "{}: FilterCriteria, as its CONSUMER's sources make them",
                f.name()
            );
        }
    }
}

#[test]
fn routes_are_unique() {
    let t = Template::workspace().unwrap();
    let mut seen = BTreeSet::new();
    for r in t.functions.iter().flat_map(|f| &f.routes) {
        assert!(
            seen.insert(r.route_key()),
            "{} is declared twice",
            r.route_key()
        );
    }
}

#[test]
fn every_function_gets_exactly_the_environment_it_declares() {
    // A function declares what it reads beyond the table (`NEEDS`); the template must give it
    // that (or it would not start) and no secret it does not need.
    let t = Template::workspace().unwrap();
    let optional = [
        "CURSOR_SIGNING_KEY",
        "CURSOR_SIGNING_KEY_PREVIOUS",
        "AGGREGATE_SHARDS",
        "ORDER_STATUS_SHARDS",
        store::HR_TABLE.variable,
        store::REVIEWS_TABLE.variable,
    ];
    for f in &t.functions {
        let needs = crate::dispatch::needs(f.name())
            .unwrap_or_else(|| panic!("{} is not in the dispatch table", f.name()));
        let wanted = needs.variables();
        for var in wanted.iter() {
            assert!(
                f.environment.contains_key(*var),
                "{}: {var} is missing",
                f.name()
            );
        }
        for var in optional {
            assert_eq!(
                f.environment.contains_key(var),
                wanted.contains(&var),
                "{}: {var}",
                f.name()
            );
        }
    }
}

#[tokio::test]
async fn every_route_has_a_handler() {
    let t = Template::workspace().unwrap();
    let table = store::Table::new(devkit::client(), "never-used");
    for f in &t.functions {
        for route in &f.routes {
            // A request with no path parameters: a handler answers 400 without touching the table.
            let ev = testkit::event(&route.route_key(), "/", &[], None);
            let answer = crate::dispatch::handle(f.name(), &table, testkit::request(&ev)).await;
            assert!(answer.is_some(), "no handler for {}", f.name());
        }
        if !f.streams.is_empty() {
            let empty = testkit::stream_event(Vec::new());
            let answer = crate::dispatch::handle_stream(f.name(), &table, &empty).await;
            assert!(answer.is_some(), "no stream handler for {}", f.name());
        }
    }
}

#[test]
fn a_route_is_public_in_the_template_exactly_when_its_function_says_so() {
    let t = Template::workspace().unwrap();
    let auth = t
        .api_auth
        .as_ref()
        .expect("the HTTP API has a default JWT authorizer");
    assert_eq!(auth.identity_source, "$request.header.Authorization");
    assert!(!auth.scopes.is_empty(), "signed-in routes require a scope");
    for f in &t.functions {
        for route in &f.routes {
            let access = crate::dispatch::access(f.name()).unwrap();
            assert_eq!(
                route.public,
                !access.signed_in(),
                "{}: the template says public = {}, the function declares {access:?}",
                route.route_key(),
                route.public
            );
        }
    }
}

/// Public routes throttle on their own settings: each route that takes no token has a
/// `RouteSettings` entry at the public rate, and no signed-in route has one (it keeps the
/// default), so anonymous callers cannot use up the rate of the routes customers sign in to.
#[test]
fn every_public_route_and_only_those_throttle_on_their_own() {
    let t = Template::workspace().unwrap();
    let public: std::collections::BTreeSet<String> = t
        .functions
        .iter()
        .flat_map(|f| &f.routes)
        .filter(|r| r.public)
        .map(|r| r.route_key())
        .collect();
    let parameter = |v: &Option<sam_template::Setting>| {
        v.as_ref()
            .and_then(|s| s.parameter.clone())
            .unwrap_or_default()
    };
    let throttled: std::collections::BTreeSet<String> = t
        .api_throttle
        .routes
        .iter()
        .map(|(k, v)| {
            assert_eq!(
                (parameter(&v.rate).as_str(), parameter(&v.burst).as_str()),
                ("PublicRouteRateLimit", "PublicRouteBurstLimit"),
                "{k}"
            );
            k.clone()
        })
        .collect();
    assert!(!public.is_empty());
    assert_eq!(throttled, public);
    let default = t
        .api_throttle
        .default
        .as_ref()
        .expect("DefaultRouteSettings");
    assert_eq!(parameter(&default.rate), "ApiRateLimit");
    assert_eq!(parameter(&default.burst), "ApiBurstLimit");
    let value = |v: &Option<sam_template::Setting>| v.as_ref().unwrap().value;
    let public_route = t.api_throttle.routes.values().next().unwrap();
    assert!(value(&public_route.rate) <= value(&default.rate));
    assert!(value(&public_route.burst) <= value(&default.burst));
}

/// DynamoDB Streams serves at most two concurrent readers per shard before it throttles them:
/// one consumer per context with derived data (commerce, reviews), never one per handler. With
/// one table both read its stream; with a table per context each reads its own.
#[test]
fn the_table_stream_has_at_most_two_consumers() {
    for t in layouts() {
        let consumers: Vec<&str> = t
            .functions
            .iter()
            .filter(|f| !f.streams.is_empty())
            .map(|f| f.name())
            .collect();
        assert_eq!(consumers, ["commerce-stream", "aggregate-reviews"]);
        for table in &t.tables {
            let mappings: Vec<&str> = t
                .functions
                .iter()
                .flat_map(|f| f.streams.iter().map(move |s| (f.name(), &s.table)))
                .filter(|(_, s)| **s == table.logical_id)
                .map(|(f, _)| f)
                .collect();
            assert!(
                mappings.len() <= 2,
                "{} event source mappings read {}'s stream: {mappings:?}",
                mappings.len(),
                table.logical_id
            );
            assert_eq!(
                table.stream_view_type.is_some(),
                !mappings.is_empty(),
                "{}: a stream exactly when a consumer reads it",
                table.logical_id
            );
        }
    }
}

/// The template deployed in each `TableLayout`: one table, then a table per context.
fn layouts() -> [Template; 2] {
    use sam_template::layout::{ALL, PARAMETER};
    ALL.map(|layout| Template::workspace_with(&[(PARAMETER, layout)]).unwrap())
}

/// In each layout every function reads and writes its context's table (`Table` for all with one
/// table), through IAM that names that table, its indexes there and nothing else but the other
/// contexts' tables it declares it reaches ([`store::Peer`]): commerce's checks of an employee
/// and a warehouse in HR's, the reviews' share of the daily counts in reviews'. Every index a
/// policy names exists on that table in that layout.
#[test]
fn each_function_reaches_its_context_s_table_and_only_the_crossings_it_declares() {
    let mut crossings = BTreeSet::new();
    for t in layouts() {
        let per_context = t.parameter(sam_template::layout::PARAMETER)
            == Some(sam_template::layout::TABLE_PER_CONTEXT);
        assert_eq!(t.tables.len(), if per_context { 4 } else { 1 });
        let home = |context: &str| match per_context {
            true => sam_template::context_table(context),
            false => "Table".to_owned(),
        };
        for f in &t.functions {
            let context = catalogue::context(f.name())
                .unwrap_or_else(|| panic!("{}: no context declares it", f.name()));
            let own = home(context);
            assert_eq!(f.table(), Some(own.as_str()), "{}: TABLE_NAME", f.name());
            let needs = crate::dispatch::needs(f.name()).unwrap();
            let mut reachable = BTreeSet::from([own.clone()]);
            for peer in needs.peers {
                let theirs = home(peer.context);
                crossings.insert((f.name().to_owned(), peer.context));
                assert_eq!(
                    f.environment.get(peer.variable),
                    Some(&sam_template::EnvValue::Ref(theirs.clone())),
                    "{}: {}",
                    f.name(),
                    peer.variable
                );
                reachable.insert(theirs);
            }
            for s in &f.streams {
                assert_eq!(s.table, own, "{}: reads its own table's stream", f.name());
            }
            for statement in &f.policy {
                for r in &statement.resources {
                    let (table, index) = match r {
                        sam_template::Resource::Table(table) => (table, None),
                        sam_template::Resource::Index(table, index) => (table, Some(index)),
                        sam_template::Resource::Other(text) => {
                            // A stream's ARN: its own table's only.
                            if text.contains(".Arn}/stream/") {
                                assert_eq!(text, &format!("${{{own}.Arn}}/stream/*"));
                            }
                            continue;
                        }
                    };
                    assert!(
                        reachable.contains(table),
                        "{}: {statement:?} names {table}, not its table ({own}) or one it \
                         declares",
                        f.name()
                    );
                    if let Some(index) = index {
                        let declared = t.tables.iter().find(|d| d.logical_id == *table).unwrap();
                        assert!(
                            declared.global_indexes.iter().any(|i| i.name == *index),
                            "{}: {index} is not an index of {table} in this layout",
                            f.name()
                        );
                    }
                }
            }
        }
    }
    let crossings: Vec<_> = crossings
        .iter()
        .map(|(f, c)| format!("{f} -> {c}"))
        .collect();
    assert_eq!(
        crossings,
        [
            "get-daily-stats -> reviews",
            "put-customer -> hr",
            "put-inventory -> hr"
        ],
        "the crossings docs/one-table-or-many.md lists"
    );
}

/// Stream consumers name their own role: SAM would attach `AWSLambdaDynamoDBExecutionRole`
/// (stream actions and logs on every resource) to one it makes. Their statements name the table's
/// stream, the table, the failure queue and their log group: nothing is `*`.
#[test]
fn stream_consumers_have_their_own_least_privilege_role() {
    let t = Template::workspace().unwrap();
    for f in t.functions.iter().filter(|f| !f.streams.is_empty()) {
        assert!(f.role, "{}: its own Role, not one SAM makes", f.name());
        let stream_actions = [
            "dynamodb:DescribeStream",
            "dynamodb:GetRecords",
            "dynamodb:GetShardIterator",
            "dynamodb:ListStreams",
        ];
        for statement in &f.policy {
            for r in &statement.resources {
                let text = format!("{r:?}");
                assert!(
                    !text.contains("\"*\"") && text != "Other(\"*\")",
                    "{}: {r:?}",
                    f.name()
                );
            }
            if statement
                .actions
                .iter()
                .any(|a| stream_actions.contains(&a.as_str()))
            {
                assert_eq!(
                    statement.resources,
                    [sam_template::Resource::Other(format!(
                        "${{{}.Arn}}/stream/*",
                        f.streams[0].table
                    ))],
                    "{}: stream actions on the table's stream only",
                    f.name()
                );
            }
        }
        for action in stream_actions.iter().chain(&["sqs:SendMessage"]) {
            assert!(
                f.policy_actions.iter().any(|a| a == action),
                "{}: {action}",
                f.name()
            );
        }
    }
}

/// Every function logs to a log group of the template with a retention period (a group Lambda
/// makes on its own keeps logs forever).
#[test]
fn every_function_logs_to_a_group_with_a_retention_period() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let resources = doc["Resources"].as_mapping().unwrap();
    let mut functions = 0;
    for (id, r) in resources {
        if r["Type"].as_str() != Some("AWS::Serverless::Function") {
            continue;
        }
        functions += 1;
        let group = match &r["Properties"]["LoggingConfig"]["LogGroup"] {
            serde_yaml::Value::Tagged(t) if t.tag == "!Ref" => t.value.as_str().unwrap().to_owned(),
            other => panic!("{id:?}: LoggingConfig.LogGroup is {other:?}"),
        };
        let group = &resources[group.as_str()];
        assert_eq!(
            group["Type"].as_str(),
            Some("AWS::Logs::LogGroup"),
            "{id:?}"
        );
        assert!(
            !group["Properties"]["RetentionInDays"].is_null(),
            "{id:?}: a retention period"
        );
    }
    assert_eq!(functions, Template::workspace().unwrap().functions.len());
}

/// The cart functions may only touch cart partitions (`dynamodb:LeadingKeys`), and the prefix the
/// template allows is the one the key-design crate writes.
#[test]
fn cart_functions_are_held_to_cart_partitions() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let cart = keys::commerce::cart_line(
        &keys::Id::parse("c", "some-cart").unwrap(),
        &keys::Id::parse("p", "p1").unwrap(),
    );
    for (id, r) in doc["Resources"].as_mapping().unwrap() {
        let name = sam_template::function_name(id.as_str().unwrap_or_default());
        if !["put-cart-line", "delete-cart-line", "get-cart"].contains(&name.as_str()) {
            continue;
        }
        for policy in r["Properties"]["Policies"].as_sequence().unwrap() {
            for statement in policy["Statement"].as_sequence().unwrap() {
                let allowed =
                    &statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"];
                let patterns: Vec<&str> = allowed
                    .as_sequence()
                    .unwrap_or_else(|| panic!("{id:?}: no LeadingKeys condition"))
                    .iter()
                    .filter_map(|p| p.as_str())
                    .collect();
                assert_eq!(patterns.len(), 1, "{id:?}");
                let prefix = patterns[0].strip_suffix('*').unwrap();
                assert!(
                    cart.pk().starts_with(prefix),
                    "{id:?}: {} vs {prefix}",
                    cart.pk()
                );
                assert!(
                    !keys::commerce::customer(&keys::Id::parse("c", "CART").unwrap())
                        .pk()
                        .starts_with(prefix),
                    "{id:?}: the prefix ends on the delimiter"
                );
            }
        }
    }
}

/// `make lint` fails on any checkov finding that is not skipped; a skip must say why, on one
/// line: in `.checkov.yaml` for a check every function or log group passes, in a resource's
/// Metadata for one resource's exception (a reviewer sees it next to the resource).
#[test]
fn every_scanner_suppression_names_a_check_and_gives_a_one_line_reason() {
    let check_id = |check: &str| {
        check.starts_with("CKV_AWS_")
            && check.len() > 8
            && check[8..].chars().all(|c| c.is_ascii_digit())
    };
    let one_line = |reason: &str| (20..=120).contains(&reason.len()) && !reason.contains('\n');
    // The stack-wide skips: each `- CKV_AWS_n # reason`, as checkov reads the list.
    let config = std::fs::read_to_string(workspace_root().join(".checkov.yaml")).unwrap();
    let parsed: serde_yaml::Value = serde_yaml::from_str(&config).unwrap();
    let listed: Vec<&str> = parsed["skip-check"]
        .as_sequence()
        .expect("skip-check: a list")
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    let mut global = BTreeSet::new();
    for line in config
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("- "))
    {
        let (check, reason) = line[2..].split_once('#').unwrap_or((&line[2..], ""));
        let (check, reason) = (check.trim(), reason.trim());
        assert!(
            check_id(check),
            ".checkov.yaml: {check:?} is not a checkov AWS check id"
        );
        assert!(
            one_line(reason),
            ".checkov.yaml skips {check}: a reason of 20-120 characters, not {reason:?}"
        );
        assert!(
            global.insert(check.to_owned()),
            ".checkov.yaml skips {check} twice"
        );
    }
    assert_eq!(global.len(), listed.len(), "{listed:?}");
    assert!(listed.iter().all(|c| global.contains(*c)), "{listed:?}");

    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    for (id, r) in doc["Resources"].as_mapping().unwrap() {
        let Some(list) = r["Metadata"]["checkov"]["skip"].as_sequence() else {
            continue;
        };
        let mut seen = BTreeSet::new();
        for skip in list {
            let check = skip["id"].as_str().unwrap_or_default();
            let reason = skip["comment"].as_str().unwrap_or_default();
            assert!(
                check_id(check),
                "{id:?}: {check:?} is not a checkov AWS check id"
            );
            assert!(seen.insert(check), "{id:?} skips {check} twice");
            assert!(
                !global.contains(check),
                "{id:?} skips {check}, which .checkov.yaml already skips everywhere"
            );
            assert!(
                one_line(reason),
                "{id:?} skips {check}: a reason of one line (20-120 characters), not {reason:?}"
            );
        }
    }
}

/// What DynamoDB refuses in a table's keys that `sam validate --lint` and cfn-lint let through:
/// more than four attributes in a key part of a GSI, more than one attribute in a key part of
/// the table or an LSI, a key attribute without an `AttributeDefinitions` entry, a multi-attribute
/// index whose declaration is not the keys crate's (names, order, types).
fn key_problems(table: &sam_template::Table) -> Vec<String> {
    use keys::multi::MAX_KEY_ATTRIBUTES;
    let mut problems = Vec::new();
    let single = std::iter::once(("the table", &table.key)).chain(
        table
            .local_indexes
            .iter()
            .map(|i| (i.name.as_str(), &i.key)),
    );
    for (name, key) in single {
        if key.partition.len() != 1 || key.sort.len() > 1 {
            problems.push(format!(
                "{name}: one HASH and at most one RANGE, not {:?} / {:?}",
                key.partition, key.sort
            ));
        }
    }
    for index in &table.global_indexes {
        for (part, attrs) in [("HASH", &index.key.partition), ("RANGE", &index.key.sort)] {
            if attrs.len() > MAX_KEY_ATTRIBUTES {
                problems.push(format!(
                    "{}: {} {part} attributes, at most {MAX_KEY_ATTRIBUTES}",
                    index.name,
                    attrs.len()
                ));
            }
        }
    }
    let every = std::iter::once(&table.key)
        .chain(table.local_indexes.iter().map(|i| &i.key))
        .chain(table.global_indexes.iter().map(|i| &i.key));
    for key in every {
        for a in key.attributes() {
            if !table.attributes.contains_key(a) {
                problems.push(format!(
                    "{a} is a key attribute missing from AttributeDefinitions"
                ));
            }
        }
    }
    for declared in keys::indexes::ALL {
        let Some(index) = table
            .global_indexes
            .iter()
            .find(|i| i.name == declared.name)
        else {
            // In another table of the layout: the caller checks each is in one.
            continue;
        };
        let names = |attrs: &[keys::KeyAttribute]| -> Vec<String> {
            attrs.iter().map(|a| a.name.to_owned()).collect()
        };
        if index.key.partition != names(declared.partition)
            || index.key.sort != names(declared.sort)
        {
            problems.push(format!(
                "{}: the template's key {:?} / {:?} is not the keys crate's {:?}",
                declared.name, index.key.partition, index.key.sort, declared
            ));
        }
        if index.projection != declared.projection.as_str()
            || index.non_key_attributes != declared.projection.non_key_attributes()
        {
            problems.push(format!(
                "{}: the template projects {} {:?}, the keys crate's readers expect {:?}",
                declared.name, index.projection, index.non_key_attributes, declared.projection
            ));
        }
        for a in declared.attributes() {
            let ty = table.attributes.get(a.name).map(String::as_str);
            if ty.is_some_and(|t| t != a.ty.as_str()) {
                problems.push(format!(
                    "{} is {:?} in AttributeDefinitions, {} in the keys crate",
                    a.name,
                    ty,
                    a.ty.as_str()
                ));
            }
        }
    }
    let multi = |i: &&sam_template::Index| i.key.partition.len() > 1 || i.key.sort.len() > 1;
    for index in table.global_indexes.iter().filter(multi) {
        if !keys::indexes::ALL.iter().any(|d| d.name == index.name) {
            problems.push(format!(
                "{}: a multi-attribute index the keys crate does not declare",
                index.name
            ));
        }
    }
    problems
}

#[test]
fn the_tables_keys_keep_dynamodbs_limits_and_the_keys_crates_declarations() {
    let text = std::fs::read_to_string(workspace_root().join("template.yaml")).unwrap();
    // Every index of any deployment (OrderStatusKeys' conditions), of every table of each
    // TableLayout.
    let problems = |text: &str| -> Vec<String> {
        let mut problems = Vec::new();
        for layout in sam_template::layout::ALL {
            let given = [(
                sam_template::layout::PARAMETER.to_owned(),
                layout.to_owned(),
            )]
            .into();
            let tables = Template::parse_with(text, &given).unwrap().tables;
            for table in &tables {
                problems.extend(key_problems(&table.with_every_index()));
            }
            for declared in keys::indexes::ALL {
                let mut holding = tables.iter().map(|t| t.with_every_index().global_indexes);
                if !holding.any(|indexes| indexes.iter().any(|i| i.name == declared.name)) {
                    problems.push(format!("{} is not in the template", declared.name));
                }
            }
        }
        problems
    };
    assert_eq!(problems(&text), Vec::<String>::new());

    // Each rule, broken once in a copy of the template (in LearningTable's OccurrencesByDate:
    // whole lines at its indentation; the table key in Table's).
    let broken = |from: &str, to: &str| {
        assert_eq!(text.matches(from).count(), 1, "{from}");
        problems(&text.replace(from, to))
    };
    let day = "\n            - { AttributeName: Day, KeyType: RANGE }\n";
    let fifth = broken(
        day,
        &format!("{day}            - {{ AttributeName: GSI1SK, KeyType: RANGE }}\n"),
    );
    assert!(
        fifth
            .iter()
            .any(|p| p.contains("OccurrencesByDate: 5 RANGE attributes, at most 4")),
        "{fifth:?}"
    );
    let undeclared = broken(
        "\n        - { AttributeName: Month, AttributeType: N }\n",
        "\n",
    );
    assert!(
        undeclared
            .iter()
            .any(|p| p.contains("Month is a key attribute missing")),
        "{undeclared:?}"
    );
    let retyped = broken(
        "\n        - { AttributeName: Year, AttributeType: N }",
        "\n        - { AttributeName: Year, AttributeType: S }",
    );
    assert!(
        retyped.iter().any(|p| p.contains("Year is Some(\"S\")")),
        "{retyped:?}"
    );
    let reordered = broken(
        "\n            - { AttributeName: Year, KeyType: RANGE }\n            - { AttributeName: Month, KeyType: RANGE }\n",
        "\n            - { AttributeName: Month, KeyType: RANGE }\n            - { AttributeName: Year, KeyType: RANGE }\n",
    );
    assert!(
        reordered
            .iter()
            .any(|p| p.contains("is not the keys crate's")),
        "{reordered:?}"
    );
    let table_key = broken(
        "        - { AttributeName: SK, KeyType: RANGE }\n      GlobalSecondaryIndexes:\n        - IndexName: GSI1\n",
        "        - { AttributeName: SK, KeyType: RANGE }\n        - { AttributeName: GSI1SK, KeyType: RANGE }\n      GlobalSecondaryIndexes:\n        - IndexName: GSI1\n",
    );
    assert!(
        table_key
            .iter()
            .any(|p| p.contains("the table: one HASH and at most one RANGE")),
        "{table_key:?}"
    );
}

/// `OrderStatusKeys` decides, for each of its values, exactly the orders indexes the key design
/// reads (`commerce::data::StatusKeys::indexes`), the attribute definitions they need and no
/// other (CloudFormation refuses one no key uses), the readers' permissions on them (and
/// DescribeTable only while moving), and the design every reader and writer of those orders is
/// told (`ORDER_STATUS_KEYS`).
#[test]
fn each_order_status_keys_value_creates_exactly_its_indexes() {
    use commerce::data::StatusKeys;
    let orders_indexes = StatusKeys::MultiAttribute.indexes();
    for keys in StatusKeys::ALL {
        let t = Template::workspace_with(&[(StatusKeys::PARAMETER, keys.as_str())]).unwrap();
        let what = keys.as_str();
        let created: Vec<&str> = t
            .table
            .global_indexes
            .iter()
            .map(|i| i.name.as_str())
            .filter(|n| orders_indexes.contains(n))
            .collect();
        assert_eq!(created, keys.indexes(), "{what}");
        let used: BTreeSet<&str> = std::iter::once(&t.table.key)
            .chain(t.table.global_indexes.iter().map(|i| &i.key))
            .flat_map(|k| k.attributes())
            .collect();
        let defined: BTreeSet<&str> = t.table.attributes.keys().map(String::as_str).collect();
        assert_eq!(
            defined, used,
            "{what}: AttributeDefinitions are the keys' attributes"
        );
        let reads_indexes = matches!(keys, StatusKeys::Moving2 | StatusKeys::MultiAttribute);
        for (function, index) in [
            ("list-customer-orders", orders_indexes[0]),
            ("list-rep-orders", orders_indexes[1]),
        ] {
            let f = t.function(function).unwrap();
            assert_eq!(
                f.allows("dynamodb:Query", Some(index)),
                reads_indexes,
                "{what} {function}"
            );
            assert!(
                f.allows("dynamodb:Query", Some("GSI1")),
                "{what} {function}"
            );
            let describes = f.allows("dynamodb:DescribeTable", None);
            assert_eq!(describes, keys == StatusKeys::Moving2, "{what} {function}");
        }
        for function in [
            "list-customer-orders",
            "list-rep-orders",
            "place-order",
            "commerce-stream",
        ] {
            let f = t.function(function).unwrap();
            assert_eq!(
                f.environment.get("ORDER_STATUS_KEYS"),
                Some(&sam_template::EnvValue::Ref(StatusKeys::PARAMETER.into())),
                "{function}"
            );
        }
    }
    let allowed = Template::workspace().unwrap();
    let parameter = allowed
        .parameters
        .iter()
        .find(|p| p.name == StatusKeys::PARAMETER);
    let values: Vec<&str> = StatusKeys::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(parameter.unwrap().allowed, values);
}

/// Each `IndexDesign`, in each layout, gives the tables exactly its indexes (GSI1 for R2 and O8,
/// or R2's own index in the reviews' table and `OrderLinesByProduct` in commerce's, and no GSI1
/// in a table of reviews' own), tells R2's and O8's readers and writers the design, and lets each
/// reader do what that design reads: R2 Query its index, then BatchGetItem the table (keys only)
/// or GetItem the user (whole reviews); O8 Query GSI1, or the table and its own index.
#[test]
fn each_index_design_creates_its_indexes_and_allows_its_reads() {
    use keys::indexes::IndexDesign;
    let every_own: BTreeSet<&str> = IndexDesign::ALL
        .iter()
        .flat_map(|d| d.indexes().iter().copied())
        .collect();
    for layout in sam_template::layout::ALL {
        for design in IndexDesign::ALL {
            let t = Template::workspace_with(&[
                (sam_template::layout::PARAMETER, layout),
                (IndexDesign::PARAMETER, design.as_str()),
            ])
            .unwrap();
            let what = format!("{layout} {}", design.as_str());
            let table_of = |function: &str| {
                let f = t.function(function).unwrap();
                let table = t
                    .tables
                    .iter()
                    .find(|table| Some(table.logical_id.as_str()) == f.table())
                    .unwrap();
                let names: Vec<String> = table
                    .global_indexes
                    .iter()
                    .map(|i| i.name.clone())
                    .collect();
                (f, table.logical_id.clone(), names)
            };
            let created: BTreeSet<String> = t
                .tables
                .iter()
                .flat_map(|table| table.global_indexes.iter().map(|i| i.name.clone()))
                .filter(|n| every_own.contains(n.as_str()))
                .collect();
            let expected: BTreeSet<String> =
                design.indexes().iter().map(|n| (*n).to_owned()).collect();
            assert_eq!(created, expected, "{what}");
            // R2's index in the reviews' table; a table of reviews' own keeps GSI1 for R2
            // only, the one table for the other patterns too.
            let (r2, reviews, indexes) = table_of("get-user");
            let own_table = reviews != t.table.logical_id;
            assert_eq!(
                indexes.contains(&"GSI1".to_owned()),
                !own_table || design.writes_gsi1(),
                "{what}"
            );
            let (o8, _, commerce) = table_of("list-product-order-items");
            let own_indexes = !design.indexes().is_empty();
            let (r2_index, o8_index) = match design.indexes() {
                [r2, o8] => (*r2, *o8),
                _ => ("GSI1", "GSI1"),
            };
            assert!(indexes.contains(&r2_index.to_owned()), "{what}");
            assert!(commerce.contains(&o8_index.to_owned()), "{what}");
            assert!(r2.allows("dynamodb:Query", Some(r2_index)), "{what}");
            assert_eq!(
                r2.allows("dynamodb:BatchGetItem", None),
                design == IndexDesign::Dedicated,
                "{what}"
            );
            assert_eq!(
                r2.allows("dynamodb:GetItem", None),
                design == IndexDesign::Projected,
                "{what}"
            );
            assert!(o8.allows("dynamodb:Query", Some(o8_index)), "{what}");
            assert_eq!(o8.allows("dynamodb:Query", None), own_indexes, "{what}");
            for function in [
                "get-user",
                "put-user",
                "put-review",
                "list-product-order-items",
                "place-order",
                "put-inventory",
            ] {
                assert_eq!(
                    t.function(function)
                        .unwrap()
                        .environment
                        .get(IndexDesign::VARIABLE),
                    Some(&sam_template::EnvValue::Ref(IndexDesign::PARAMETER.into())),
                    "{what} {function}"
                );
            }
        }
    }
}

#[test]
fn template_yaml_is_what_the_frame_and_the_declarations_generate() {
    let root = sam_template::workspace_root();
    let frame = std::fs::read_to_string(root.join(catalogue::template::FRAME_FILE))
        .expect("template-frame.yaml");
    let generated = catalogue::template::generate(&frame).unwrap_or_else(|e| panic!("{e}"));
    // Edit the frame, not the template.
    let path = root.join("template.yaml");
    crate::generated::hold(&path, &generated, "UPDATE_TEMPLATE", "make template");
}
