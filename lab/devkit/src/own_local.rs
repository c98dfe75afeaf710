//! A DynamoDB Local of a test's own: for a test that stops, freezes or restarts it, or that
//! creates indexes on a live table (DynamoDB Local's background index jobs stall when other
//! tests create and delete tables beside them on the shared instance).

use std::{path::PathBuf, process::Command};

/// A free TCP port on 127.0.0.1 (the OS's choice; free when asked).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A DynamoDB Local of this test's own, on a free port, its database in `dir`.
pub struct OwnDynamoDbLocal {
    port: u16,
    dir: PathBuf,
}

impl OwnDynamoDbLocal {
    pub fn start() -> OwnDynamoDbLocal {
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("own-ddb-{}-{port}", std::process::id()));
        let own = OwnDynamoDbLocal { port, dir };
        own.up();
        own
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn script(&self, args: &[&str]) {
        let status = Command::new(sam_template::workspace_root().join("scripts/dynamodb-local.sh"))
            .args(args)
            .status()
            .expect("run scripts/dynamodb-local.sh");
        assert!(
            status.success(),
            "scripts/dynamodb-local.sh {args:?} failed"
        );
    }

    /// Starts it on its port with its database (again, after [`down`](Self::down)).
    pub fn up(&self) {
        let port = self.port.to_string();
        self.script(&["start", &port, &self.dir.to_string_lossy()]);
    }

    /// Stops it (SIGTERM, as an instance going away; the script waits for it to exit).
    pub fn down(&self) {
        self.script(&["stop", &self.port.to_string()]);
    }

    /// Freezes it (SIGSTOP): connections are still accepted, by the kernel, and nothing is
    /// answered, as a host that hangs.
    pub fn freeze(&self) {
        assert!(self.signal("-STOP"), "DynamoDB Local could not be frozen");
    }

    /// Lets it run again (SIGCONT) after [`freeze`](Self::freeze).
    pub fn thaw(&self) {
        assert!(self.signal("-CONT"), "DynamoDB Local could not be thawed");
    }

    /// Sends `signal` to its process; whether it was sent.
    fn signal(&self, signal: &str) -> bool {
        let pidfile = sam_template::workspace_root()
            .join(".local")
            .join(format!("dynamodb-{}.pid", self.port));
        std::fs::read_to_string(&pidfile).is_ok_and(|pid| {
            Command::new("kill")
                .args([signal, pid.trim()])
                .status()
                .is_ok_and(|s| s.success())
        })
    }
}

impl Drop for OwnDynamoDbLocal {
    fn drop(&mut self) {
        // A frozen process would not stop on SIGTERM.
        self.signal("-CONT");
        self.down();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
