//! TLS in front of DynamoDB Local, as every call to DynamoDB on AWS is TLS: a throwaway CA made
//! for this run, a certificate for `localhost` under it (through an intermediate, as on AWS), and
//! a terminator that forwards the plain bytes to DynamoDB Local. The functions trust the CA
//! through the variable their runtime reads (NODE_EXTRA_CA_CERTS, AWS_CA_BUNDLE), beside the
//! roots they load on Lambda, so loading the trust store costs what it costs there (see
//! `Setting::command`).

use std::{
    io,
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::{
    TlsAcceptor,
    rustls::{
        self, ServerConfig,
        pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer},
    },
};

/// Where Debian (and most distributions) keep the system's roots, as one PEM file.
const SYSTEM_ROOTS: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
];

pub struct Terminator {
    pub port: u16,
    /// The system's roots and this run's CA, one PEM file.
    pub bundle: PathBuf,
    /// This run's CA alone.
    pub ca: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Terminator {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn tls_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// Makes the CA and certificates under `dir` and serves TLS on an ephemeral port, forwarding to
/// `upstream`.
///
/// The chain has the shape of a DynamoDB endpoint's, so a handshake verifies what it verifies on
/// AWS: an RSA 2048 leaf, sent with the RSA 2048 intermediate that signed it (Amazon RSA 2048
/// M01-M04 there), under an RSA root the client trusts (Amazon Root CA 1). An ECDSA P-256 chain
/// (rcgen's default) would instead time elliptic-curve verification, which a size-optimised
/// aws-lc makes 2-3 times slower and an AWS endpoint never asks for.
pub async fn start(dir: &Path, upstream: SocketAddr) -> io::Result<Terminator> {
    let rsa = || KeyPair::generate_for(&rcgen::PKCS_RSA_SHA256).map_err(tls_error);
    let ca_key = rsa()?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(tls_error)?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "lambda-bench throwaway root CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params.self_signed(&ca_key).map_err(tls_error)?;
    let root = Issuer::new(ca_params, ca_key);

    let intermediate_key = rsa()?;
    let mut intermediate_params =
        CertificateParams::new(Vec::<String>::new()).map_err(tls_error)?;
    intermediate_params
        .distinguished_name
        .push(DnType::CommonName, "lambda-bench throwaway intermediate CA");
    intermediate_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    intermediate_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let intermediate_cert = intermediate_params
        .signed_by(&intermediate_key, &root)
        .map_err(tls_error)?;
    let intermediate = Issuer::new(intermediate_params, intermediate_key);

    let key = rsa()?;
    let params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .map_err(tls_error)?;
    let cert = params.signed_by(&key, &intermediate).map_err(tls_error)?;

    std::fs::create_dir_all(dir)?;
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, ca_cert.pem())?;
    let system = SYSTEM_ROOTS
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let bundle = dir.join("roots-and-ca.pem");
    std::fs::write(&bundle, format!("{system}\n{}", ca_cert.pem()))?;

    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(tls_error)?
        .with_no_client_auth()
        .with_single_cert(
            vec![
                CertificateDer::from(cert.der().to_vec()),
                CertificateDer::from(intermediate_cert.der().to_vec()),
            ],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .map_err(tls_error)?;
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let _ = stream.set_nodelay(true);
                let Ok(mut tls) = acceptor.accept(stream).await else {
                    return;
                };
                let Ok(mut plain) = TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = plain.set_nodelay(true);
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    Ok(Terminator {
        port,
        bundle,
        ca,
        task,
    })
}
