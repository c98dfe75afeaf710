//! The emulated AWS account: its id and region, the names of its resources, and identifiers in
//! the shapes AWS uses. The random ones only need to be unique, not secret, so std's randomly
//! keyed hasher is a good enough source (no extra crate).

use std::{
    hash::{BuildHasher, Hasher, RandomState},
    sync::atomic::{AtomicU64, Ordering},
};

use base64::Engine;

/// The account id in every local ARN and event.
pub const ACCOUNT_ID: &str = "123456789012";
/// The region every function runs in and reports (`AWS::Region`, `awsRegion` of a stream
/// record).
pub const REGION: &str = "us-east-1";
/// `AWS::StackName`.
pub const STACK_NAME: &str = "local";
/// `requestContext.apiId` of the local API.
pub const API_ID: &str = "local";
/// Where the stream mappings' on-failure destinations are, relative to the working directory:
/// a JSON-lines file per destination (`<DestinationLogicalId>.jsonl`; an SQS queue in AWS).
pub const FAILURES_DIR: &str = ".local/failures";

/// A function's ARN.
pub fn function_arn(function: &str) -> String {
    format!("arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{function}")
}

fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.finish()
}

/// A Lambda request id: a version 4 UUID.
pub fn uuid() -> String {
    let a = (random_u64() & 0xffff_ffff_ffff_0fff) | 0x4000;
    let b = (random_u64() & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// An X-Ray trace header, as Lambda and API Gateway pass it on.
pub fn trace_id(epoch_seconds: u64) -> String {
    format!(
        "Root=1-{:08x}-{:016x}{:08x};Parent={:016x};Sampled=0",
        epoch_seconds,
        random_u64(),
        random_u64() as u32,
        random_u64()
    )
}

/// An API Gateway request id (`requestContext.requestId`, `apigw-requestid`): 16 base64
/// characters, like `JKJaXmPLvHcESHA=`.
pub fn apigw_request_id() -> String {
    let mut bytes = random_u64().to_be_bytes().to_vec();
    bytes.extend_from_slice(&random_u64().to_be_bytes()[..3]);
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let id = uuid();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert_ne!(uuid(), uuid());
        assert_eq!(apigw_request_id().len(), 16);
        assert!(trace_id(0).starts_with("Root=1-00000000-"));
        assert_eq!(
            function_arn("f"),
            "arn:aws:lambda:us-east-1:123456789012:function:f"
        );
    }
}
