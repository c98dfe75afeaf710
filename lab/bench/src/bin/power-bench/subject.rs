//! A function under measurement: its binary, its environment as `template.yaml` gives it, its
//! sample event, and a table of its own seeded as the tests seed theirs.

use std::{
    collections::BTreeMap,
    process::Command,
    sync::atomic::{AtomicU64, Ordering},
    time::Instant,
};

use bench::runtime::RuntimeApi;
use bytes::Bytes;
use serde_json::Value;

use crate::{CALL_TIMEOUT, Setting};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An API function: an API Gateway request, answered with a 2xx.
    Api,
    /// A stream handler: a batch of stream records, answered with no batch item failure.
    Stream,
}

pub struct Subject {
    pub name: String,
    pub kind: Kind,
    function: sam_template::Function,
    event: Value,
    /// This function's calls so far: a write's `i`-th call ([`vary`]).
    calls: AtomicU64,
    /// add-order-event: the seeded orders, each taking [`EVENTS_PER_ORDER`] events (an order
    /// takes at most 50, and the seed's have some already).
    orders: std::sync::OnceLock<Vec<String>>,
}

const EVENTS_PER_ORDER: u64 = 5;

/// A signing key for the functions that page (the template's `CursorSigningKey` parameter).
const CURSOR_SIGNING_KEY: &str = "bench-cursor-signing-key-0123456789abcdef";

/// Every function of the template (or those named), in the template's order.
pub fn all(setting: &Setting, only: Option<&[String]>) -> Result<Vec<Subject>, String> {
    if let Some(names) = only
        && let Some(unknown) = names
            .iter()
            .find(|n| setting.template.function(n).is_none())
    {
        return Err(format!("no function {unknown} in template.yaml"));
    }
    setting
        .template
        .functions
        .iter()
        .filter(|f| only.is_none_or(|names| names.iter().any(|n| n == f.name())))
        .map(|f| {
            let path = setting.root.join(format!("events/{}.json", f.name()));
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let event: Value = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
            let binary = setting.bin_dir.join(f.name());
            if !binary.exists() {
                return Err(format!(
                    "{} is missing (make bench-memory builds it)",
                    binary.display()
                ));
            }
            Ok(Subject {
                name: f.name().to_owned(),
                kind: if f.streams.is_empty() {
                    Kind::Api
                } else {
                    Kind::Stream
                },
                function: f.clone(),
                event,
                calls: AtomicU64::new(0),
                orders: std::sync::OnceLock::new(),
            })
        })
        .collect()
}

/// Numbers each call of the run, so that no two writes or batches are the same.
static CALLS: AtomicU64 = AtomicU64::new(0);

impl Subject {
    /// A fresh table for this function, seeded.
    pub async fn table(&self) -> Result<String, String> {
        let name = format!("power-{}-{}", std::process::id(), self.name);
        let client = devkit::client();
        devkit::create_workspace_table(&client, &name)
            .await
            .map_err(|e| format!("cannot create the table {name}: {e}"))?;
        tools::seed::load(&store::Table::new(client.clone(), &name))
            .await
            .map_err(|e| format!("seeding {name}: {e}"))?;
        if self.name == "add-order-event" {
            let table = store::Table::new(client.clone(), &name);
            more_orders(&table).await?;
            let orders = seeded_orders(&client, &name).await?;
            let _ = self.orders.set(orders);
        }
        Ok(name)
    }

    pub async fn drop_table(&self, name: &str) {
        let _ = devkit::client()
            .delete_table()
            .table_name(name)
            .send()
            .await;
    }

    /// The function's process as Lambda starts it: Lambda's variables, the template's
    /// environment for this table, the run's CA beside Amazon's roots.
    pub fn command(
        &self,
        setting: &Setting,
        table: &str,
        runtime_api: &str,
        memory_mb: u32,
    ) -> Command {
        let mut command = Command::new(setting.bin_dir.join(&self.name));
        bench::lambda_environment(&mut command, &self.name, &setting.endpoint);
        let given =
            BTreeMap::from([("CursorSigningKey".to_owned(), CURSOR_SIGNING_KEY.to_owned())]);
        let parameters =
            local_stack::lambda::environment::parameter_values(&setting.template, &given)
                .expect("the template declares CursorSigningKey");
        let environment = local_stack::lambda::environment::resolve(
            &self.function,
            &setting.template,
            table,
            &parameters,
            &setting.work,
        )
        .expect("every parameter has a value");
        command
            .envs(environment)
            .env("AWS_CA_BUNDLE", &setting.tls.ca)
            .env("AWS_LAMBDA_RUNTIME_API", runtime_api)
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory_mb.to_string());
        command
    }

    /// One invocation with this call's event; an answer other than success is an error.
    pub async fn call(&self, api: &mut RuntimeApi) -> Result<(Instant, Instant), String> {
        let n = CALLS.fetch_add(1, Ordering::Relaxed);
        let i = self.calls.fetch_add(1, Ordering::Relaxed);
        let mut event = vary(&self.name, &self.event, n, i);
        if let Some(orders) = self.orders.get().filter(|o| !o.is_empty()) {
            let order = &orders[(i / EVENTS_PER_ORDER) as usize % orders.len()];
            let path = format!("/orders/{order}/events");
            event["rawPath"] = path.clone().into();
            event["requestContext"]["http"]["path"] = path.into();
            event["pathParameters"]["orderId"] = order.clone().into();
        }
        let event = Bytes::from(serde_json::to_vec(&event).expect("JSON"));
        let (handed, at, bytes) = api.invoke(event, CALL_TIMEOUT).await?;
        let response: Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("the response is not JSON: {e}"))?;
        match self.kind {
            Kind::Api => {
                let status = response["statusCode"].as_u64().unwrap_or(0);
                if !(200..300).contains(&status) {
                    return Err(format!("answered {status}: {}", response["body"]));
                }
            }
            Kind::Stream => {
                let failures = response["batchItemFailures"].as_array();
                if failures.is_none_or(|f| !f.is_empty()) {
                    return Err(format!("answered {response}"));
                }
            }
        }
        Ok((handed, at))
    }
}

/// Orders for add-order-event beyond the seed's three: a run of six sizes makes about 1,000
/// calls, at most [`EVENTS_PER_ORDER`] on each order.
const MORE_ORDERS: u64 = 220;

/// Places [`MORE_ORDERS`] orders of the seed's customer, an hour apart from 2020-11-01.
async fn more_orders(table: &store::Table) -> Result<(), String> {
    let customer = keys::Id::parse("customer", tools::seed::CUSTOMER).map_err(|e| e.to_string())?;
    let sku = keys::commerce::Sku::new(42).map_err(|e| e.to_string())?;
    for n in 0..MORE_ORDERS {
        let ms = 1_604_188_800_000 + n * 3_600_000;
        let order = commerce::data::NewOrder {
            customer: customer.clone(),
            order_id: keys::SortableId::floor(ms),
            created_at: keys::Timestamp::from_ms(ms).map_err(|e| e.to_string())?,
            lines: vec![(sku, 1, 499)],
            design: Default::default(),
        };
        commerce::fixtures::place_order_in(table, &order, "USD")
            .await
            .map_err(|e| format!("placing order {n}: {e}"))?;
    }
    Ok(())
}

/// The ids of the order headers of a seeded table (`#ORDER#<id>` sort keys).
async fn seeded_orders(
    client: &aws_sdk_dynamodb::Client,
    table: &str,
) -> Result<Vec<String>, String> {
    let mut orders = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .projection_expression("SK")
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| format!("scanning {table}: {e}"))?;
        for item in page.items() {
            if let Some(id) = item
                .get("SK")
                .and_then(|v| v.as_s().ok())
                .and_then(|sk| sk.strip_prefix("#ORDER#"))
            {
                orders.push(id.to_owned());
            }
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            return Ok(orders);
        }
    }
}

/// The event of the run's call `n`, this function's `i`-th: a write with an idempotency key gets
/// its own key, a batch its own event ids (each record's first 16 hex digits, the call's
/// number), and a write that would refuse its sample twice its own change ([`vary_body`]).
pub fn vary(function: &str, event: &Value, n: u64, i: u64) -> Value {
    let mut event = event.clone();
    if event["headers"]["idempotency-key"].is_string() {
        event["headers"]["idempotency-key"] = format!("power-bench-{n:016x}").into();
    }
    if let Some(records) = event.get_mut("Records").and_then(Value::as_array_mut) {
        for (i, r) in records.iter_mut().enumerate() {
            let id = r["eventID"].as_str().unwrap_or_default();
            let rest = id.get(16..).unwrap_or_default();
            r["eventID"] = format!("{:016x}{rest}", (n << 8) | i as u64).into();
        }
    }
    if let Some(mut body) = event["body"]
        .as_str()
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
        && vary_body(function, &mut body, i)
    {
        event["body"] = body.to_string().into();
    }
    event
}

/// The writes whose sample would be refused the second time (409: it exists, its version
/// moved, the stock ran out), each made new for its `i`-th call. Whether one was changed.
fn vary_body(function: &str, body: &mut Value, i: u64) -> bool {
    match function {
        // The version the previous call left (the seed's is 1).
        "put-inventory" => body["version"] = (i + 1).into(),
        // Out, then back in: the stock never runs out.
        "adjust-inventory" => body["delta"] = if i.is_multiple_of(2) { -2 } else { 2 }.into(),
        // The same job from another date.
        "add-employee-job" => {
            let date = format!(
                "{}-{:02}-{:02}",
                2026 + i / 336,
                1 + (i / 28) % 12,
                1 + i % 28
            );
            body["startDate"] = date.into()
        }
        // A building has two digits at most: another day after 98 of them.
        "create-course-occurrence" => {
            body["location"] = format!("Building {}", 2 + i % 98).into();
            body["startDate"] = format!("2022-03-{}", 16 + i / 98).into()
        }
        "issue-certificate" => body["student"] = format!("Student {i:06}").into(),
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_gets_its_own_key_and_event_ids() {
        let root = sam_template::workspace_root();
        let read = |f: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(root.join("events").join(f)).unwrap())
                .unwrap()
        };
        let order = read("place-order.json");
        assert_ne!(
            vary("place-order", &order, 1, 0)["headers"]["idempotency-key"],
            vary("place-order", &order, 2, 0)["headers"]["idempotency-key"]
        );
        let batch = read("commerce-stream.json");
        let ids = |n| -> Vec<Value> {
            vary("commerce-stream", &batch, n, 0)["Records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["eventID"].clone())
                .collect()
        };
        let (a, b) = (ids(1), ids(2));
        assert!(a.iter().all(|id| !b.contains(id)), "{a:?} {b:?}");
        let mut unique = a.clone();
        unique.dedup();
        assert_eq!(unique.len(), a.len());
        assert_eq!(a[0].as_str().unwrap().len(), 32);
        let reading = read("get-customer.json");
        assert_eq!(vary("get-customer", &reading, 7, 7), reading);
        // A versioned write names the version the call before it left.
        let body = |function: &str, i| -> Value {
            let e = vary(function, &read(&format!("{function}.json")), i, i);
            serde_json::from_str(e["body"].as_str().unwrap()).unwrap()
        };
        assert_eq!(body("put-inventory", 0)["version"], 1);
        assert_eq!(body("put-inventory", 5)["version"], 6);
        assert_ne!(
            body("add-employee-job", 0)["startDate"],
            body("add-employee-job", 1)["startDate"]
        );
        assert_eq!(body("add-employee-job", 29)["startDate"], "2026-02-02");
        assert_eq!(
            body("create-course-occurrence", 98)["location"],
            "Building 2"
        );
        assert_eq!(
            body("create-course-occurrence", 98)["startDate"],
            "2022-03-17"
        );
    }
}
