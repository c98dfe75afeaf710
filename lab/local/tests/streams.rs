//! The stream mappings against DynamoDB Local and stream handlers written in shell (as in
//! invoke.rs: no Lambda crate to build). DynamoDB Local runs on port 8002 (or
//! `$STREAMS_TEST_DDB_PORT`): started here if nothing answers there, and stopped at the end if it
//! was. Needs sh, sed and curl, and Java to
//! start DynamoDB Local; skipped without them.

use std::{
    collections::BTreeMap,
    net::TcpStream as StdTcpStream,
    path::{Path, PathBuf},
    process::Command,
    sync::Arc,
    time::Duration,
};

use aws_sdk_dynamodb::types::AttributeValue;
use local_stack::{
    Stack, StackConfig,
    apigw::{Gateway, routes::Router},
    streams::{self, Clock, StreamsConfig, StreamsHandle},
};
use sam_template::Template;
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

/// Where DynamoDB Local is expected, unless `$STREAMS_TEST_DDB_PORT` names another port.
const DEFAULT_PORT: u16 = 8002;
const DRAIN_TIMEOUT: Duration = Duration::from_secs(60);

/// Logs every event to $LOG, then fails as the records' `Behavior` attribute says: `crash` fails
/// the invocation, `reject` is always reported in batchItemFailures, `reject-once` the first
/// time only (remembered in $STATE).
const FUNCTION: &str = r#"#!/bin/sh
api="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
while true; do
  hdr=$(mktemp)
  event=$(curl -sS -D "$hdr" "$api/invocation/next") || exit 1
  id=$(grep -i '^lambda-runtime-aws-request-id:' "$hdr" | cut -d' ' -f2 | tr -d '\r\n')
  rm -f "$hdr"
  printf '%s\n' "$event" >> "$LOG"
  case "$event" in
    *'"Behavior":{"S":"crash"}'*)
      curl -sS -o /dev/null -X POST "$api/invocation/$id/error" \
        -d '{"errorType":"Poison","errorMessage":"a crash record"}'
      continue ;;
  esac
  failures=""
  records=$(mktemp)
  printf '%s\n' "$event" | sed 's/{"eventID"/\n{"eventID"/g' > "$records"
  while IFS= read -r record; do
    seq=$(printf '%s\n' "$record" | sed -n 's/.*"SequenceNumber":"\([0-9]*\)".*/\1/p')
    fail=no
    case "$record" in
      *'"Behavior":{"S":"reject"}'*) fail=yes ;;
      *'"Behavior":{"S":"reject-once"}'*)
        if [ ! -e "$STATE/$seq" ]; then touch "$STATE/$seq"; fail=yes; fi ;;
    esac
    if [ "$fail" = yes ]; then
      failures="$failures${failures:+,}{\"itemIdentifier\":\"$seq\"}"
    fi
  done < "$records"
  rm -f "$records"
  curl -sS -o /dev/null -X POST "$api/invocation/$id/response" \
    -d "{\"batchItemFailures\":[$failures]}"
done
"#;

fn tools_available() -> bool {
    let runs = |cmd: &str| Command::new(cmd).arg("--version").output().is_ok();
    let ok = runs("curl") && runs("sed") && Path::new("/bin/sh").exists();
    if !ok {
        eprintln!("skipped: needs sh, sed and curl");
    }
    ok
}

fn port() -> u16 {
    std::env::var("STREAMS_TEST_DDB_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(DEFAULT_PORT)
}

fn endpoint() -> String {
    format!("http://127.0.0.1:{}", port())
}

/// DynamoDB Local on [`port`]; stops it when dropped if it started it.
struct DynamoDbLocal {
    started: bool,
}

impl DynamoDbLocal {
    /// `None` when it is not running and cannot be started for want of Java.
    fn ensure() -> Option<DynamoDbLocal> {
        let port = port();
        if StdTcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(DynamoDbLocal { started: false });
        }
        if Command::new("java").arg("-version").output().is_err() {
            eprintln!("skipped: DynamoDB Local is not running on {port} and there is no java");
            return None;
        }
        let status = Command::new(script())
            .args(["start", &port.to_string()])
            .status()
            .expect("run scripts/dynamodb-local.sh");
        assert!(
            status.success(),
            "scripts/dynamodb-local.sh start {port} failed"
        );
        Some(DynamoDbLocal { started: true })
    }
}

impl Drop for DynamoDbLocal {
    fn drop(&mut self) {
        if self.started {
            let _ = Command::new(script())
                .args(["stop", &port().to_string()])
                .status();
        }
    }
}

fn script() -> PathBuf {
    sam_template::workspace_root().join("scripts/dynamodb-local.sh")
}

/// One function of a test template: its name and its stream event's properties (YAML lines).
struct Handler<'a> {
    name: &'static str,
    properties: &'a [&'a str],
}

/// A table, the template's functions (the shell handler under each name) and their mappings.
struct Scenario {
    dir: PathBuf,
    table: String,
    client: aws_sdk_dynamodb::Client,
    template: Template,
    stack: Arc<Stack>,
    /// The mappings' clock.
    clock: Clock,
}

impl Scenario {
    async fn new(name: &str, handlers: &[Handler<'_>]) -> Scenario {
        let dir =
            std::env::temp_dir().join(format!("local-streams-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("state")).unwrap();
        for h in handlers {
            let binary = dir.join(h.name);
            std::fs::write(&binary, FUNCTION).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        let template = Template::parse(&template_text(&dir, handlers)).expect("test template");

        let table = format!("streams-{name}-{}-{}", std::process::id(), unique());
        let client = streams::dynamodb_client(&endpoint());
        let workspace = Template::workspace().unwrap();
        devkit::create_table(&client, &table, &workspace.table)
            .await
            .expect("create the table in DynamoDB Local");

        let config = StackConfig {
            bin_dir: dir.clone(),
            table_name: table.clone(),
            params: BTreeMap::new(),
            max_instances: 1,
            log_dir: None,
            failures_dir: dir.join("failures"),
        };
        let specs = Stack::function_specs(&template, &config).unwrap();
        let stack = Arc::new(Stack::start(specs, 1));
        Scenario {
            dir,
            table,
            client,
            template,
            stack,
            clock: Clock::default(),
        }
    }

    async fn start_streams(&self) -> StreamsHandle {
        let config = StreamsConfig {
            failures_dir: self.dir.join("failures"),
            endpoint: endpoint(),
            clock: self.clock.clone(),
            ..StreamsConfig::new(&self.table)
        };
        streams::start(&self.template, self.stack.clone(), config)
            .await
            .expect("start the stream mappings")
    }

    /// Puts item `n` with its `Type` and `Behavior`.
    async fn put(&self, n: u32, kind: &str, behavior: &str) {
        let s = |v: &str| AttributeValue::S(v.to_owned());
        self.client
            .put_item()
            .table_name(&self.table)
            .item("PK", s(&format!("ITEM#{n}")))
            .item("SK", s("A"))
            .item("Type", s(kind))
            .item("Behavior", s(behavior))
            .item("N", AttributeValue::N(n.to_string()))
            .send()
            .await
            .expect("put_item");
    }

    async fn delete(&self, n: u32) {
        self.client
            .delete_item()
            .table_name(&self.table)
            .key("PK", AttributeValue::S(format!("ITEM#{n}")))
            .key("SK", AttributeValue::S("A".into()))
            .send()
            .await
            .expect("delete_item");
    }

    /// The events `function` received, in order.
    fn events(&self, function: &str) -> Vec<Value> {
        let log =
            std::fs::read_to_string(self.dir.join(format!("{function}.log"))).unwrap_or_default();
        log.lines()
            .map(|l| serde_json::from_str(l).expect("the logged event is JSON"))
            .collect()
    }

    /// Each invocation of `function` as its records' labels (`INSERT 3`, `REMOVE 5`).
    fn invocations(&self, function: &str) -> Vec<Vec<String>> {
        self.events(function)
            .iter()
            .map(|e| {
                e["Records"]
                    .as_array()
                    .expect("Records")
                    .iter()
                    .map(label)
                    .collect()
            })
            .collect()
    }

    fn failures(&self, destination: &str) -> Vec<Value> {
        let path = self
            .dir
            .join("failures")
            .join(format!("{destination}.jsonl"));
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a failure record is JSON"))
            .collect()
    }

    /// The sequence number of the record of item `n` among `function`'s events.
    fn sequence_number(&self, function: &str, n: u32) -> String {
        self.events(function)
            .iter()
            .flat_map(|e| e["Records"].as_array().cloned().unwrap_or_default())
            .find(|r| label(r).ends_with(&format!(" {n}")))
            .and_then(|r| r["dynamodb"]["SequenceNumber"].as_str().map(str::to_owned))
            .expect("the record was delivered")
    }

    /// The shard is not held by what was given up on: item `n`, written now, is delivered to
    /// `function`, alone. The status once drained.
    async fn goes_on(&self, streams: &StreamsHandle, function: &str, n: u32) -> Value {
        self.put(n, "Review", "ok").await;
        let status = drained(streams).await;
        assert_eq!(self.invocations(function).last(), Some(&inserts(n..=n)));
        status
    }

    async fn finish(self, streams: StreamsHandle) {
        streams.stop();
        self.stack.shutdown().await;
        let _ = self
            .client
            .delete_table()
            .table_name(&self.table)
            .send()
            .await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn template_text(dir: &Path, handlers: &[Handler<'_>]) -> String {
    let mut t = String::from(
        "Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{ AttributeName: PK, AttributeType: S }, { AttributeName: SK, AttributeType: S }]
      KeySchema: [{ AttributeName: PK, KeyType: HASH }, { AttributeName: SK, KeyType: RANGE }]
      StreamSpecification: { StreamViewType: NEW_AND_OLD_IMAGES }
  FailureQueue:
    Type: AWS::SQS::Queue
",
    );
    for h in handlers {
        // The template names a function by its logical id: `collector` is `CollectorFunction`.
        let logical_id = format!("{}{}Function", h.name[..1].to_uppercase(), &h.name[1..]);
        t += &format!(
            "  {logical_id}:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 5
      Environment:
        Variables:
          LOG: {log}
          STATE: {state}
      Events:
        Stream:
          Type: DynamoDB
          Properties:
            Stream: !GetAtt Table.StreamArn
",
            log = dir.join(format!("{}.log", h.name)).display(),
            state = dir.join("state").display(),
        );
        for line in h.properties {
            t += &format!("            {line}\n");
        }
    }
    t
}

/// `INSERT 3`: the event name and the item's `N`.
fn label(record: &Value) -> String {
    let image = match record["eventName"].as_str() {
        Some("REMOVE") => &record["dynamodb"]["OldImage"],
        _ => &record["dynamodb"]["NewImage"],
    };
    format!(
        "{} {}",
        record["eventName"].as_str().unwrap_or("?"),
        image["N"]["N"].as_str().unwrap_or("?")
    )
}

fn labels(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn inserts(range: std::ops::RangeInclusive<u32>) -> Vec<String> {
    range.map(|n| format!("INSERT {n}")).collect()
}

async fn drained(streams: &StreamsHandle) -> Value {
    match streams.wait_drained(DRAIN_TIMEOUT).await {
        Ok(status) => status,
        Err(status) => panic!("not drained after {DRAIN_TIMEOUT:?}: {status:#}"),
    }
}

/// GET over a fresh connection; the body.
async fn http_get(port: u16, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_feed_functions_as_lambda_does() {
    if !tools_available() {
        return;
    }
    let Some(_dynamodb) = DynamoDbLocal::ensure() else {
        return;
    };
    // Independent tables and mappings: run them side by side.
    tokio::join!(
        filters_batches_positions_and_status(),
        partial_failures_retry_from_the_checkpoint(),
        function_errors_bisect_down_to_the_bad_record(),
        a_poison_record_goes_to_the_destination_and_the_rest_goes_on(),
        a_batch_too_old_goes_to_the_destination_with_its_sequence_range(),
    );
}

async fn filters_batches_positions_and_status() {
    let s = Scenario::new(
        "filters",
        &[
            Handler {
                name: "collector",
                properties: &[
                    "StartingPosition: TRIM_HORIZON",
                    "BatchSize: 3",
                    // Longer than any test: a batch goes when it is full.
                    "MaximumBatchingWindowInSeconds: 300",
                    "FilterCriteria:",
                    "  Filters:",
                    r#"    - Pattern: '{"dynamodb": {"NewImage": {"Type": {"S": ["Review"]}}}}'"#,
                    r#"    - Pattern: '{"dynamodb": {"OldImage": {"Type": {"S": ["Review"]}}}}'"#,
                ],
            },
            Handler {
                name: "latest",
                properties: &["StartingPosition: LATEST", "BatchSize: 100"],
            },
        ],
    )
    .await;
    // Before the mappings start: TRIM_HORIZON reads it, LATEST does not.
    s.put(0, "Review", "ok").await;
    let streams = s.start_streams().await;

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let gateway =
        Gateway::with_streams(Router::new(vec![]), s.stack.clone(), Some(streams.clone()));
    let server = tokio::spawn(gateway.serve(listener));

    for n in 1..=7 {
        s.put(n, "Review", "ok").await;
        if n % 2 == 0 {
            s.put(100 + n, "Customer", "ok").await;
        }
    }
    s.delete(3).await;
    s.delete(102).await;

    // What a test of the whole stack does: poll the endpoint until drained.
    let mut status = Value::Null;
    for _ in 0..100 {
        status = serde_json::from_str(&http_get(port, "/_local/streams").await).unwrap();
        if status["drained"] == Value::Bool(true) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status["drained"], true, "{status:#}");

    let collected = s.invocations("collector");
    let sizes: Vec<usize> = collected.iter().map(Vec::len).collect();
    eprintln!("collector batches: {sizes:?}");
    // The window gathers full batches, however slowly the records come.
    assert_eq!(sizes, [3, 3, 3], "{collected:?}");
    let mut expected = inserts(0..=7);
    expected.push("REMOVE 3".into());
    assert_eq!(
        collected.concat(),
        expected,
        "only Review records, in order"
    );

    let c = &status["collector"];
    assert_eq!(c["delivered"], 9, "{status:#}");
    assert_eq!(c["succeeded"], 9);
    assert_eq!(
        c["filteredOut"], 4,
        "3 Customer inserts and a Customer removal"
    );
    assert_eq!(c["retries"], 0);
    assert_eq!(c["inFlight"], false);
    assert_eq!(c["pendingRecords"], 0);
    assert_eq!(c["lastError"], Value::Null);

    // LATEST: everything after the start, unfiltered.
    let latest = s.invocations("latest").concat();
    let mut expected = labels(&[]);
    for n in 1..=7 {
        expected.push(format!("INSERT {n}"));
        if n % 2 == 0 {
            expected.push(format!("INSERT {}", 100 + n));
        }
    }
    expected.extend(labels(&["REMOVE 3", "REMOVE 102"]));
    assert_eq!(latest, expected);
    assert_eq!(status["latest"]["succeeded"], 12);

    // Every event is a valid aws_lambda_events DynamoDB event.
    for event in s.events("collector").into_iter().chain(s.events("latest")) {
        let parsed: aws_lambda_events::event::dynamodb::Event =
            serde_json::from_value(event.clone()).expect("a DynamoDB event");
        for (record, json) in parsed
            .records
            .iter()
            .zip(event["Records"].as_array().unwrap())
        {
            assert_eq!(record.aws_region, "us-east-1");
            assert_eq!(record.event_source.as_deref(), Some("aws:dynamodb"));
            assert_eq!(record.event_version.as_deref(), Some("1.1"));
            assert!(
                record
                    .event_source_arn
                    .as_deref()
                    .is_some_and(|a| a.contains(&s.table))
            );
            assert_eq!(
                record.change.sequence_number.as_deref(),
                json["dynamodb"]["SequenceNumber"].as_str()
            );
            assert!(record.change.size_bytes > 0);
            assert!(record.change.approximate_creation_date_time.timestamp() > 1_600_000_000);
            assert!(json["dynamodb"]["Keys"]["PK"]["S"].is_string());
        }
    }

    // Nothing new: still drained, and the status is stable.
    let again = drained(&streams).await;
    assert_eq!(again["collector"]["delivered"], 9);

    server.abort();
    s.finish(streams).await;
}

async fn partial_failures_retry_from_the_checkpoint() {
    let s = Scenario::new(
        "partial",
        &[Handler {
            name: "partial",
            properties: &[
                "StartingPosition: TRIM_HORIZON",
                "BatchSize: 10",
                "MaximumBatchingWindowInSeconds: 2",
                "MaximumRetryAttempts: 3",
                "FunctionResponseTypes: [ReportBatchItemFailures]",
            ],
        }],
    )
    .await;
    // Written before the mapping starts (as in every scenario where the first batch matters):
    // its first read finds them all, however slowly they were written.
    for n in 1..=5 {
        s.put(n, "Review", if n == 3 { "reject-once" } else { "ok" })
            .await;
    }
    let streams = s.start_streams().await;
    let status = drained(&streams).await;
    // Exactly the failed record and those after it come again.
    assert_eq!(s.invocations("partial"), [inserts(1..=5), inserts(3..=5)]);
    let p = &status["partial"];
    assert_eq!(p["delivered"], 8, "{status:#}");
    assert_eq!(p["succeeded"], 5);
    assert_eq!(p["retries"], 1);
    assert_eq!(p["failedToDestination"], 0);
    s.finish(streams).await;
}

async fn function_errors_bisect_down_to_the_bad_record() {
    let s = Scenario::new(
        "bisect",
        &[Handler {
            name: "bisect",
            properties: &[
                "StartingPosition: TRIM_HORIZON",
                "BatchSize: 8",
                "MaximumBatchingWindowInSeconds: 2",
                "MaximumRetryAttempts: 1",
                "BisectBatchOnFunctionError: true",
                "DestinationConfig:",
                "  OnFailure:",
                "    Destination: !GetAtt FailureQueue.Arn",
            ],
        }],
    )
    .await;
    for n in 1..=8 {
        s.put(n, "Review", if n == 6 { "crash" } else { "ok" })
            .await;
    }
    let streams = s.start_streams().await;
    let status = drained(&streams).await;
    // Halves, first half first, down to the crashing record, which fails once more (its one
    // retry: splitting does not count) and is given up on; the rest goes on.
    assert_eq!(
        s.invocations("bisect"),
        [
            inserts(1..=8),
            inserts(1..=4),
            inserts(5..=8),
            inserts(5..=6),
            inserts(5..=5),
            inserts(6..=6),
            inserts(6..=6),
            inserts(7..=8),
        ]
    );
    let failures = s.failures("FailureQueue");
    assert_eq!(failures.len(), 1, "{failures:#?}");
    let f = &failures[0];
    let seq = s.sequence_number("bisect", 6);
    assert_eq!(f["requestContext"]["condition"], "RetryAttemptsExhausted");
    assert_eq!(f["requestContext"]["approximateInvokeCount"], 5);
    assert!(
        f["requestContext"]["functionArn"]
            .as_str()
            .is_some_and(|a| a.ends_with(":function:bisect"))
    );
    assert_eq!(f["responseContext"]["functionError"], "Unhandled");
    assert_eq!(f["DDBStreamBatchInfo"]["batchSize"], 1);
    assert_eq!(f["DDBStreamBatchInfo"]["startSequenceNumber"], seq.as_str());
    assert_eq!(f["DDBStreamBatchInfo"]["endSequenceNumber"], seq.as_str());
    assert!(
        f["DDBStreamBatchInfo"]["streamArn"]
            .as_str()
            .is_some_and(|a| a.contains(&s.table))
    );
    let b = &status["bisect"];
    assert_eq!(b["succeeded"], 7, "{status:#}");
    assert_eq!(b["failedToDestination"], 1);
    assert!(
        b["lastError"]
            .as_str()
            .is_some_and(|e| e.contains("a crash record"))
    );
    s.finish(streams).await;
}

async fn a_poison_record_goes_to_the_destination_and_the_rest_goes_on() {
    let bounds = [
        "MaximumBatchingWindowInSeconds: 2",
        "MaximumRetryAttempts: 2",
    ];
    let (s, streams) = one_record_rejected("poison", &bounds, 5, 2).await;
    drained(&streams).await;
    // Sent once and retried twice, then given up on: the records after it are done.
    assert_eq!(
        s.invocations("poison"),
        [
            inserts(1..=5),
            inserts(2..=5),
            inserts(2..=5),
            inserts(3..=5)
        ]
    );
    let failures = s.failures("FailureQueue");
    assert_eq!(failures.len(), 1, "{failures:#?}");
    let seq = s.sequence_number("poison", 2);
    assert_eq!(
        failures[0]["DDBStreamBatchInfo"]["startSequenceNumber"],
        seq.as_str()
    );
    assert_eq!(failures[0]["requestContext"]["approximateInvokeCount"], 3);
    assert_eq!(failures[0]["responseContext"]["functionError"], Value::Null);

    let status = s.goes_on(&streams, "poison", 6).await;
    let p = &status["poison"];
    assert_eq!(p["succeeded"], 5, "{status:#}");
    assert_eq!(p["failedToDestination"], 1);
    assert_eq!(p["retries"], 3);
    s.finish(streams).await;
}

/// The template's bounds (retried without a count, given up by age), at the smallest age Lambda
/// takes: a batch that keeps failing goes to the destination, named by its shard and sequence
/// range, once its records are over a minute old, and the shard goes on. The mapping's clock is
/// moved past the minute once the batch has been retried: every record of it is then over the
/// limit, however far apart they were read, and a record written after is not.
async fn a_batch_too_old_goes_to_the_destination_with_its_sequence_range() {
    let bounds = [
        "MaximumBatchingWindowInSeconds: 1",
        "MaximumRetryAttempts: -1",
        "MaximumRecordAgeInSeconds: 60",
        "BisectBatchOnFunctionError: true",
    ];
    let (s, streams) = one_record_rejected("age", &bounds, 3, 1).await;
    let whole_batch = inserts(1..=3);
    until("the whole batch was sent again", || {
        s.invocations("age")
            .iter()
            .filter(|&b| *b == whole_batch)
            .count()
            >= 2
    })
    .await;
    assert!(
        s.failures("FailureQueue").is_empty(),
        "not a minute old yet"
    );

    s.clock.advance(Duration::from_secs(61));
    until("the batch reached the destination", || {
        !s.failures("FailureQueue").is_empty()
    })
    .await;
    let failures = s.failures("FailureQueue");
    assert_eq!(failures.len(), 1, "{failures:#?}");
    let f = &failures[0];
    assert_eq!(f["requestContext"]["condition"], "RecordAgeExceeded");
    let sent = s.invocations("age");
    // Retried from the rejected record, the first: the whole batch each time.
    assert!(sent.iter().all(|b| *b == whole_batch), "{sent:?}");
    assert_eq!(f["requestContext"]["approximateInvokeCount"], sent.len());
    let info = &f["DDBStreamBatchInfo"];
    assert_eq!(
        info["startSequenceNumber"],
        s.sequence_number("age", 1).as_str()
    );
    assert_eq!(
        info["endSequenceNumber"],
        s.sequence_number("age", 3).as_str()
    );
    assert_eq!(info["batchSize"], 3);
    assert!(info["shardId"].as_str().is_some_and(|id| !id.is_empty()));

    let status = s.goes_on(&streams, "age", 4).await;
    assert_eq!(
        s.invocations("age").len(),
        sent.len() + 1,
        "only the new record after"
    );
    assert_eq!(status["age"]["failedToDestination"], 3, "{status:#}");
    assert_eq!(status["age"]["succeeded"], 1);
    s.finish(streams).await;
}

/// The set-up of the scenarios where a record is given up on: a mapping that reads batch item
/// failures and has an on-failure destination, with `bounds` (its window, retry and age limits)
/// on top; items 1 to `count`, of which the function always reports `rejected` as failed, are
/// written before it starts.
async fn one_record_rejected(
    name: &'static str,
    bounds: &[&str],
    count: u32,
    rejected: u32,
) -> (Scenario, StreamsHandle) {
    let mut properties = vec![
        "StartingPosition: TRIM_HORIZON",
        "BatchSize: 10",
        "FunctionResponseTypes: [ReportBatchItemFailures]",
        "DestinationConfig:",
        "  OnFailure:",
        "    Destination: !GetAtt FailureQueue.Arn",
    ];
    properties.extend_from_slice(bounds);
    let s = Scenario::new(
        name,
        &[Handler {
            name,
            properties: &properties,
        }],
    )
    .await;
    for n in 1..=count {
        s.put(n, "Review", if n == rejected { "reject" } else { "ok" })
            .await;
    }
    let streams = s.start_streams().await;
    (s, streams)
}

/// Polls `done` until it holds; fails after [`DRAIN_TIMEOUT`].
async fn until(what: &str, done: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(
            started.elapsed() < DRAIN_TIMEOUT,
            "not yet after {DRAIN_TIMEOUT:?}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
