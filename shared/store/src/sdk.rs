//! The AWS SDK configuration every function's clients share, made once at start-up.
//!
//! Two choices make a cold start cheaper without changing what a function can reach:
//!
//! - **Trust**: AWS service endpoints (DynamoDB, SQS, STS) all present certificates of Amazon
//!   Trust Services, so the functions trust its five roots ([`AMAZON_TRUST_SERVICES`]) instead
//!   of loading and parsing the system's whole bundle (about 140 certificates: the largest
//!   share of a cold start's own CPU in a profile). `AWS_CA_BUNDLE` (the AWS SDKs' setting for a
//!   PEM file of extra roots: a proxy's CA, DynamoDB Local behind TLS) adds its certificates to
//!   those. With `SSL_CERT_FILE` or `SSL_CERT_DIR` set, the system's roots and those are trusted,
//!   as without this module.
//! - **Credentials**: in Lambda, the function's role credentials are in its environment, so that
//!   is where they are read, without building the default chain (profiles, SSO, web identity,
//!   IMDS: an STS client among them). Elsewhere (tools, tests) the default chain applies.
//!
//! An endpoint override (`AWS_ENDPOINT_URL_DYNAMODB`) and every other standard setting are read
//! as `aws_config::load_defaults` reads them.

use aws_config::{BehaviorVersion, SdkConfig};
use aws_smithy_http_client::{
    Builder,
    tls::{self, TlsContext, TrustStore},
};

use crate::StoreError;

/// Amazon Root CA 1-4 and Starfield Services Root Certificate Authority - G2, in PEM.
pub const AMAZON_TRUST_SERVICES: &str = include_str!("amazon-trust-services.pem");

/// Whether the environment names its own trust roots (then the system's are loaded).
fn custom_roots() -> bool {
    ["SSL_CERT_FILE", "SSL_CERT_DIR"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// The extra roots of `AWS_CA_BUNDLE`, if it names a file. Unreadable or holding no
/// certificate, it stops the start-up: a function that cannot trust its endpoint would only fail
/// later, on every request.
fn extra_roots() -> Result<Option<Vec<u8>>, StoreError> {
    let Some(path) = std::env::var("AWS_CA_BUNDLE")
        .ok()
        .filter(|p| !p.is_empty())
    else {
        return Ok(None);
    };
    let bad = |why: String| StoreError::Config(format!("AWS_CA_BUNDLE={path}: {why}"));
    let pem = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
    match certificates_in(&pem) {
        Ok(0) => Err(bad("no certificate in the file".into())),
        Ok(_) => Ok(Some(pem)),
        Err(e) => Err(bad(e.to_string())),
    }
}

/// How many certificates a PEM text holds (other sections are skipped).
fn certificates_in(pem: &[u8]) -> Result<usize, rustls_pki_types::pem::Error> {
    use rustls_pki_types::{CertificateDer, pem::PemObject};
    CertificateDer::pem_slice_iter(pem).try_fold(0, |n, cert| cert.map(|_| n + 1))
}

/// Whether this process runs in Lambda with its role's credentials in the environment.
fn lambda_credentials() -> bool {
    std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some()
        && std::env::var_os("AWS_ACCESS_KEY_ID").is_some()
        && std::env::var_os("AWS_SECRET_ACCESS_KEY").is_some()
}

/// The shared configuration, from the environment. Fails on a trust bundle it cannot use.
pub async fn config() -> Result<SdkConfig, StoreError> {
    let mut loader = aws_config::defaults(BehaviorVersion::latest());
    if !custom_roots() {
        let mut trust = TrustStore::empty()
            .with_native_roots(false)
            .with_pem_certificate(AMAZON_TRUST_SERVICES.as_bytes());
        if let Some(pem) = extra_roots()? {
            trust = trust.with_pem_certificate(pem);
        }
        let context = TlsContext::builder()
            .with_trust_store(trust)
            .build()
            .map_err(|e| StoreError::Config(format!("a TLS context of PEM roots: {e}")))?;
        let client = Builder::new()
            .tls_provider(tls::Provider::Rustls(
                tls::rustls_provider::CryptoMode::AwsLc,
            ))
            .tls_context(context)
            .build_https();
        loader = loader.http_client(client);
    }
    if lambda_credentials() {
        loader = loader.credentials_provider(
            aws_config::environment::EnvironmentVariableCredentialsProvider::new(),
        );
    }
    Ok(loader.load().await)
}

/// Opens the table client's connection to DynamoDB (DNS, TCP, TLS), which the client's pool then
/// keeps for the requests that follow. The request is `DescribeEndpoints`, which DynamoDB answers
/// without authorization on its public endpoints, so it needs no permission in any function's
/// policy; whatever it answers (DynamoDB Local does not know it: a 400), the connection is open.
pub async fn connect(table: &crate::Table) {
    let _ = table.client().describe_endpoints().send().await;
}

/// Whether a function opens its connection during init: only with `CONNECT_AT_INIT=1`, and not
/// to a plain-HTTP endpoint (DynamoDB Local for tests and the local stack: no handshake to move).
/// Off by default: measured here, the handshake costs about 1.3 ms of CPU, and opening it in init
/// added a round trip to the cold start without a consistent gain, whether init ran at the
/// size's CPU share or at a full vCPU (`lab/bench/results/changes/15-connect-at-init.md`).
fn connects_at_init(setting: Option<&str>, endpoint: Option<&str>) -> bool {
    setting == Some("1") && !endpoint.is_some_and(|e| e.starts_with("http://"))
}

/// At a function's start-up: [`connect`], if [`connects_at_init`] says to.
pub async fn connect_at_init(table: &crate::Table) {
    let setting = std::env::var("CONNECT_AT_INIT").ok();
    let endpoint = std::env::var("AWS_ENDPOINT_URL_DYNAMODB").ok();
    if connects_at_init(setting.as_deref(), endpoint.as_deref()) {
        connect(table).await;
    }
}

/// The DynamoDB client of a function: the shared configuration, and each call traced as an X-Ray
/// subsegment when Lambda samples the invocation ([`telemetry::xray`]).
pub fn dynamodb_client(config: &SdkConfig, table: &str) -> aws_sdk_dynamodb::Client {
    let region = config.region().map(|r| r.to_string()).unwrap_or_default();
    let traced = aws_sdk_dynamodb::config::Builder::from(config)
        .interceptor(PropagateTrace)
        .interceptor(TraceCalls {
            table: table.to_owned(),
            region,
        })
        .build();
    aws_sdk_dynamodb::Client::from_conf(traced)
}

/// Sends the current invocation's trace header ([`telemetry::xray::current_header`]) as the
/// `X-Amzn-Trace-Id` of every call, as the SDK's own interceptor does when it finds the header in
/// `_X_AMZN_TRACE_ID`, which the invocation loop does not write ([`telemetry::runtime`]). For any
/// AWS SDK client: `.interceptor(PropagateTrace)` on its configuration.
#[derive(Debug)]
pub struct PropagateTrace;

impl aws_sdk_dynamodb::config::Intercept for PropagateTrace {
    fn name(&self) -> &'static str {
        "PropagateTrace"
    }

    fn modify_before_signing(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<
            '_,
        >,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let headers = context.request_mut().headers_mut();
        if let Some(trace) = telemetry::xray::current_header()
            && !headers.contains_key(TRACE_HEADER)
        {
            // A header Lambda gave that is not a valid header value is left out, not an error.
            let _ = headers.try_insert(TRACE_HEADER, trace);
        }
        Ok(())
    }
}

const TRACE_HEADER: &str = "x-amzn-trace-id";

/// Times every attempt of a call made under a sampled trace header and sends it to the daemon.
/// Without a daemon it does nothing; under no header or an unsampled one, it reads one variable
/// per attempt.
#[derive(Debug)]
struct TraceCalls {
    table: String,
    region: String,
}

/// The sampled invocation's trace, when the current attempt started, and which attempt it is.
#[derive(Debug, Clone)]
struct Attempt {
    trace: telemetry::xray::TraceHeader,
    start: std::time::SystemTime,
    number: u32,
}

impl aws_smithy_types::config_bag::Storable for Attempt {
    type Storer = aws_smithy_types::config_bag::StoreReplace<Attempt>;
}

impl aws_sdk_dynamodb::config::Intercept for TraceCalls {
    fn name(&self) -> &'static str {
        "TraceCalls"
    }

    fn read_before_attempt(
        &self,
        _: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        if telemetry::xray::Daemon::get().is_none() {
            return Ok(());
        }
        if let Some(trace) = telemetry::xray::TraceHeader::sampled_now() {
            let number = cfg.load::<Attempt>().map_or(0, |a| a.number + 1);
            cfg.interceptor_state().store_put(Attempt {
                trace,
                start: std::time::SystemTime::now(),
                number,
            });
        }
        Ok(())
    }

    fn read_after_attempt(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        // An attempt is stored only when there is a daemon and the invocation is sampled.
        let (Some(attempt), Some(daemon)) = (cfg.load::<Attempt>(), telemetry::xray::Daemon::get())
        else {
            return Ok(());
        };
        let operation = cfg
            .load::<aws_smithy_runtime_api::client::orchestrator::Metadata>()
            .map_or("", |m| m.name());
        let response = context.response();
        daemon.send(
            &attempt.trace,
            &telemetry::xray::Subsegment {
                name: "DynamoDB",
                operation,
                table: &self.table,
                region: &self.region,
                request_id: response.and_then(|r| r.headers().get("x-amzn-requestid")),
                status: response.map(|r| r.status().as_u16()),
                retries: attempt.number,
                start: attempt.start,
                end: std::time::SystemTime::now(),
            },
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_connects_at_init_only_when_told_to_and_its_endpoint_is_tls() {
        assert!(!connects_at_init(None, None));
        assert!(!connects_at_init(Some("0"), None));
        assert!(connects_at_init(Some("1"), None));
        assert!(connects_at_init(Some("1"), Some("https://localhost:8443")));
        assert!(!connects_at_init(Some("1"), Some("http://127.0.0.1:8000")));
    }

    #[test]
    fn the_embedded_roots_are_the_five_amazon_trust_services_roots() {
        assert_eq!(
            certificates_in(AMAZON_TRUST_SERVICES.as_bytes()).ok(),
            Some(5)
        );
        let ders: Vec<_> =
            <rustls_pki_types::CertificateDer as rustls_pki_types::pem::PemObject>::pem_slice_iter(
                AMAZON_TRUST_SERVICES.as_bytes(),
            )
            .collect::<Result<_, _>>()
            .expect("valid PEM, comments between certificates ignored");
        for der in &ders {
            webpki::anchor_from_trusted_cert(der).expect("a usable trust anchor");
        }
    }

    #[test]
    fn a_bundle_without_certificates_or_with_a_broken_one_is_told_apart() {
        assert_eq!(certificates_in(b"no PEM here").ok(), Some(0));
        let broken = b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n";
        assert!(certificates_in(broken).is_err());
    }
}
