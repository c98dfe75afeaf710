//! Whether the stream consumers have applied every record made before a moment: read from their
//! own positions (`stream_handler::position`: the last record each answered for on each shard)
//! and from the stream itself (what follows each position), not assumed from a settle time.
//!
//! A record is *in flight* for a consumer when its mapping would hand it over (the template's
//! `FilterCriteria`), it was made before the moment, and it follows the consumer's position on
//! its shard. A shard whose child has a position is done with (Lambda reads a child only once its
//! parent is read to its end). A consumer with no position on any shard of the stream is taken as
//! not reading it (a table loaded with no stream running, another layout's consumer): the repair
//! says so.

use std::collections::{BTreeMap, BTreeSet};

use aws_sdk_dynamodbstreams::Client;
use local_stack::streams::{
    Clock,
    event::Record,
    filter::Filters,
    shard::{ShardInfo, ShardReader, Start, list_shards},
};
use store::{Read, StoreError, Table, aggregate::Lane};
use stream_handler::position::SEQUENCE_NUMBER;

/// Pages of GetRecords read per shard and check: past them, a shard's records are counted as
/// far as read, and the repair waits for the rest.
const PAGES_PER_SHARD: usize = 20;

/// One consumer of the stream, as its mapping hands it records.
#[derive(Debug)]
pub struct Consumer {
    pub name: String,
    filters: Filters,
}

impl Consumer {
    /// Every stream consumer `template` declares, with its mapping's filter.
    pub fn of_template(template: &sam_template::Template) -> Result<Vec<Consumer>, String> {
        template
            .functions
            .iter()
            .filter_map(|f| Some((f.name(), f.streams.first()?)))
            .map(|(name, mapping)| {
                Ok(Consumer {
                    name: name.to_owned(),
                    filters: Filters::parse(&mapping.filter_patterns)?,
                })
            })
            .collect()
    }
}

/// The records in flight at one check.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct InFlight {
    /// Records made before the moment that a consumer has not answered for.
    pub records: usize,
    /// When the oldest of them was made (epoch seconds, DynamoDB's clock).
    pub oldest: Option<i64>,
    /// The consumers they wait for.
    pub consumers: BTreeSet<String>,
    /// Consumers with no position on this stream, taken as not reading it.
    pub not_reading: BTreeSet<String>,
}

/// The table's stream and its consumers.
pub struct Watch {
    client: Client,
    consumers: Vec<Consumer>,
}

impl Watch {
    pub fn new(client: Client, consumers: Vec<Consumer>) -> Watch {
        Watch { client, consumers }
    }

    /// The template's consumers, read with `client`.
    pub fn of_template(client: Client) -> Result<Watch, String> {
        let template = sam_template::Template::workspace().map_err(|e| e.to_string())?;
        Ok(Watch::new(client, Consumer::of_template(&template)?))
    }

    /// The template's consumers on the DynamoDB Local `devkit::endpoint` names (tests, tools).
    pub fn local() -> Watch {
        Watch::of_template(local_stack::streams::streams_client(&devkit::endpoint()))
            .expect("the template's stream consumers")
    }

    /// How many consumers it watches.
    pub fn consumer_count(&self) -> usize {
        self.consumers.len()
    }

    /// What is in flight on `table`'s stream among records made before `before` (epoch seconds):
    /// `None` when the table has no stream.
    pub async fn in_flight(&self, table: &Table, before: i64) -> Result<Option<InFlight>, String> {
        let described = table
            .client()
            .describe_table()
            .table_name(table.name())
            .send()
            .await
            .map_err(|e| {
                format!(
                    "DescribeTable: {}",
                    aws_sdk_dynamodb::error::DisplayErrorContext(e)
                )
            })?;
        let Some(stream) = described.table().and_then(|t| t.latest_stream_arn()) else {
            return Ok(None);
        };
        let shards = list_shards(&self.client, stream).await?;
        let mut out = InFlight::default();
        for consumer in &self.consumers {
            let positions = positions(table, &consumer.name, stream, &shards)
                .await
                .map_err(|e| e.to_string())?;
            if positions.is_empty() {
                out.not_reading.insert(consumer.name.clone());
                continue;
            }
            for shard in &shards {
                if done(shard, &shards, &positions) {
                    continue;
                }
                let after = positions.get(shard.id.as_str()).map(String::as_str);
                let (records, oldest) = self
                    .unanswered(stream, shard, after, consumer, before)
                    .await?;
                if records > 0 {
                    out.records += records;
                    out.oldest = match (out.oldest, oldest) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    out.consumers.insert(consumer.name.clone());
                }
            }
        }
        Ok(Some(out))
    }

    /// The records of `shard` after `after` (from its oldest without it) made before `before`
    /// that `consumer`'s mapping hands over: how many, and when the oldest was made.
    async fn unanswered(
        &self,
        stream: &str,
        shard: &ShardInfo,
        after: Option<&str>,
        consumer: &Consumer,
        before: i64,
    ) -> Result<(usize, Option<i64>), String> {
        let mut reader = match after {
            Some(sequence) => ShardReader::after(self.client.clone(), stream, &shard.id, sequence),
            None => ShardReader::new(self.client.clone(), stream, &shard.id, Start::TrimHorizon),
        };
        let clock = Clock::default();
        let (mut count, mut oldest) = (0, None);
        let mut empty = 0;
        for _ in 0..PAGES_PER_SHARD {
            let page = reader.read().await?;
            if page.is_empty() {
                // An open shard's tip; DynamoDB Streams may also answer an empty page before
                // records that follow it, so one more look.
                empty += 1;
                if reader.ended() || empty > 1 {
                    break;
                }
                continue;
            }
            empty = 0;
            for r in &page {
                let record = Record::from_stream(r, stream, &clock)?;
                let made = record
                    .created
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64);
                if made >= before {
                    return Ok((count, oldest));
                }
                if consumer.filters.matches(&record.json) {
                    count += 1;
                    oldest = Some(oldest.map_or(made, |o: i64| o.min(made)));
                }
            }
        }
        Ok((count, oldest))
    }
}

/// `consumer`'s position on each shard of `stream` that has one: its sequence number.
async fn positions<'s>(
    table: &Table,
    consumer: &str,
    stream: &str,
    shards: &'s [ShardInfo],
) -> Result<BTreeMap<&'s str, String>, StoreError> {
    let mut out = BTreeMap::new();
    for shard in shards {
        let lane = Lane::new(consumer, stream, &shard.id);
        let item = table.get_item(&lane.position(), Read::Strong, None).await?;
        if let Some(sequence) = item
            .as_ref()
            .and_then(|i| i.get(SEQUENCE_NUMBER))
            .and_then(|v| v.as_s().ok())
        {
            out.insert(shard.id.as_str(), sequence.clone());
        }
    }
    Ok(out)
}

/// Whether the consumer is done with `shard`: a shard that follows it has a position, or is done.
fn done(shard: &ShardInfo, shards: &[ShardInfo], positions: &BTreeMap<&str, String>) -> bool {
    shard.closed
        && shards
            .iter()
            .filter(|c| c.parent.as_deref() == Some(shard.id.as_str()))
            .any(|child| {
                positions.contains_key(child.id.as_str()) || done(child, shards, positions)
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str, parent: Option<&str>, closed: bool) -> ShardInfo {
        ShardInfo::new(id, parent, closed)
    }

    /// A parent is done once a child, or a child's child, has a position; an open shard never is.
    #[test]
    fn a_shard_is_done_once_a_descendant_has_a_position() {
        let shards = [
            shard("a", None, true),
            shard("b", Some("a"), true),
            shard("c", Some("b"), false),
        ];
        let at = |ids: &[&'static str]| -> BTreeMap<&str, String> {
            ids.iter().map(|i| (*i, "1".to_owned())).collect()
        };
        assert!(!done(&shards[0], &shards, &at(&[])));
        assert!(done(&shards[0], &shards, &at(&["c"])));
        assert!(done(&shards[1], &shards, &at(&["c"])));
        assert!(!done(&shards[2], &shards, &at(&["c"])));
        assert!(!done(&shards[1], &shards, &at(&["a"])));
    }
}
