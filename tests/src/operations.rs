//! What an operator of a deployed stack relies on, read from `template.yaml`: the alarms notice a
//! stream consumer that stopped reading, fails or is throttled; they reach someone; the
//! consumers have concurrency of their own; and the user pool's password policy is stated in
//! full, and the documented example password meets it. (The mappings' bounds are held by
//! `contract::every_stream_handler_has_a_sample_batch_and_honest_settings`.)

use serde_yaml::Value;

use sam_template::{Template, workspace_root};

fn template() -> Value {
    let text = std::fs::read_to_string(workspace_root().join("template.yaml")).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

/// The target of `!Ref X` (or `!GetAtt X.Y`): `X`.
fn target(v: &Value) -> Option<&str> {
    match v {
        Value::Tagged(t) if t.tag == "!Ref" || t.tag == "!GetAtt" => {
            t.value.as_str().map(|s| s.split('.').next().unwrap_or(s))
        }
        _ => None,
    }
}

/// Every CloudWatch alarm of the template: (logical id, properties).
fn alarms(doc: &Value) -> Vec<(String, Value)> {
    doc["Resources"]
        .as_mapping()
        .unwrap()
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some("AWS::CloudWatch::Alarm"))
        .map(|(id, r)| (id.as_str().unwrap().to_owned(), r["Properties"].clone()))
        .collect()
}

/// A metric an alarm reads: namespace, name, dimensions as (name, value).
type Metric = (String, String, Vec<(String, Value)>);

/// The metrics an alarm reads, from a single metric or from each `MetricStat` of a metric math
/// alarm.
fn metrics(alarm: &Value) -> Vec<Metric> {
    let one = |m: &Value| {
        let dimensions = m["Dimensions"]
            .as_sequence()
            .into_iter()
            .flatten()
            .map(|d| (d["Name"].as_str().unwrap().to_owned(), d["Value"].clone()))
            .collect();
        (
            m["Namespace"].as_str().unwrap_or_default().to_owned(),
            m["MetricName"].as_str().unwrap_or_default().to_owned(),
            dimensions,
        )
    };
    match alarm["Metrics"].as_sequence() {
        None => vec![one(alarm)],
        Some(list) => list
            .iter()
            .filter(|m| !m["MetricStat"].is_null())
            .map(|m| one(&m["MetricStat"]["Metric"]))
            .collect(),
    }
}

/// The logical ids of the stream consumers and their mapping (SAM names an event's mapping
/// `<Function><Event>`).
fn consumers() -> Vec<(String, String)> {
    let t = Template::workspace().unwrap();
    t.functions
        .iter()
        .flat_map(|f| {
            f.streams.iter().map(move |s| {
                (
                    f.logical_id.clone(),
                    format!("{}{}", f.logical_id, s.event_name),
                )
            })
        })
        .collect()
}

/// Alarms on `metric` (namespace, name) with a dimension `dimension` naming `resource`.
fn alarms_on(doc: &Value, metric: (&str, &str), dimension: &str, resource: &str) -> Vec<String> {
    alarms(doc)
        .into_iter()
        .filter(|(_, a)| {
            metrics(a).iter().any(|(ns, name, dims)| {
                (ns.as_str(), name.as_str()) == metric
                    && dims
                        .iter()
                        .any(|(d, v)| d == dimension && target(v) == Some(resource))
            })
        })
        .map(|(id, _)| id)
        .collect()
}

/// A mapping that cannot read (disabled, its permission gone, throttled) invokes nothing, so the
/// lag alarm, which has no data then, cannot see it: each mapping's own count of records read
/// (`PolledEventCount`, from its `MetricsConfig`) is held against the table's writes. Function
/// errors, throttles and records the mapping could not hand to its destination alarm too.
#[test]
fn every_consumer_has_alarms_for_not_reading_failing_and_lagging() {
    let doc = template();
    let resources = &doc["Resources"];
    let consumers = consumers();
    assert_eq!(consumers.len(), 2, "{consumers:?}");
    for (function, mapping) in &consumers {
        let event = mapping.strip_prefix(function.as_str()).unwrap();
        let properties = &resources[function.as_str()]["Properties"]["Events"][event]["Properties"];
        assert_eq!(
            properties["MetricsConfig"]["Metrics"],
            serde_yaml::from_str::<Value>("[EventCount]").unwrap(),
            "{mapping}: the mapping's own metrics"
        );
        let not_reading = alarms_on(
            &doc,
            ("AWS/Lambda", "PolledEventCount"),
            "EventSourceMappingUUID",
            mapping,
        );
        assert_eq!(not_reading.len(), 1, "{mapping}: an alarm on records read");
        let (_, alarm) = alarms(&doc)
            .into_iter()
            .find(|(id, _)| id == &not_reading[0])
            .unwrap();
        // The table whose stream it reads, in each TableLayout: `Table` with one table, its
        // context's with a table per context (`!If [TablePerContext, !Ref X, !Ref Table]`).
        let context = catalogue::context(&sam_template::function_name(function)).unwrap();
        let tables = |v: &Value| -> Option<(String, String)> {
            match v {
                Value::Tagged(t) if t.tag == "!If" => {
                    let branches = t.value.as_sequence()?;
                    let per_context = target(branches.get(1)?)?.to_owned();
                    Some((target(branches.get(2)?)?.to_owned(), per_context))
                }
                other => target(other).map(|t| (t.to_owned(), t.to_owned())),
            }
        };
        let wanted = ("Table".to_owned(), sam_template::context_table(context));
        assert!(
            metrics(&alarm)
                .iter()
                .any(|(ns, _, dims)| ns == "AWS/DynamoDB"
                    && dims
                        .iter()
                        .any(|(d, v)| d == "TableName" && tables(v).as_ref() == Some(&wanted))),
            "{}: reads nothing while its table ({wanted:?}) is written",
            not_reading[0]
        );
        for metric in ["Errors", "Throttles", "DestinationDeliveryFailures"] {
            assert!(
                !alarms_on(&doc, ("AWS/Lambda", metric), "FunctionName", function).is_empty(),
                "{function}: an alarm on its {metric}"
            );
        }
        assert!(
            !alarms_on(
                &doc,
                ("AWS/Lambda", "IteratorAge"),
                "FunctionName",
                function
            )
            .is_empty(),
            "{function}: a lag alarm"
        );
    }
    for (id, alarm) in alarms(&doc) {
        for actions in ["AlarmActions", "OKActions"] {
            let list = alarm[actions].as_sequence();
            assert!(
                list.is_some_and(|l| l.iter().any(|a| target(a) == Some("AlarmTopic"))),
                "{id}: {actions} notify AlarmTopic"
            );
        }
    }
}

/// API traffic cannot take the consumers' concurrency: each reserves its own.
#[test]
fn stream_consumers_reserve_their_own_concurrency() {
    let doc = template();
    for (function, _) in consumers() {
        let reserved =
            &doc["Resources"][function.as_str()]["Properties"]["ReservedConcurrentExecutions"];
        assert!(
            !reserved.is_null(),
            "{function}: ReservedConcurrentExecutions of its own, not the Globals' default of none"
        );
    }
    let parameter = &doc["Parameters"]["StreamConcurrency"];
    assert!(
        parameter["Default"].as_u64().is_some_and(|n| n >= 1),
        "StreamConcurrency reserves at least one by default: {parameter:?}"
    );
}

/// CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key (its policy cannot
/// be changed to let CloudWatch use it): an alarm would notify nobody. The topic is either
/// unencrypted or encrypted with a key of the stack whose policy lets CloudWatch use it. An
/// `AlarmEmail` makes a subscription.
#[test]
fn the_alarm_topic_is_one_cloudwatch_can_publish_to_and_alarm_email_subscribes() {
    let doc = template();
    let topic = &doc["Resources"]["AlarmTopic"];
    assert_eq!(topic["Type"].as_str(), Some("AWS::SNS::Topic"));
    let key = &topic["Properties"]["KmsMasterKeyId"];
    if !key.is_null() {
        let id =
            target(key).unwrap_or_else(|| panic!("AlarmTopic's key is {key:?}, not the stack's"));
        let policy =
            serde_json::to_string(&doc["Resources"][id]["Properties"]["KeyPolicy"]).unwrap();
        assert!(
            policy.contains("cloudwatch.amazonaws.com"),
            "{id}: its policy lets CloudWatch use it"
        );
    }
    let subscription = serde_json::to_string(&topic["Properties"]["Subscription"]).unwrap();
    assert!(
        subscription.contains("email") && subscription.contains("AlarmEmail"),
        "AlarmEmail subscribes an address: {subscription}"
    );
}

/// Symbols Cognito counts as special characters in a password.
const COGNITO_SYMBOLS: &str = "^$*.[]{}()?\"!@#%&/\\,><':;|_~`=+- ";

/// The user pool states every rule of its password policy (an emulator reads a rule left out as
/// required), and every example password of the README and the docs meets exactly that policy.
#[test]
fn the_password_policy_is_stated_in_full_and_the_documented_passwords_meet_it() {
    let doc = template();
    let policy = &doc["Resources"]["UserPool"]["Properties"]["Policies"]["PasswordPolicy"];
    let flag = |name: &str| {
        policy[name]
            .as_bool()
            .unwrap_or_else(|| panic!("PasswordPolicy.{name}: stated, true or false"))
    };
    type Rule = (&'static str, fn(char) -> bool);
    let rules: [Rule; 4] = [
        ("RequireLowercase", |c| c.is_ascii_lowercase()),
        ("RequireUppercase", |c| c.is_ascii_uppercase()),
        ("RequireNumbers", |c| c.is_ascii_digit()),
        ("RequireSymbols", |c| COGNITO_SYMBOLS.contains(c)),
    ];
    let minimum = policy["MinimumLength"]
        .as_u64()
        .expect("PasswordPolicy.MinimumLength") as usize;
    assert!(
        policy["TemporaryPasswordValidityDays"].as_u64().is_some(),
        "PasswordPolicy.TemporaryPasswordValidityDays"
    );

    let mut pages = vec![workspace_root().join("README.md")];
    for entry in std::fs::read_dir(workspace_root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let mut passwords = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for marker in ["--password '", "PASSWORD='"] {
            for (at, _) in text.match_indices(marker) {
                let rest = &text[at + marker.len()..];
                let password = &rest[..rest.find('\'').unwrap()];
                passwords.push((page.display().to_string(), password.to_owned()));
            }
        }
    }
    assert!(!passwords.is_empty(), "the docs show how to set a password");
    for (page, password) in passwords {
        assert!(
            password.chars().count() >= minimum,
            "{page}: {password:?} is shorter than {minimum}"
        );
        for (name, class) in rules {
            if flag(name) {
                assert!(
                    password.chars().any(class),
                    "{page}: {password:?} fails {name}"
                );
            }
        }
    }
}

#[test]
fn the_table_names_its_throttled_keys_and_states_its_recovery_period() {
    let doc = template();
    let table = &doc["Resources"]["Table"]["Properties"];
    // Contributor Insights in its throttled-keys mode on the table and on every index (each is
    // a resource of its own to DynamoDB): an index added later without it would hide its hot keys.
    let throttled_keys = |what: &str, spec: &Value| {
        assert_eq!(spec["Enabled"].as_bool(), Some(true), "{what}: {spec:?}");
        assert_eq!(spec["Mode"].as_str(), Some("THROTTLED_KEYS"), "{what}");
    };
    throttled_keys("the table", &table["ContributorInsightsSpecification"]);
    // Every index any deployment declares: an `!If` entry (an index of one OrderStatusKeys
    // design) counts with each branch that is an index.
    let indexes: Vec<&Value> = table["GlobalSecondaryIndexes"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|entry| match entry {
            Value::Tagged(t) if t.tag == "!If" => t.value.as_sequence().unwrap()[1..]
                .iter()
                .collect::<Vec<_>>(),
            _ => vec![entry],
        })
        .filter(|entry| entry.get("IndexName").is_some())
        .collect();
    assert!(
        indexes.len() >= 5,
        "GSI1, GSI2, OccurrencesByDate and both orders indexes"
    );
    for index in indexes {
        let name = index["IndexName"].as_str().unwrap();
        throttled_keys(name, &index["ContributorInsightsSpecification"]);
    }
    // Point-in-time recovery, for a period the stack states (1 to 35 days, DynamoDB's bounds).
    let pitr = &table["PointInTimeRecoverySpecification"];
    assert_eq!(pitr["PointInTimeRecoveryEnabled"].as_bool(), Some(true));
    assert_eq!(
        target(&pitr["RecoveryPeriodInDays"]),
        Some("RecoveryPeriodInDays")
    );
    let parameter = &doc["Parameters"]["RecoveryPeriodInDays"];
    assert_eq!(parameter["Type"].as_str(), Some("Number"));
    assert_eq!(
        (
            parameter["MinValue"].as_u64(),
            parameter["MaxValue"].as_u64()
        ),
        (Some(1), Some(35))
    );
}
