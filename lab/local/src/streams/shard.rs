//! Reading one shard with GetShardIterator and GetRecords, and listing a stream's shards.

use aws_sdk_dynamodbstreams::{
    Client,
    error::{DisplayErrorContext, ProvideErrorMetadata, SdkError},
    types::{Record as SdkRecord, ShardIteratorType},
};

/// Where a mapping starts reading a shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    TrimHorizon,
    Latest,
}

pub use stream_handler::lineage::{ShardInfo, list_shards};

/// One shard's read position. Reading is separate from processing: a record is read once, and
/// the worker keeps it until it is done with it.
pub struct ShardReader {
    client: Client,
    stream_arn: String,
    shard_id: String,
    start: Start,
    iterator: Option<String>,
    /// The last record read: an expired iterator resumes after it.
    last_read: Option<String>,
    ended: bool,
}

impl ShardReader {
    pub fn new(client: Client, stream_arn: &str, shard_id: &str, start: Start) -> ShardReader {
        ShardReader {
            client,
            stream_arn: stream_arn.to_owned(),
            shard_id: shard_id.to_owned(),
            start,
            iterator: None,
            last_read: None,
            ended: false,
        }
    }

    /// A reader of the records that follow `sequence` (a consumer's position).
    pub fn after(client: Client, stream_arn: &str, shard_id: &str, sequence: &str) -> ShardReader {
        ShardReader {
            last_read: Some(sequence.to_owned()),
            ..ShardReader::new(client, stream_arn, shard_id, Start::TrimHorizon)
        }
    }

    pub fn shard_id(&self) -> &str {
        &self.shard_id
    }

    /// True once a closed shard has been read to its end (or has disappeared).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Gets the first iterator now: for `LATEST`, this is the moment the mapping starts from.
    pub async fn prepare(&mut self) -> Result<(), String> {
        if self.iterator.is_none() && !self.ended {
            self.iterator = self.new_iterator().await?;
        }
        Ok(())
    }

    /// The records that follow the last ones read (often none): one GetRecords call, or two
    /// when the iterator has to be replaced.
    pub async fn read(&mut self) -> Result<Vec<SdkRecord>, String> {
        let mut replaced = false;
        loop {
            self.prepare().await?;
            let Some(iterator) = self.iterator.take() else {
                return Ok(Vec::new());
            };
            let e = match self
                .client
                .get_records()
                .shard_iterator(&iterator)
                .send()
                .await
            {
                Ok(out) => {
                    let records = out.records().to_vec();
                    if let Some(last) = records
                        .last()
                        .and_then(|r| r.dynamodb())
                        .and_then(|d| d.sequence_number())
                    {
                        self.last_read = Some(last.to_owned());
                    }
                    self.iterator = out.next_shard_iterator().map(str::to_owned);
                    self.ended = self.iterator.is_none();
                    return Ok(records);
                }
                Err(e) => e,
            };
            let service = e.as_service_error();
            let expired = service.is_some_and(|s| s.is_expired_iterator_exception());
            let trimmed = service.is_some_and(|s| s.is_trimmed_data_access_exception());
            let gone = service.is_some_and(|s| s.is_resource_not_found_exception());
            let error = format!("GetRecords on {}: {}", self.shard_id, describe(e));
            if gone {
                self.ended = true;
                return Err(error);
            }
            if !(expired || trimmed) {
                self.iterator = Some(iterator);
                return Err(error);
            }
            if trimmed && self.last_read.is_some() {
                // The records after the last one read are gone (24 hours of retention): go on
                // from the oldest still there, as Lambda does, but say so.
                self.last_read = None;
                self.start = Start::TrimHorizon;
                return Err(format!("{error}; reading on from the oldest record"));
            }
            // An iterator unused for too long (a long retry) expires. And DynamoDB Local (with
            // -sharedDb) refuses the iterators of a shard that never had a record as soon as
            // another table is written: a new TRIM_HORIZON one reads from the first record.
            // Neither loses anything.
            if replaced {
                return Err(error);
            }
            replaced = true;
        }
    }

    async fn new_iterator(&mut self) -> Result<Option<String>, String> {
        let mut request = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.stream_arn)
            .shard_id(&self.shard_id);
        request = match (&self.last_read, self.start) {
            (Some(seq), _) => request
                .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                .sequence_number(seq),
            (None, Start::TrimHorizon) => {
                request.shard_iterator_type(ShardIteratorType::TrimHorizon)
            }
            (None, Start::Latest) => request.shard_iterator_type(ShardIteratorType::Latest),
        };
        match request.send().await {
            Ok(out) => {
                let iterator = out.shard_iterator().map(str::to_owned);
                self.ended = iterator.is_none();
                Ok(iterator)
            }
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_resource_not_found_exception()) =>
            {
                self.ended = true;
                Ok(None)
            }
            Err(e) => Err(format!(
                "GetShardIterator on {}: {}",
                self.shard_id,
                describe(e)
            )),
        }
    }
}

/// `Code: message` for a service error; everything the SDK knows for the others (a connection
/// refused...).
fn describe<E, R>(e: SdkError<E, R>) -> String
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    match (e.code(), e.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_owned(),
        _ => DisplayErrorContext(e).to_string(),
    }
}
