//! The Lambda-faithful harness that `lambda-bench` (the functions against their peers) and
//! `power-bench` (every function at several memory sizes) share: a process at a memory size's
//! CPU share ([`process`]), the Runtime API it speaks ([`runtime`]), TLS in front of DynamoDB
//! Local ([`tls`]), and the environment Lambda gives every function ([`lambda_environment`]); and
//! what every benchmark's report names: the commit, the date, the CPU.

pub mod delay;
pub mod process;
pub mod runtime;
pub mod tls;

use std::{future::Future, path::Path, process::Command};

/// `--memory 128,1024`: the memory sizes (MB) a benchmark runs at, as both benchmarks take them.
pub fn memory_sizes(list: &str) -> Result<Vec<u32>, String> {
    list.split(',')
        .map(|m| {
            m.parse()
                .map_err(|_| format!("--memory: not a size in MB: {m}"))
        })
        .collect()
}

/// A benchmark's `main`: `run` on a multi-threaded runtime; an error is printed after `name`
/// (exit 1), as is a bad argument (`options`, exit 2).
pub fn main<O, F>(name: &str, options: Result<O, String>, run: impl FnOnce(O) -> F)
where
    F: Future<Output = Result<(), String>>,
{
    let options = options.unwrap_or_else(|e| {
        eprintln!("{name}: {e}");
        std::process::exit(2);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(e) = runtime.block_on(run(options)) {
        eprintln!("{name}: {e}");
        std::process::exit(1);
    }
}

/// The TLS terminator (certificates under `dir`) in front of `AWS_ENDPOINT_URL_DYNAMODB`, and
/// the endpoint the functions are given: `https://localhost:<port>`.
pub async fn terminator(dir: &Path) -> Result<(tls::Terminator, String), String> {
    let upstream = devkit::endpoint();
    let upstream_addr = upstream
        .trim_start_matches("http://")
        .parse()
        .map_err(|e| format!("AWS_ENDPOINT_URL_DYNAMODB={upstream}: {e} (want http://IP:PORT)"))?;
    let tls = tls::start(dir, upstream_addr)
        .await
        .map_err(|e| format!("TLS terminator: {e}"))?;
    let endpoint = format!("https://localhost:{}", tls.port);
    Ok((tls, endpoint))
}

/// The workspace's git commit, short.
pub fn commit(root: &Path) -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// Today, UTC, as `YYYY-MM-DD`.
pub fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// This machine's CPU, as `/proc/cpuinfo` names it.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// What Lambda sets for every function (and nothing from this shell): the reserved variables,
/// a fixed set of role credentials, and the DynamoDB endpoint of the run (`endpoint`, TLS).
pub fn lambda_environment(command: &mut Command, function: &str, endpoint: &str) {
    command
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "en_US.UTF-8")
        .env("TZ", ":UTC")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "ASIABENCHMARKEXAMPLE")
        .env("AWS_SECRET_ACCESS_KEY", "bench-secret-access-key")
        .env("AWS_SESSION_TOKEN", "bench-session-token")
        .env("AWS_LAMBDA_FUNCTION_NAME", function)
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
        .env(
            "AWS_LAMBDA_LOG_GROUP_NAME",
            format!("/aws/lambda/{function}"),
        )
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "bench")
        .env("AWS_ENDPOINT_URL_DYNAMODB", endpoint);
}
