//! Cross-cutting tests (run by `make test` with the rest):
//! - `access`: who may call what: no token, another customer, a customer on a staff route;
//! - `appointments`: seed 000's one-to-many-to-many on the registry's keys, booked and
//!   rescheduled in transactions on DynamoDB Local;
//! - `ambiguous`: ids `.` and `..`, a body member or a query parameter given twice, invisible
//!   characters in names: a 400 naming the field, nothing written;
//! - `bodies`: a body that is not the documented JSON object is a 400 on every route;
//! - `contract`: `template.yaml` and the code agree: every function has its crate and its sample
//!   event, every crate is in the template, every route has a handler;
//! - `sample_events`: the API functions' `events/` samples are their declarations' examples
//!   (`make samples` writes them);
//! - `samples`: every sample of `events/` goes through its handler against DynamoDB Local, uses
//!   only the DynamoDB actions its IAM policy grants, and costs what the README's table says
//!   (`cost`);
//! - `messages`: bad input over every route is answered in words a person reads, naming the
//!   field, never in Rust's or serde's;
//! - `numbers`: every numeric input `openapi.yaml` documents, sent i64's and u64's extremes,
//!   fractions, `"1"` and null: never a 5xx, a documented 4xx that writes nothing, and range
//!   messages that state the documented range;
//! - `key_designs`: what DynamoDB Local refuses and how it orders and indexes items, for both key
//!   designs (concatenated strings, multi-attribute typed keys): docs/key-designs.md's claims;
//! - `seed_costs`: seed 004's cost claims on DynamoDB Local's meter (docs/one-table-or-many.md);
//! - `merged`: a write-sharded index read as one ordered, pageable list (`store::merge`), walked
//!   over random data and page sizes;
//! - `order_designs`: C4 by status and O10 answer the same pages from GSI1's concatenated keys and
//!   from the multi-attribute indexes, across a switch of design and before the indexes exist;
//! - `generated_client`: a client generated from `openapi.yaml` by openapi-python-client drives a
//!   customer's journey against the local stack;
//! - `hr`: `store::hr`: reference data, and employees' adjacency lists kept in step by every
//!   write;
//! - `one_build`: every command shares one build of the workspace: the tests turn on no feature of
//!   a dependency that `make run`'s build lacks;
//! - `openapi`: `openapi.yaml` agrees with the template, and every answer the end-to-end tests
//!   receive is one it documents;
//! - `operations`: what an operator of a deployed stack relies on: alarms that notice a stopped,
//!   failing or lagging stream consumer and reach someone, the consumers' own concurrency, the
//!   user pool's password policy and the docs' example password;
//! - `outage`: DynamoDB Local stopped under the running stack: every route answers 503
//!   `unavailable` with `Retry-After`, never a 500, and the stack recovers when it is back;
//! - `poison`: a record no retry can apply goes to the failure queue once, through the real
//!   stream consumer, and holds nothing back;
//! - `metrics`: every invocation of a real binary writes one valid EMF document with what it did;
//! - `drift`: drifted derived values are shown as `null` and named, never a 500;
//! - `memory`: a warm real binary's resident memory stays flat over tens of thousands of
//!   invocations, each with its own trace header;
//! - `loopback`: DynamoDB Local and the local stack refuse connections to the machine's other
//!   addresses;
//! - `startup`: an unusable configuration fails a real binary's start-up with its reason, reported
//!   to the Runtime API as the invocation's error;
//! - `cursors`: no paginated route's cursor shows a stranger any key material;
//! - `placements`: seed 001's two placements of a static prefix in a course's partition, each
//!   read measured on DynamoDB Local (docs/seeds.md's table);
//! - `paging`: every paginated route refuses a page it does not serve, as its declaration and
//!   `openapi.yaml` state its page size;
//! - `people`: who may read whom: lists of certificate holders for staff, one certificate for
//!   anyone;
//! - `raw_requests`: a request whose URI cannot be built is a 400 from the real binary, not a
//!   panic;
//! - `text`: every text of every route `openapi.yaml` lists refuses invisible and control
//!   characters, naming the field, and writes nothing;
//! - `repair_live`: `make reconcile REPAIR=1` run again and again under live traffic leaves 0 drift
//!   once the streams drain;
//! - `e2e`, `e2e_reviews`, `e2e_learning`, `e2e_hr`: the local stack, real binaries behind real HTTP,
//!   in each `TableLayout` (one table, a table per context);
//! - `layouts`: with a table per context, what crosses contexts works across tables and each
//!   table holds its own context's items only; and the same workload through every layout and
//!   index design in process (`replay`), billed by the one meter.

#[cfg(test)]
mod access;
#[cfg(test)]
mod ambiguous;
#[cfg(test)]
mod appointments;
#[cfg(test)]
mod bodies;
#[cfg(test)]
mod catalogue;
#[cfg(test)]
mod contract;
#[cfg(test)]
mod cost;
#[cfg(test)]
mod cursors;
#[cfg(test)]
mod dispatch;
#[cfg(test)]
mod drift;
#[cfg(test)]
mod e2e;
#[cfg(test)]
mod e2e_hr;
#[cfg(test)]
mod e2e_learning;
#[cfg(test)]
mod e2e_reviews;
#[cfg(test)]
mod examples;
#[cfg(test)]
mod explorer;
#[cfg(test)]
mod frozen;
#[cfg(test)]
mod generated;
#[cfg(test)]
mod generated_client;
#[cfg(test)]
mod hr;
#[cfg(test)]
mod key_designs;
#[cfg(test)]
mod layouts;
#[cfg(test)]
mod links;
#[cfg(test)]
mod load;
#[cfg(test)]
mod loopback;
#[cfg(test)]
mod memory;
#[cfg(test)]
mod merged;
#[cfg(test)]
mod messages;
#[cfg(test)]
mod metrics;
#[cfg(test)]
mod numbers;
#[cfg(test)]
mod one_build;
#[cfg(test)]
mod openapi;
#[cfg(test)]
mod operations;
#[cfg(test)]
mod order_designs;
#[cfg(test)]
mod outage;
#[cfg(test)]
mod paging;
#[cfg(test)]
mod people;
#[cfg(test)]
mod placements;
#[cfg(test)]
mod poison;
#[cfg(test)]
mod quotations;
#[cfg(test)]
mod raw_requests;
#[cfg(test)]
mod readme;
#[cfg(test)]
mod repair_live;
#[cfg(test)]
mod replay;
#[cfg(test)]
mod retries;
#[cfg(test)]
mod sample_events;
#[cfg(test)]
mod samples;
#[cfg(test)]
mod seed_costs;
#[cfg(test)]
mod stack;
#[cfg(test)]
mod startup;
#[cfg(test)]
mod text;
#[cfg(test)]
mod watch_env;
