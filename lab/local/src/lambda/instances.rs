//! The instances (processes) of one function, scaled like Lambda: an invocation goes to an idle
//! instance; when all are busy and fewer than `max_instances` run, another process starts; beyond
//! that, invocations queue in arrival order. Each instance handles one invocation at a time,
//! through its own Runtime API server.

use std::{
    collections::{HashMap, VecDeque},
    path::PathBuf,
    process::Stdio,
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, SystemTime},
};

use bytes::Bytes;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, BufReader},
    net::TcpListener,
    process::Command,
    sync::{Notify, mpsc, oneshot, watch},
};

use super::runtime_api::{self, Invocation, MAX_EVENT_BYTES, Outcome, RuntimeApi};
use crate::{account, sync::lock};

/// How long Lambda lets a new instance initialise before it takes its first event.
const INIT_TIMEOUT: Duration = Duration::from_secs(10);
/// The exit reason of an instance we killed on purpose (not worth a log line).
const KILLED: &str = "killed";

/// Everything needed to start a function's process.
#[derive(Debug, Clone)]
pub struct FunctionSpec {
    /// The function's name: its crate and binary name.
    pub name: String,
    pub binary: PathBuf,
    /// The resolved template environment.
    pub environment: Vec<(String, String)>,
    pub timeout: Duration,
    pub memory_mb: u32,
    /// Where its output is also appended (its "log group"); only stderr when `None`.
    pub log_file: Option<PathBuf>,
}

impl FunctionSpec {
    pub fn arn(&self) -> String {
        account::function_arn(&self.name)
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum InvokeError {
    #[error("no function named {0}")]
    UnknownFunction(String),
    #[error("cannot start {binary}: {reason}")]
    Start { binary: String, reason: String },
    /// The function reported an error (the Runtime API's `/error` endpoint).
    #[error("{error_type}: {error_message}")]
    Function {
        error_type: String,
        error_message: String,
    },
    #[error("timed out after {:.2} seconds", .0.as_secs_f64())]
    Timeout(Duration),
    /// The process exited while the invocation was in flight.
    #[error("the process {0} during the invocation")]
    Died(String),
    /// The event is larger than Lambda accepts for a synchronous invocation.
    #[error("the event is {0} bytes; Lambda accepts at most {MAX_EVENT_BYTES}")]
    EventTooLarge(usize),
    #[error("the function's response is not JSON: {0}")]
    BadResponse(String),
    #[error("the local stack is shutting down")]
    ShuttingDown,
}

/// One running process of a function and the sending end of its Runtime API.
struct Instance {
    id: u64,
    label: String,
    queue: mpsc::Sender<Invocation>,
    /// `None` while the process runs, then why it ended.
    exited: watch::Receiver<Option<String>>,
    kill: Arc<Notify>,
    /// The binary's modification time when this process started: a rebuild retires it.
    binary_mtime: Option<SystemTime>,
    /// Its Runtime API, which holds a start-up failure the process reported.
    api: Arc<RuntimeApi>,
}

impl Instance {
    fn has_exited(&self) -> bool {
        self.exited.borrow().is_some()
    }

    fn kill(&self) {
        self.kill.notify_one();
    }

    /// Resolves with the exit reason once the process has ended.
    async fn exit_reason(&self) -> String {
        let mut exited = self.exited.clone();
        match exited.wait_for(Option::is_some).await {
            Ok(reason) => reason.clone().unwrap_or_default(),
            Err(_) => "ended".to_owned(),
        }
    }

    /// Why the invocation was lost when its channel closed: normally the process has exited (or
    /// is about to). A process still alive after that has abandoned the invocation: kill it,
    /// or it would hold a pool slot forever.
    async fn lost_reason(&self) -> String {
        match tokio::time::timeout(Duration::from_secs(1), self.exit_reason()).await {
            Ok(reason) => reason,
            Err(_) => {
                self.kill();
                "abandoned the invocation and was killed".to_owned()
            }
        }
    }

    /// The start-up failure the process reported at `/runtime/init/error`, as Lambda answers the
    /// invocation with it.
    fn init_failure(&self) -> Option<InvokeError> {
        self.api
            .init_error()
            .map(|(error_type, error_message)| InvokeError::Function {
                error_type,
                error_message,
            })
    }

    /// Runs one invocation on this (idle) instance.
    async fn run(&self, event: Bytes, timeout: Duration) -> Result<Bytes, InvokeError> {
        let (started_tx, started) = oneshot::channel();
        let (reply_tx, reply) = oneshot::channel();
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let invocation = Invocation {
            request_id: account::uuid(),
            event,
            trace_id: account::trace_id(now.as_secs()),
            timeout,
            started: started_tx,
            reply: reply_tx,
        };
        if self.queue.try_send(invocation).is_err() {
            return Err(InvokeError::Died("is no longer reachable".into()));
        }

        // A new process first initialises: wait for it to take the event. One that ends before
        // it does fails the invocation with the start-up error it reported, if it reported one.
        tokio::select! {
            biased;
            taken = started => if taken.is_err() {
                let reason = self.lost_reason().await;
                return Err(self.init_failure().unwrap_or(InvokeError::Died(reason)));
            },
            reason = self.exit_reason() => {
                return Err(self.init_failure().unwrap_or(InvokeError::Died(reason)));
            }
            _ = tokio::time::sleep(INIT_TIMEOUT) => {
                eprintln!("[{}] did not initialise within {INIT_TIMEOUT:?}; killed", self.label);
                self.kill();
                return Err(InvokeError::Timeout(INIT_TIMEOUT));
            }
        }
        tokio::select! {
            biased;
            outcome = reply => match outcome {
                Ok(Outcome::Response(body)) => Ok(body),
                Ok(Outcome::Error { error_type, error_message }) => {
                    Err(InvokeError::Function { error_type, error_message })
                }
                // Its Runtime API went away with the process: report why the process ended.
                Err(_) => Err(InvokeError::Died(self.lost_reason().await)),
            },
            reason = self.exit_reason() => Err(InvokeError::Died(reason)),
            _ = tokio::time::sleep(timeout) => {
                // As Lambda does: the instance is not reused after a timeout.
                eprintln!(
                    "[{}] Task timed out after {:.2} seconds; instance killed",
                    self.label,
                    timeout.as_secs_f64()
                );
                self.kill();
                Err(InvokeError::Timeout(timeout))
            }
        }
    }
}

#[derive(Default)]
struct PoolState {
    /// Every live instance, busy or idle.
    all: HashMap<u64, Arc<Instance>>,
    /// Idle instances; the most recently used is reused first (it is the warmest).
    idle: Vec<Arc<Instance>>,
    /// Invocations waiting for an instance, oldest first.
    waiters: VecDeque<oneshot::Sender<Result<Arc<Instance>, InvokeError>>>,
    closed: bool,
}

pub(crate) struct Pool {
    spec: Arc<FunctionSpec>,
    max_instances: usize,
    next_id: AtomicU64,
    /// A std mutex: it is never held across an `.await`.
    state: Mutex<PoolState>,
}

impl Pool {
    pub fn new(spec: FunctionSpec, max_instances: usize) -> Arc<Pool> {
        Arc::new(Pool {
            spec: Arc::new(spec),
            max_instances: max_instances.max(1),
            next_id: AtomicU64::new(1),
            state: Mutex::new(PoolState::default()),
        })
    }

    pub fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    /// Starts one idle instance ahead of the first request, so that request is not slow.
    pub fn warm(self: &Arc<Self>) -> Result<(), InvokeError> {
        let mut state = lock(&self.state);
        if state.all.is_empty() {
            let instance = self.spawn(&mut state)?;
            state.idle.push(instance);
        }
        Ok(())
    }

    /// Runs one invocation: the event's JSON in, the function's JSON out.
    pub async fn invoke(self: &Arc<Self>, event: Bytes) -> Result<Bytes, InvokeError> {
        let instance = self.acquire().await?;
        let result = instance.run(event, self.spec.timeout).await;
        match result {
            // Killed (timeout) or gone: never reused; its exit is handled by `on_exit`.
            Err(InvokeError::Timeout(_) | InvokeError::Died(_)) => {}
            _ => self.release(instance),
        }
        result
    }

    async fn acquire(self: &Arc<Self>) -> Result<Arc<Instance>, InvokeError> {
        let mtime = modified(&self.spec.binary);
        let waiter = {
            let mut state = lock(&self.state);
            if state.closed {
                return Err(InvokeError::ShuttingDown);
            }
            while let Some(instance) = state.idle.pop() {
                if instance.binary_mtime == mtime {
                    return Ok(instance);
                }
                // The binary was rebuilt since this process started: retire it, so the
                // new code runs.
                state.all.remove(&instance.id);
                instance.kill();
            }
            if state.all.len() < self.max_instances {
                return self.spawn(&mut state);
            }
            let (tx, rx) = oneshot::channel();
            state.waiters.push_back(tx);
            rx
        };
        waiter.await.unwrap_or(Err(InvokeError::ShuttingDown))
    }

    /// Back to the pool after an invocation: to the oldest waiter, else idle.
    fn release(self: &Arc<Self>, instance: Arc<Instance>) {
        let mut state = lock(&self.state);
        if state.closed || instance.has_exited() || !state.all.contains_key(&instance.id) {
            return;
        }
        let mut instance = instance;
        while let Some(waiter) = state.waiters.pop_front() {
            match waiter.send(Ok(instance)) {
                Ok(()) => return,
                Err(Ok(back)) => instance = back,
                Err(Err(_)) => return,
            }
        }
        state.idle.push(instance);
    }

    /// Called when a process has ended: forget it, and let a waiter have its slot.
    fn on_exit(self: &Arc<Self>, id: u64, label: &str, reason: &str) {
        let mut state = lock(&self.state);
        let known = state.all.remove(&id).is_some();
        state.idle.retain(|i| i.id != id);
        if state.closed {
            return;
        }
        if known && reason != KILLED {
            eprintln!("[{label}] process {reason}");
        }
        while state.all.len() < self.max_instances {
            let Some(waiter) = state.waiters.pop_front() else {
                break;
            };
            // A start failure goes to the waiter too: its invocation fails rather than hangs.
            if let Err(Ok(unused)) = waiter.send(self.spawn(&mut state)) {
                state.idle.push(unused);
            }
        }
    }

    /// Kills every process and waits (briefly) for them to end.
    pub async fn shutdown(&self) {
        let instances: Vec<_> = {
            let mut state = lock(&self.state);
            state.closed = true;
            state.waiters.clear();
            state.idle.clear();
            state.all.drain().map(|(_, i)| i).collect()
        };
        for instance in &instances {
            instance.kill();
        }
        for instance in instances {
            let _ = tokio::time::timeout(Duration::from_secs(5), instance.exit_reason()).await;
        }
    }

    /// Starts a process with its own Runtime API server, and registers it as busy.
    fn spawn(self: &Arc<Self>, state: &mut PoolState) -> Result<Arc<Instance>, InvokeError> {
        let spec = &self.spec;
        let start_error = |reason: String| InvokeError::Start {
            binary: spec.binary.display().to_string(),
            reason,
        };
        let binary_mtime = modified(&spec.binary);
        if binary_mtime.is_none() {
            return Err(start_error(
                "no such file (build it with `cargo build --bins`)".into(),
            ));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let label = if id == 1 {
            spec.name.clone()
        } else {
            format!("{}#{id}", spec.name)
        };

        let listener = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .and_then(TcpListener::from_std)
            .map_err(|e| start_error(format!("runtime API listener: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| start_error(e.to_string()))?
            .port();

        let mut command = Command::new(&spec.binary);
        // A clean environment, as in Lambda: a function must not depend on the developer's
        // shell. Only what a process needs to run at all is passed through.
        command.env_clear();
        for name in ["PATH", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE"] {
            if let Ok(value) = std::env::var(name) {
                command.env(name, value);
            }
        }
        // DynamoDB Local's settings first: a spec may name its own endpoint and key id (the
        // stack's recorder, see `explorer::recorder`).
        command.envs(devkit::local_aws_env());
        command
            .env("TZ", ":UTC")
            .envs(spec.environment.iter().cloned());
        if let Ok(level) = std::env::var("RUST_LOG") {
            command.env("RUST_LOG", level);
        }
        command
            .env("AWS_DEFAULT_REGION", account::REGION)
            .env("AWS_LAMBDA_RUNTIME_API", format!("127.0.0.1:{port}"))
            .env("AWS_LAMBDA_FUNCTION_NAME", &spec.name)
            .env(
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
                spec.memory_mb.to_string(),
            )
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env(
                "AWS_LAMBDA_LOG_GROUP_NAME",
                format!("/aws/lambda/{}", spec.name),
            )
            .env(
                "AWS_LAMBDA_LOG_STREAM_NAME",
                format!("lab/local/[$LATEST]{id}"),
            )
            .env("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // If the stack itself dies, do not leave processes behind.
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| start_error(e.to_string()))?;
        if let Some(out) = child.stdout.take() {
            forward(label.clone(), out, spec.log_file.clone());
        }
        if let Some(err) = child.stderr.take() {
            forward(label.clone(), err, spec.log_file.clone());
        }

        let (queue_tx, queue_rx) = mpsc::channel(1);
        let (exit_tx, exited) = watch::channel(None);
        let api = Arc::new(RuntimeApi::new(label.clone(), spec.arn(), queue_rx));
        tokio::spawn(runtime_api::serve(listener, api.clone(), exited.clone()));

        let kill = Arc::new(Notify::new());
        let instance = Arc::new(Instance {
            id,
            label: label.clone(),
            queue: queue_tx,
            exited,
            kill: kill.clone(),
            binary_mtime,
            api,
        });
        let pool: Weak<Pool> = Arc::downgrade(self);
        tokio::spawn(async move {
            let reason = tokio::select! {
                status = child.wait() => match status {
                    Ok(status) => format!("exited ({status})"),
                    Err(e) => format!("could not be waited for: {e}"),
                },
                _ = kill.notified() => {
                    let _ = child.kill().await;
                    KILLED.to_owned()
                }
            };
            let _ = exit_tx.send(Some(reason.clone()));
            if let Some(pool) = pool.upgrade() {
                pool.on_exit(id, &label, &reason);
            }
        });
        state.all.insert(id, instance.clone());
        Ok(instance)
    }
}

fn modified(path: &PathBuf) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Copies a process's output to the stack's stderr, line by line, prefixed with its label, and
/// appends it unchanged to `log_file` when there is one.
fn forward(
    label: String,
    stream: impl AsyncRead + Unpin + Send + 'static,
    log_file: Option<PathBuf>,
) {
    tokio::spawn(async move {
        let mut log = match &log_file {
            Some(path) => match open_log(path) {
                Ok(file) => Some(file),
                Err(e) => {
                    eprintln!("[{label}] cannot append to {}: {e}", path.display());
                    None
                }
            },
            None => None,
        };
        let mut reader = BufReader::new(stream);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    eprintln!("[{label}] {}", text.trim_end_matches(['\r', '\n']));
                    if let Some(file) = log.as_mut() {
                        // One write per line (O_APPEND): lines of concurrent instances never mix.
                        let _ = std::io::Write::write_all(file, &line);
                    }
                }
            }
        }
    });
}

fn open_log(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}
