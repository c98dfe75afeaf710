//! The capacity planner (`make plan`): a workload (entities, their popularity, requests per second
//! per access pattern over a day) sent through the real key builders and index membership, to the
//! heat of every partition key of the table and its indexes against DynamoDB's per-partition
//! limits, the shard counts that fix what runs hot, API Gateway's throttles, the Lambda concurrency and stream throughput
//! the peak needs, and what a month costs. A model of DynamoDB's documented behaviour, not a
//! measurement of AWS: see docs/capacity.md.

pub mod analysis;
pub mod entity;
pub mod fanout;
pub mod gateway;
pub mod generic;
pub mod inputs;
pub mod lambda;
pub mod limits;
pub mod model;
pub mod plot;
pub mod popularity;
pub mod profile;
pub mod report;
pub mod sim;
pub mod touch;
pub mod workload;

pub use workload::Workload;
